// Costs of normalisation. Per element:
//   batchnorm     eval 2 (x*a+b, per-channel a, b folded from gamma, beta, mean, var);
//                 train 7 (statistics 4: sum, sub, square, add; normalise 3: sub, mul, add), reading
//                 the input twice; backward reads grad_out and the input once per pass (two passes
//                 when the input gradient is needed)
//                 backward 10 with the input gradient, 5 without (recompute x-hat 2, sum g 1, sum g*x-hat 2;
//                 input gradient 5)
//   layernorm, groupnorm, instancenorm   7 in eval and train alike (statistics are per sample);
//                 backward 10 / 5 as batchnorm, and as batchnorm one pass over grad_out and the input
//                 per gradient (weights, input): PyTorch runs them as two kernels
//   rmsnorm       4 (square, sum, mul by the row's rsqrt, mul by the weight); backward 8 / 4
// A row (the normalised group) fits on chip, so the input is read once; mean and rstd per row saved
// (rmsnorm: rstd alone, as torch's RMSNorm keeps).
#include "engine/costs/rows.hpp"

#include <algorithm>

namespace ridge::engine::costs {
namespace {

void batchnorm(const Ctx& c, OpCost& r) {
  const double C = c.params / 2.0;   // gamma and beta per channel
  // Eval: running mean and var are read beside gamma and beta (4C values).
  r.forward = pass(2.0 * c.in(), (c.in() + 4.0 * C) * c.w, c.out() * c.w);
  // Train: statistics pass + normalising pass read the input twice; running stats read and updated;
  // saved mean and inverse std written for backward.
  // Two kernels (cuDNN's, and ATen's batch_norm_stats then batch_norm_elemt).
  r.forward_train = pass(7.0 * c.in(), (2.0 * c.in() + 4.0 * C) * c.w, (c.out() + 4.0 * C) * c.w, 2);
  // Backward: a reduction pass over grad_out and the saved input (the weight gradients and the sums the
  // input gradient needs), then, for the input gradient, an elementwise pass that reads both again
  // (ATen's batch_norm_backward_reduce and batch_norm_backward_elemt; cuDNN's backward alike).
  r.backward = pass((5.0 + 5.0 * c.needf()) * c.in(),
                    ((1.0 + c.needf()) * (c.out() + c.in()) + 3.0 * C) * c.w,   // grad_out, saved input; gamma, mean, invstd
                    (c.needf() * c.in() + c.params) * c.w, 1 + (c.need() ? 1 : 0));
  r.saved_bytes = 2.0 * C * c.w;
}

// Normalises groups of `group` elements: layernorm/rmsnorm rows, groupnorm groups, instancenorm planes.
// `stats`: the values saved per group for backward (mean and rstd; rmsnorm's rstd alone).
// `two_pass`: the backward runs the input gradient and the weight gradients as separate kernels, each
// reading grad_out and the saved input (PyTorch's CUDA layer norm: layer_norm_grad_input_kernel, then
// GammaBetaBackwardCUDAKernel's column reduction, aten/src/ATen/native/cuda/layer_norm_kernel.cu; group
// norm's internal-gradient and input-gradient kernels alike, group_norm_kernel.cu).
void grouped(const Ctx& c, OpCost& r, double group, double fwd, double bwd_weights, double bwd_input,
             double stats = 2.0, bool two_pass = true) {
  const double rows = c.in() / group;
  r.forward = pass(fwd * c.in(), (c.in() + c.params) * c.w, (c.out() + stats * rows) * c.w);
  r.forward_train = r.forward;
  const double passes = two_pass ? std::max(1.0, (c.params > 0 ? 1.0 : 0.0) + c.needf()) : 1.0;
  r.backward = pass((bwd_weights + bwd_input * c.needf()) * c.in(), (passes * (c.out() + c.in()) + c.params + stats * rows) * c.w,
                    (c.needf() * c.in() + c.params) * c.w, static_cast<int>(passes));
  r.saved_bytes = stats * rows * c.w;
}

double trailing(const Ctx& c) {
  const ir::Shape& s = c.in_shapes.at(0);
  double n = 1;
  for (std::size_t i = s.size() - static_cast<std::size_t>(c.a().i("dims")); i < s.size(); ++i) n *= static_cast<double>(s[i]);
  return n;
}
double per_sample(const Ctx& c) { return static_cast<double>(ir::element_count(c.in_shapes.at(0))); }

void layernorm(const Ctx& c, OpCost& r) {
  grouped(c, r, trailing(c), 7, 5, 5);
  r.rows_forward = kernels::layer_norm_rows(c.in() / trailing(c), trailing(c), c.w);
}
void rmsnorm(const Ctx& c, OpCost& r) { grouped(c, r, trailing(c), 4, 4, 4, 1.0, false); }
void groupnorm(const Ctx& c, OpCost& r) { grouped(c, r, per_sample(c) / static_cast<double>(c.a().i("groups")), 7, 5, 5); }
void instancenorm(const Ctx& c, OpCost& r) {
  grouped(c, r, per_sample(c) / static_cast<double>(c.in_shapes.at(0).at(0)), 7, 5, 5);
}

}  // namespace

std::vector<CostRow> norm_costs() {
  return {{"batchnorm", batchnorm, kSavesInput}, {"layernorm", layernorm, kSavesInput}, {"rmsnorm", rmsnorm, kSavesInput}, {"groupnorm", groupnorm, kSavesInput},
          {"instancenorm", instancenorm, kSavesInput}};
}

}  // namespace ridge::engine::costs
