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

struct Efficiency {
  std::string_view family;
  double forward, backward;
};
// The fraction of an SM's tensor peak (at the datasheet's matrix clock) an attention step reaches,
// softmax and its exponentials included. Hopper: PyTorch 2.11's default scaled_dot_product_attention
// on an H200 SXM (cuDNN's fused kernel), bf16, 128 (sample, head) pairs at head width 128, no mask,
// T = S = 512 to 8,192: the median over those five `fit` rows of the model's time at efficiency 1
// over the measured time less the kernel's fixed time, per pass
// (validate/measured/h200-sxm-2026-11-26, `validate/scripts/measured_compare.py --fit`). Every other
// attention row there (causal masks, head width 64, 128-token sequences) is predicted.
constexpr std::array<Efficiency, 1> kEfficiency{{{"hopper", 0.685, 0.550}}};

std::optional<double> efficiency(std::string_view family, bool backward) {
  for (const auto& e : kEfficiency)
    if (e.family == family) return backward ? e.backward : e.forward;
  return std::nullopt;
}

}  // namespace

std::optional<AttentionPlan> plan_attention(const Attention& a, bool backward, double bytes, const GpuFacts& facts) {
  const std::optional<double> eff = efficiency(facts.family, backward);
  if (!eff || !facts.matrix || facts.sms <= 0 || facts.sm_flops <= 0) return std::nullopt;
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
  const double step_flops = (backward ? kBackwardWork : 1.0) * 2.0 * kBlockQueries * kBlockKeys * (a.d + a.dv);
  p.compute_s = p.steps_per_sm * step_flops / (facts.sm_flops * *eff);
  p.dram_s = bytes / (facts.dram_efficiency * facts.dram_bandwidth);
  p.seconds = std::max(p.compute_s, p.dram_s) + p.fixed_s;
  return p;
}

}  // namespace ridge::engine::kernels
