#include "engine/kernels/attention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace ridge::engine::kernels {
namespace {

// Block and step sizes of FlashAttention-2 and cuDNN's fused attention at head widths up to 128.
constexpr double kBlockQueries = 128, kBlockKeys = 128;
// FlashAttention-2's backward: 5 products per step (S and dP recomputed, dV, dK, dQ) against the
// forward's 2 of the same size: 2.5 times its FLOPs.
constexpr double kBackwardWork = 2.5;

// Special-function results (exp2, the softmax's exponentials) per clock per SM: 16 at compute
// capability 5.0 to 9.0 (CUDA C++ Programming Guide, "Arithmetic Instructions", throughput of
// 32-bit exp2f and the other special functions).
constexpr double kExpPerClock = 16;

struct Efficiency {
  std::string_view family;
  bool flash2;                          // FlashAttention-2's kernels (Attention::flash2), else the library's
  double forward, backward;             // the fraction of the tensor peak the steps' products reach
  double forward_fill, backward_fill;   // steps' worth per block outside its main loop
};
// Hopper: PyTorch 2.11's default scaled_dot_product_attention on an H200 SXM (cuDNN's fused kernel),
// bf16, 128 (sample, head) pairs at head width 128, no mask, T = S = 512 to 8,192: per pass, the
// efficiency and fill that fit those five `fit` rows best (least squares of the log error;
// validate/measured/h200-sxm-2026-11-26, `validate/scripts/measured_compare.py --fit`, which reads the
// terms from --explain's 3-digit figures and lands within one step of its grid of these). Every other
// attention row there (causal masks, head width 64, 128-token sequences) and on both H100s is
// predicted. The forward's products come out at the tensor peak itself, the bound of the search: the
// exponentials are charged in series, where cuDNN overlaps part of the softmax with the products, and
// the fit gives the products what the overlap saves. Before the exponentials and the fill (one
// efficiency a pass: 0.685, 0.550) the predicted rows missed by a median of 39 % forward and 47 %
// backward on the H200, short and narrow-headed attentions 40-76 % fast
// (docs/results/2026-11-27-attention-fill.md).
// Hopper, FlashAttention-2: PyTorch 2.11's `flash` backend (FlashAttention-2's kernels) on the same
// H200, the same five shapes per pass, fitted alike (its `fit` rows in the same kernels.csv, marked
// so on 2026-11-27 after the rows had been seen; every other `flash` row is predicted).
constexpr std::array<Efficiency, 2> kEfficiency{{{"hopper", false, 1.000, 0.725, 0.85, 3.60},
                                                 {"hopper", true, 0.460, 0.355, 0.90, 3.35}}};

// A family without figures of its own for FlashAttention-2 runs it as its fused attention: before
// Hopper, FlashAttention-2 is the fused kernel.
std::optional<Efficiency> efficiency(std::string_view family, bool flash2) {
  std::optional<Efficiency> fused;
  for (const auto& e : kEfficiency)
    if (e.family == family) {
      if (e.flash2 == flash2) return e;
      if (!e.flash2) fused = e;
    }
  return fused;
}

}  // namespace

std::optional<AttentionPlan> plan_attention(const Attention& a, bool backward, double bytes, const GpuFacts& facts) {
  const std::optional<Efficiency> family = efficiency(facts.family, a.flash2);
  if (!family || !facts.matrix || facts.sms <= 0 || facts.sm_flops <= 0) return std::nullopt;
  const double eff = backward ? family->backward : family->forward;
  const double fill = backward ? family->backward_fill : family->forward_fill;
  AttentionPlan p;
  p.fixed_s = facts.kernel_fixed_s;
  if (a.sample_heads <= 0 || a.T <= 0 || a.S <= 0) {
    p.seconds = p.fixed_s;
    return p;
  }
  // Blocks own query tiles (forward) or key tiles (backward) and walk the other side.
  const double own_tile = backward ? kBlockKeys : kBlockQueries, walk_tile = backward ? kBlockQueries : kBlockKeys;
  const double owned = backward ? a.S : a.T, walked = backward ? a.T : a.S;
  const double per_pair = std::ceil(owned / own_tile), full_steps = std::ceil(walked / walk_tile);
  p.blocks = a.sample_heads * per_pair;
  double steps_per_pair = per_pair * full_steps, longest = full_steps;
  if (a.causal) {
    // Query q (0-based, of T) sees keys 0 .. past + q. Forward block i covers queries [i Bm, (i+1) Bm)
    // and runs the key steps up to its last query's; backward block j covers keys [j Bn, (j+1) Bn) and
    // runs the query steps from the first query that sees its first key.
    steps_per_pair = 0;
    longest = 0;
    for (double i = 0; i < per_pair; ++i) {
      double steps;
      if (!backward) {
        const double last_query = std::min(a.T, (i + 1) * kBlockQueries) - 1;
        steps = std::min(full_steps, std::ceil((a.past + last_query + 1) / kBlockKeys));
      } else {
        const double first_query = std::max(0.0, i * kBlockKeys - a.past);
        steps = first_query >= a.T ? 0 : full_steps - std::floor(first_query / kBlockQueries);
      }
      steps_per_pair += steps;
      longest = std::max(longest, steps);
    }
  }
  const double steps = a.sample_heads * steps_per_pair;
  p.executed_fraction = steps / (a.sample_heads * per_pair * full_steps);
  p.steps_per_sm = a.causal ? std::max(std::ceil(steps / facts.sms), longest)
                            : std::ceil(p.blocks / facts.sms) * full_steps;
  p.waves = std::ceil(p.blocks / facts.sms);
  p.fill_steps = p.waves * fill;
  const double step_flops = (backward ? kBackwardWork : 1.0) * 2.0 * kBlockQueries * kBlockKeys * (a.d + a.dv);
  // One exponential per score of a step, forward and backward (which recomputes P from the scores):
  // the scores a step holds, not its tile's (a decode step's one query meets 128 keys), on average
  // over the tiles along each side.
  const double queries = a.T / std::ceil(a.T / kBlockQueries), keys = a.S / std::ceil(a.S / kBlockKeys);
  p.step_exp_s = facts.clock > 0 ? queries * keys / (kExpPerClock * facts.clock) : 0.0;
  p.step_s = step_flops / (facts.sm_flops * eff) + p.step_exp_s;
  p.compute_s = (p.steps_per_sm + p.fill_steps) * p.step_s;
  p.dram_s = bytes / (facts.dram_efficiency * facts.dram_bandwidth);
  p.seconds = std::max(p.compute_s, p.dram_s) + p.fixed_s;
  return p;
}

}  // namespace ridge::engine::kernels
