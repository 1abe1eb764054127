// What the parallel model needs to know of a network: its transformer shape (read from the IR), the
// per-micro-batch times of its parts (from one simulate() run), and Korthikanti et al.'s activation
// memory. A network without attention is "not a transformer": it can be data parallel only, and its
// activation memory is simulate()'s.
#pragma once

#include "engine/simulate.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstdint>

namespace ridge::engine::parallel {

// Read from the IR: blocks are the top-level groups of layers (the first component of layer names)
// that hold an attention layer.
struct TransformerShape {
  int layers = 0;               // transformer blocks (0: not a transformer)
  std::int64_t heads = 0;       // attention heads of the first block
  std::int64_t seq = 0;         // tokens per sample (the attention's query length)
  std::int64_t hidden = 0;      // the residual stream's width (the first block's input)
  std::int64_t vocab = 0;       // rows of the token embedding (0: none)
  bool is_transformer() const { return layers > 0; }
};
TransformerShape describe_transformer(const ir::Network& network);

struct PassPair {
  double forward = 0.0;
  double backward = 0.0;
};

// One micro-batch of the whole network on one device, split into the parts tensor and pipeline
// parallelism treat differently. Times are PALEO's (training-mode forward, backward), seconds.
struct MicroBatchProfile {
  std::int64_t micro_batch = 1;
  // Per block (the mean over blocks): what Megatron's tensor parallelism splits T ways (matmuls,
  // attention, the MLP's activation) and what it repeats on every rank (layer norms, residual adds and
  // dropouts on the hidden-wide stream; sequence parallelism splits these too).
  PassPair block_split;
  PassPair block_replicated;
  double block_attention_forward = 0.0;   // what selective recomputation runs again
  double attention_flops_forward = 0.0;   // its FLOPs, over every block
  PassPair before;                        // layers before the first block (embeddings): first stage
  PassPair after;                         // layers after the last block (final norm, LM head): last stage
  double block_params = 0.0;              // per block
  double before_params = 0.0, after_params = 0.0;
  double params = 0.0;                    // the network's (tied weights counted once)
  double flops_forward = 0.0, flops_backward = 0.0;   // model FLOPs of the micro-batch
  double update_s = 0.0;                  // the optimizer step over every parameter
  // Bytes per parameter, as simulate() counts the training set-up.
  double weight_bytes_per_param = 0.0, gradient_bytes_per_param = 0.0, optimizer_bytes_per_param = 0.0;
  double saved_activation_bytes = 0.0;    // simulate()'s, for networks that are not transformers
  double peak_flops = 0.0;                // the matrix peak MFU is measured against
  double tokens_per_sample = 0.0;
};

// Simulates one micro-batch (simulate() with `setup` at batch `micro_batch`) and splits it.
MicroBatchProfile profile_micro_batch(const ir::Network& network, const ir::Device& device, const Options& setup,
                                      std::int64_t micro_batch, const TransformerShape& shape);

// Activation bytes one transformer layer keeps for its backward, for one micro-batch of b sequences of
// s tokens, hidden h, a heads, tensor-parallel t (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", Table 2; 16-bit activations, 1-byte dropout masks):
//   no recomputation                 s b h (10 + 24/t + 5 a s / (h t))   (t = 1: 34 s b h + 5 a s^2 b)
//   + sequence parallel              s b h (34 + 5 a s / h) / t
//   selective recomputation          s b h (10 + 24/t)
//   selective + sequence parallel    34 s b h / t
//   full recomputation               2 s b h  (only the layer's input)
double activation_bytes_per_layer(double s, double b, double h, double a, double t, bool sequence_parallel,
                                  Recompute recompute);

}  // namespace ridge::engine::parallel
