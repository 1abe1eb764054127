// What the parallel model needs to know of a network: its transformer shape (read from the IR), and
// the per-micro-batch times and saved activations of its parts (from one simulate() run: one memory
// model for one device and for many, which for a GPT block with dropout is Korthikanti et al.'s
// 34 s b h + 5 a s^2 b, tests/engine/parallel_memory_test.cpp). A network without attention is "not
// a transformer": it can be data parallel only.
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

// Whether Megatron's tensor parallelism repeats a layer on every rank rather than splitting it: the
// hidden-wide values outside a matmul (norms, residual adds, dropouts on the residual stream; sequence
// parallelism splits these too). Everything else (matmuls, attention, the MLP's activation, the
// vocabulary-parallel embedding) is split.
bool tensor_parallel_repeats(const LayerRow& row, const TransformerShape& shape);

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
  // Activation bytes kept for backward (simulate()'s LayerRow::saved_bytes, no recomputation), split
  // as the times are: per block (the mean over blocks) what tensor parallelism splits and what it
  // repeats; the attention's scores (what selective recomputation drops); the value entering a block
  // (what full recomputation keeps per block); and outside the blocks, before (first stage) and after
  // (last stage: the LM head's logits split over the tensor ranks, the final norm's output repeated).
  double block_saved_split = 0.0, block_saved_replicated = 0.0, block_saved_scores = 0.0, block_input_bytes = 0.0;
  double before_saved = 0.0, after_saved_split = 0.0, after_saved_replicated = 0.0;
  double peak_flops = 0.0;                // the matrix peak MFU is measured against
  double tokens_per_sample = 0.0;
};

// Simulates one micro-batch (simulate() with `setup` at batch `micro_batch`) and splits it.
MicroBatchProfile profile_micro_batch(const ir::Network& network, const ir::Device& device, const Options& setup,
                                      std::int64_t micro_batch, const TransformerShape& shape);

}  // namespace ridge::engine::parallel
