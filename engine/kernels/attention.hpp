// The flash-attention kernel model (issues #32, #40): the time of one fused attention kernel
// (FlashAttention's algorithm: the scores never leave the SM) on a GPU, from the work its thread
// blocks execute. Every formula is in attention.cpp; this header says what it computes.
//
// A forward block owns Bm = 128 queries of one (sample, head) and walks the keys in steps of Bn = 128:
// per step it runs Q K^T and P V on the tensor cores (2 Bm Bn (d + dv) FLOPs) and the softmax between.
// A backward block owns Bn keys and walks the queries, recomputing the scores (2.5 times the forward's
// FLOPs per step, FlashAttention-2's count). With a causal mask a block skips every step wholly above
// the diagonal, so a causal kernel executes about half the steps: the FLOPs Ridge reports for the layer
// still count the whole score matrix (as torchvision and Megatron count them), but its time is that of
// the steps that run.
//   blocks       = samples x heads x ceil(T / Bm)            (backward: ceil(S / Bn) per sample and head)
//   steps(i)     = the key steps block i runs: ceil(S / Bn), or to the diagonal when causal
//   steps per SM = max(ceil(blocks / SMs) x steps of a block  (no mask: every block alike),
//                      ceil(sum of steps / SMs), the longest block)   (causal: blocks differ)
//   waves        = ceil(blocks / SMs): the blocks the busiest SM runs, each paying `fill` steps of its
//                  own (loading its Q or K/V tile, filling the pipeline, storing O or dK/dV)
//   step         = step FLOPs / (SM peak x efficiency) + scores / (16 x clock)
//                  (the second term: one exponential per score on the SM's special-function units,
//                  16 a clock: the softmax's cost that does not shrink with the head width; a step's
//                  scores are Bm x Bn where T and S fill the tiles, 1 x Bn for a decode step's query)
//   compute      = (steps per SM + waves x fill) x step
//   DRAM         = the pass's bytes / (dram efficiency x bandwidth)
//   time         = max(compute, DRAM) + the kernel's fixed time
// `efficiency` is the fraction of the SM's tensor peak an attention step's two products reach, and
// `fill` the steps' worth each block spends outside its main loop: two figures per architecture
// family and pass, fitted on the rows of a measurement marked `fit` and stated with them in
// attention.cpp. A family without them is timed by PALEO, as before.
#pragma once

#include "engine/kernels/gemm.hpp"

#include <optional>

namespace ridge::engine::kernels {

// One attention: `heads` x batch (sample, head) pairs, T queries over S keys (S counts a KV cache's
// `past` keys, which a causal query sees whole), key width d, value width dv.
struct Attention {
  double sample_heads = 0, T = 0, S = 0, past = 0, d = 0, dv = 0;
  bool causal = false;
  // FlashAttention-2's own kernels (Dao's flash-attn 2.x, PyTorch's `flash` backend) rather than the
  // library's fused attention (cuDNN's, FlashAttention-3, TensorRT's): the same algorithm, but on
  // Hopper FlashAttention-2 issues Ampere's synchronous tensor-core instructions, not wgmma, and runs
  // at about half the rate (its own fitted figures in attention.cpp); elsewhere the two are one.
  bool flash2 = false;
  friend bool operator==(const Attention&, const Attention&) = default;
};

struct AttentionPlan {
  double blocks = 0;
  double steps_per_sm = 0;     // the main-loop steps the busiest SM runs
  double waves = 0;            // the blocks the busiest SM runs, ceil(blocks / SMs)
  double fill_steps = 0;       // waves x the family's fill: steps' worth outside the main loops
  double step_s = 0;           // one step: its products at the family's efficiency and its exponentials
  double step_exp_s = 0;       // the exponentials' part of step_s
  double executed_fraction = 0;  // the steps that run / the steps of the whole score matrix
  double compute_s = 0, dram_s = 0, fixed_s = 0;
  double seconds = 0;          // the kernel's time on the GPU (launch overhead not included)
};

// The plan for one pass (forward or backward) moving `bytes` through DRAM, or nothing where the
// device's family has no fitted attention efficiency for that pass (the caller then uses PALEO).
std::optional<AttentionPlan> plan_attention(const Attention& a, bool backward, double bytes, const GpuFacts& facts);

}  // namespace ridge::engine::kernels
