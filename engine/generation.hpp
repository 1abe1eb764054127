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
#pragma once

#include "engine/simulate.hpp"

#include <cstdint>
#include <functional>
#include <optional>

namespace ridge::engine {

struct Generation {
  std::int64_t batch = 1, prompt = 0, generate = 0;
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
  double memory_bytes = 0.0;              // weights + KV cache + activations
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
                    std::int64_t prompt, std::int64_t generate);

// Bytes of K and V one token adds to the cache of `network`, over all its attention layers.
double kv_cache_bytes_per_token(const ir::Network& network, ir::Precision precision);

}  // namespace ridge::engine
