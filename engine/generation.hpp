// Inference phases of a decoder language model generating G tokens: the prefill of a prompt of P
// tokens, whose last position gives the first token, then G-1 decode steps of one token each against
// a KV cache that grows from P to P+G-2 cached tokens (the count vLLM's and Hugging Face's benchmarks
// use: latency = time to first token + (G-1) x time per output token). The network is elaborated per
// phase by the caller (the driver re-elaborates the `.net` with its `seq_len` and `past` parameters),
// so the engine stays free of parsing.
//
//   time to first token   = prefill forward at seq_len = P, past = 0
//   decode step at past L = forward at seq_len = 1, past = L
//   per-token decode      = mean over L in [P, P+G-2] (G = 1: the step at P); PALEO time is affine in L
//                           (attention's scores and cache reads grow linearly, nothing else depends on
//                           L), so the mean is exactly the average of the first and the last step
//   latency               = prefill + (G-1) decode steps
//   KV cache at its peak  = P+G-1 tokens (the last token is never fed back)
//   KV cache              = per token, every attention layer's key and value widths x bytes
//                           (2 layers kv_heads head_dim bytes for a standard decoder)
//
// On T x P devices (GenerationParallel: Megatron's tensor parallelism over T ranks, the layers in P
// pipeline stages, one batch in flight, as a latency-bound server runs it):
//   a layer on one rank   = max(its time / T, its kernels x launch overhead) where tensor parallelism
//                           splits it (matmuls, attention, the MLP's activation: everything but the
//                           hidden-wide norms, residual adds and dropouts, which every rank repeats),
//                           its whole time where it does not (parallel/transformer.hpp's split)
//   a phase               = every layer on one rank (the P stages run one after another for one batch)
//                           + 2 all-reduces per block and one for the embedding, of tokens x hidden
//                           values, + one all-gather of the logits, tokens x vocab (T > 1)
//                           + P - 1 point-to-point sends of tokens x hidden values (P > 1)
//                           (tokens: batch x prompt for the prefill, batch for a decode step;
//                           collectives as parallel/collectives.hpp times them on the system's link)
//   memory per device     = (split weights / T + repeated weights) / P + KV cache / (min(T, kv_heads) P)
//                           + the prefill's peak activations / T
//   decode bound          = the first step's roofline / T
#pragma once

#include "engine/simulate.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ridge::engine {

// Where a generation runs: T tensor-parallel ranks x P pipeline stages of a system (its .hw's link).
struct GenerationParallel {
  int tensor = 1;
  int pipeline = 1;
  std::string link;   // empty: the system's interconnect (parallel::topology_of)
  int devices() const { return tensor * pipeline; }
};

struct Generation {
  std::int64_t batch = 1, prompt = 0, generate = 0;
  int tensor_parallel = 1, pipeline_parallel = 1;
  double communication_prefill_s = 0.0;   // the prefill's collectives and sends (in prefill_s)
  double communication_decode_s = 0.0;    // one decode step's (in each decode step)
  double memory_per_device_bytes = 0.0;   // what one device holds; fits and max_batch are judged on it
  // Its parts (not in the output schema; the serving simulator sizes its KV cache from them).
  double weights_per_device_bytes = 0.0;
  double kv_bytes_per_token_per_device = 0.0;   // one sequence's token
  double activations_per_device_bytes = 0.0;
  double prefill_s = 0.0;                 // time to first token
  double decode_first_s = 0.0;            // the first decode step (P cached tokens)
  double decode_last_s = 0.0;             // the last (P+G-2 cached tokens)
  double decode_per_token_s = 0.0;        // mean decode step
  double latency_s = 0.0;                 // prefill + (generate - 1) decode steps
  double tokens_per_s = 0.0;              // generated tokens per second, the batch together, end to end
  double decode_tokens_per_s = 0.0;       // batch / mean decode step
  double kv_cache_bytes_per_token = 0.0;  // one sequence, all layers
  double kv_cache_bytes = 0.0;            // batch x (prompt + generate - 1) tokens
  double weight_bytes = 0.0;
  double activation_bytes = 0.0;          // the prefill's peak live activations (larger than a decode step's)
  double memory_bytes = 0.0;              // weights + KV cache + activations, over every device
  std::optional<bool> fits;
  std::int64_t max_batch = 0;             // largest batch whose weights + KV cache + activations fit
  double decode_bound_s = 0.0;            // the first decode step's roofline: no decode step can be faster
  Report prefill;                         // the two phases' full reports
  Report decode_last;
};

// Builds the network for `seq_len` new tokens with `past` tokens already cached.
using NetworkAt = std::function<ir::Network(std::int64_t seq_len, std::int64_t past)>;

// Throws SimulationError for a prompt or generation count outside [1, 2^20], or a network with no
// attention layer (nothing to cache).
Generation generate(const NetworkAt& network_at, const ir::Device& device, const Options& options,
                    std::int64_t prompt, std::int64_t generate, const GenerationParallel& parallel = {});

// One forward of `seq_len` new tokens per sequence with `past` cached, for `options.batch` sequences,
// on `parallel`'s devices: the phase time generate() takes its prefill and decode steps from.
double phase_seconds(const NetworkAt& network_at, const ir::Device& device, const Options& options,
                     const GenerationParallel& parallel, std::int64_t seq_len, std::int64_t past);

// Bytes of K and V one token adds to the cache of `network`, over all its attention layers.
double kv_cache_bytes_per_token(const ir::Network& network, ir::Precision precision);

}  // namespace ridge::engine
