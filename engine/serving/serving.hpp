// LLM serving under a request load (issue #36): a discrete-event simulation of one replica of a
// deployment (a model on T x P devices) that serves requests as vLLM's scheduler does, iteration by
// iteration, with each iteration timed by the engine.
//
// The load: Poisson arrivals at `rate` requests/s for `duration` seconds; each request's prompt and
// output token counts fixed or uniform over a range; a seed, so a run repeats exactly.
//
// The scheduler (vLLM's default, continuous batching as Orca introduced it, prefill first):
//   - waiting requests are admitted first come, first served, into a prefill iteration while the
//     running sequences stay under max_num_seqs, the iteration's prompt tokens under
//     max_batched_tokens (a prompt longer than the budget runs alone), and their KV cache blocks fit;
//   - an iteration with no prefill to run decodes one token of every running sequence;
//   - the KV cache is paged: a sequence holds ceil(tokens / block_size) blocks; when a decode step
//     needs a block that is not free, the sequence admitted last is preempted (vLLM's recompute: its
//     blocks are freed and it waits again at the front, its prompt and the tokens it made prefilled
//     again when it is readmitted).
// A prefill iteration ends with each admitted sequence's next token (its first, for a new request);
// a decode iteration with one token for each running sequence. A request ends with its last token.
//
// Metrics per request: time to first token (TTFT) = its first token's time - arrival; time per output
// token (TPOT) = (last token - first token) / (output - 1); end-to-end latency = last token - arrival.
// Over the requests: mean, p50, p90, p99 (nearest rank); throughput = output tokens / the makespan (the
// first arrival to the last token); SLO attainment = the share of requests with TTFT and TPOT within
// the SLOs given, goodput = those requests / the makespan; the mean number in the system, integrated
// over the makespan from arrivals and last tokens (Little's law: requests/s x mean e2e latency); KV
// cache occupancy = used blocks over the capacity, its peak and its mean over time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ridge::engine::serving {

// Token counts: `low` when low == high, else uniform integers in [low, high].
struct Lengths {
  std::int64_t low = 1, high = 1;
};

struct Load {
  double rate = 1.0;          // requests per second (Poisson)
  double duration_s = 60.0;   // arrivals in [0, duration)
  Lengths prompt{512, 512};
  Lengths output{128, 128};
  std::uint64_t seed = 1;
};

struct Request {
  double arrival_s = 0.0;
  std::int64_t prompt = 0, output = 0;
};

// The requests of a load, in arrival order. Throws SimulationError for a rate, a duration or lengths
// out of range, or more than kMaxRequests requests.
std::vector<Request> requests(const Load& load);
inline constexpr std::int64_t kMaxRequests = 1'000'000;

// Continuous (the default, above) or static batching: a batch of up to max_num_seqs waiting requests
// is admitted only when the last one has finished, with the KV cache of its prompts and outputs
// reserved whole; it is prefilled at once (no token budget) and decodes at its full size until its
// longest output ends (finished sequences stay in it as padding, as a batched generate() runs them).
enum class Batching { Continuous, Static };

struct Scheduler {
  Batching batching = Batching::Continuous;
  std::int64_t max_num_seqs = 256;          // vLLM's default
  std::int64_t max_batched_tokens = 2048;   // vLLM's default without chunked prefill: max(max_model_len, 2048)
  std::int64_t block_size = 16;             // tokens per KV cache block, vLLM's default
};

// What the engine says an iteration costs (engine::serving::engine_step_cost, or a test's figures).
struct StepCost {
  // A prefill of `sequences` prompts of `tokens` tokens each (the mean, where they differ).
  std::function<double(std::int64_t sequences, std::int64_t tokens)> prefill;
  // One decode step of `sequences` sequences holding `context` tokens each (the mean).
  std::function<double(std::int64_t sequences, double context)> decode;
  std::int64_t kv_capacity_tokens = 0;   // the KV cache one replica holds, in tokens
};

struct Slo {
  double ttft_s = 0.0;   // 0: no bound
  double tpot_s = 0.0;
};

struct Percentiles {
  double mean = 0.0, p50 = 0.0, p90 = 0.0, p99 = 0.0;
};

struct Served {
  std::int64_t requests = 0;
  std::int64_t completed = 0;             // every request runs to its last token (the run drains)
  std::int64_t iterations = 0, prefill_iterations = 0;
  std::int64_t preemptions = 0;
  double makespan_s = 0.0;                // first arrival to last token
  double requests_per_s = 0.0;            // over the makespan
  double output_tokens_per_s = 0.0;
  Percentiles ttft, tpot, e2e;
  double mean_in_system = 0.0;            // requests arrived and not finished, averaged over the makespan
  double slo_attainment = 0.0;            // 1 with no SLO given
  double goodput_requests_per_s = 0.0;    // within the SLOs, over the makespan
  double kv_peak = 0.0, kv_mean = 0.0;    // KV cache occupancy: used over capacity
  std::int64_t kv_capacity_tokens = 0;
};

// Serves `requests` (in arrival order). Throws SimulationError for a request that cannot fit the KV
// cache alone, a scheduler out of range, or a run beyond kMaxIterations.
Served serve(const std::vector<Request>& requests, const StepCost& cost, const Scheduler& scheduler, const Slo& slo);
inline constexpr std::int64_t kMaxIterations = 50'000'000;

}  // namespace ridge::engine::serving
