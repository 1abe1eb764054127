// LLM serving under a request load (issue #36): a discrete-event simulation of a deployment (R
// replicas of a model, each on T x P devices) that serves requests as vLLM's scheduler does, iteration
// by iteration, with each iteration timed by the engine.
//
// The load: arrivals at `rate` requests/s for `duration` seconds, Poisson, or gamma-distributed gaps
// of shape `burstiness` (vLLM's benchmark_serving --burstiness: below 1 burstier, above 1 steadier, 1
// Poisson), or a trace's arrival times; each request's prompt and output token counts fixed, uniform
// over a range, or drawn from a list of samples (a trace's column); a seed, so a run repeats exactly.
//
// A router sends each request, when it arrives, to one replica: round robin (in arrival order), or
// the replica with the fewest requests outstanding (routed and not finished; the first on a tie).
//
// Each replica's scheduler (vLLM's):
//   - continuous batching, prefill first (vLLM's default without chunked prefill, as Orca introduced
//     it): waiting requests are admitted first come, first served, into a prefill iteration while the
//     running sequences stay under max_num_seqs, the iteration's prompt tokens under
//     max_batched_tokens (a prompt longer than the budget runs alone), and their KV cache blocks fit;
//     an iteration with no prefill to run decodes one token of every running sequence;
//   - chunked prefill (Sarathi-Serve; vLLM's --enable-chunked-prefill): every iteration decodes one
//     token of each running sequence that has its prompt cached, then spends what is left of the
//     max_batched_tokens budget on prompt chunks, of the sequences already admitted first, then of
//     waiting requests admitted first come, first served while sequences and KV cache allow; a
//     prompt's last chunk gives its first token. So a long prompt no longer stalls the decodes;
//   - static batching: a batch of up to max_num_seqs waiting requests is admitted only when the last
//     one has finished, with the KV cache of its prompts and outputs reserved whole; it is prefilled
//     at once (no token budget) and decodes at its full size until its longest output ends (finished
//     sequences stay in it as padding, as a batched generate() runs them).
// The KV cache is paged: an admitted sequence holds the blocks of its prompt (ceil(tokens /
// block_size)) and one more each time its tokens fill them; when a decode needs a block that is not
// free, the sequence admitted last is preempted (vLLM's recompute: its blocks are freed and it waits
// again at the front, its prompt and the tokens it made prefilled again when it is readmitted).
// A sequence's token is emitted when the iteration that gives it ends; a request ends with its last.
//
// Metrics per request: time to first token (TTFT) = its first token's time - arrival; time per output
// token (TPOT) = (last token - first token) / (output - 1); end-to-end latency = last token - arrival.
// Over the requests: mean, p50, p90, p99 (nearest rank); throughput = output tokens / the makespan (the
// first arrival to the last token); SLO attainment = the share of requests with TTFT and TPOT within
// the SLOs given, goodput = those requests / the makespan; the mean number in the system, integrated
// over the makespan from arrivals and last tokens (Little's law: requests/s x mean e2e latency); KV
// cache occupancy = used blocks over the capacity, its peak (the highest replica) and its mean over
// time and replicas; utilisation = the replicas' time running iterations over replicas x makespan.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine::serving {

// Token counts: drawn uniformly from `samples` where there are any; else `low` when low == high, else
// uniform integers in [low, high].
struct Lengths {
  Lengths() = default;
  Lengths(std::int64_t low_, std::int64_t high_) : low(low_), high(high_) {}
  std::int64_t low = 1, high = 1;
  std::vector<std::int64_t> samples;
  std::string source;   // where the samples came from (a file), for the report
};

struct Request {
  double arrival_s = 0.0;
  std::int64_t prompt = 0, output = 0;
};

struct Load {
  double rate = 1.0;          // requests per second
  double duration_s = 60.0;   // arrivals in [0, duration)
  double burstiness = 1.0;    // the gamma shape of the gaps between arrivals (1: Poisson)
  Lengths prompt{512, 512};
  Lengths output{128, 128};
  std::uint64_t seed = 1;
  // A trace replayed as it is (arrival order), in place of the above where it holds any request.
  std::vector<Request> trace;
  std::string trace_source;
};

// "poisson", "gamma" (burstiness other than 1) or "trace".
std::string arrivals_name(const Load& load);

// The requests of a load, in arrival order. Throws SimulationError for a rate, a duration, a
// burstiness or lengths out of range, or more than kMaxRequests requests.
std::vector<Request> requests(const Load& load);
// The mean of a length distribution (its samples', or its range's midpoint), rounded, at least 1.
std::int64_t mean_tokens(const Lengths& lengths);
inline constexpr std::int64_t kMaxRequests = 1'000'000;

// The three schedulers above.
enum class Batching { Continuous, Chunked, Static };
std::string_view batching_name(Batching b);
std::optional<Batching> batching_from_name(std::string_view name);   // continuous, chunked, static

struct Scheduler {
  Batching batching = Batching::Continuous;
  std::int64_t max_num_seqs = 256;          // vLLM's default
  std::int64_t max_batched_tokens = 2048;   // the tokens one iteration takes (default_max_batched_tokens)
  std::int64_t block_size = 16;             // tokens per KV cache block, vLLM's default
};
// vLLM's default budgets: 2048 tokens without chunked prefill (max(max_model_len, 2048) for models
// of up to 2048 tokens), 512 with it (vLLM 0.4-0.6's default for --enable-chunked-prefill, the chunk
// Sarathi-Serve evaluates).
std::int64_t default_max_batched_tokens(Batching b);

enum class Router { RoundRobin, LeastOutstanding };
std::string_view router_name(Router r);
std::optional<Router> router_from_name(std::string_view name);   // round-robin, least-outstanding

// Replicas behind the router; or, disaggregated (Splitwise, DistServe), `prefill` replicas that only
// prefill and `decode` replicas that only decode: a request's prompt runs on a prefill replica (its
// first token comes from there), then its KV cache goes over the system's link to a decode replica
// (StepCost::transfer), which admits it as its memory allows and decodes the rest. Both sides route
// as `router` says; a decode replica recomputes a sequence it preempts.
struct Replicas {
  std::int64_t count = 1;                  // replicas that do both (ignored when disaggregated)
  Router router = Router::RoundRobin;
  std::int64_t prefill = 0, decode = 0;    // disaggregated: both above 0
  bool disaggregated() const { return prefill > 0; }
  std::int64_t total() const { return disaggregated() ? prefill + decode : count; }
};

// What the engine says an iteration costs (engine::serving::engine_step_cost, or a test's figures).
struct StepCost {
  // A prefill of `sequences` prompts of `tokens` tokens each (the mean, where they differ).
  std::function<double(std::int64_t sequences, std::int64_t tokens)> prefill;
  // One decode step of `sequences` sequences holding `context` tokens each (the mean).
  std::function<double(std::int64_t sequences, double context)> decode;
  // Chunked prefill's mixed iteration: one sequence of `tokens` new tokens after `past` cached. An
  // iteration of n decodes at mean context L and prompt chunks of C tokens in all (at token-weighted
  // mean past p) costs chunk(n + C, p) + decode(n, L) - decode(n, 0): its matrix products see all
  // n + C tokens at once, and each decode adds the reading of its own cache. Needed for Chunked only.
  std::function<double(std::int64_t tokens, double past)> chunk;
  // Disaggregation's hand-over: the time to send one sequence's KV cache of `tokens` tokens from a
  // prefill replica to a decode replica. Needed when disaggregated only.
  std::function<double(std::int64_t tokens)> transfer;
  std::int64_t kv_capacity_tokens = 0;   // the KV cache one replica holds, in tokens
};

struct Slo {
  double ttft_s = 0.0;   // 0: no bound
  double tpot_s = 0.0;
};

struct Percentiles {
  double mean = 0.0, p50 = 0.0, p90 = 0.0, p99 = 0.0;
};

// One iteration of one replica, for the figures and the trace (serve(..., record = true)).
struct Iteration {
  int replica = 0;
  double start_s = 0.0, duration_s = 0.0;
  std::int64_t prefill_tokens = 0;   // prompt tokens (whole prompts, or chunks)
  std::int64_t decodes = 0;          // sequences decoding one token (a static batch's padding included)
  std::int64_t running = 0, waiting = 0;   // the replica's sequences admitted, and waiting, as it runs
  double kv_occupancy = 0.0;         // the replica's KV cache blocks in use over its capacity
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
  std::int64_t kv_capacity_tokens = 0;    // one replica's
  double utilisation = 0.0;               // replicas' busy time over replicas x makespan
  double transfer_mean_s = 0.0;           // disaggregated: the mean KV cache hand-over
  std::vector<Iteration> timeline;        // every iteration, in the order they start (when recorded)
};

// Serves `requests` (in arrival order) on `replicas`. Throws SimulationError for a request that cannot
// fit the KV cache alone, a scheduler or replica count out of range, or a run beyond kMaxIterations.
Served serve(const std::vector<Request>& requests, const StepCost& cost, const Scheduler& scheduler, const Slo& slo,
             const Replicas& replicas = {}, bool record = false);
inline constexpr std::int64_t kMaxReplicas = 4096;
inline constexpr std::int64_t kMaxIterations = 50'000'000;

}  // namespace ridge::engine::serving
