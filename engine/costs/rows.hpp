// What a cost row sees and fills, shared by the family files under engine/costs/. Internal to engine.
#pragma once

#include "engine/op_costs.hpp"
#include "lang/ir/ops.hpp"

#include <cmath>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace ridge::engine::costs {

// Element counts per batch, widths, and the gradient needs of one layer.
struct Ctx {
  const ir::Layer& layer;
  const std::vector<ir::Shape>& in_shapes;
  double batch;
  double w;                 // bytes per element
  double ww;                // bytes per weight of the matrix ops (weight-only quantisation; else w)
  double params;            // weights the layer reads (owned or tied)
  const GradNeeds& grad;
  // Bytes per element of the operands' rows, for alignment: an MX format's element type (its block
  // scales are a tensor of their own), else w.
  double element_w = w;
  double kv_w = w;          // bytes per element of attention's KV cache (a quantised stack's: engine/quant_storage.hpp)
  double gemm_w = w;        // bytes per element the kernel model counts a GEMM's operands at: the run's precision

  const ir::Attrs& a() const { return layer.attrs; }
  double in(std::size_t i = 0) const { return static_cast<double>(ir::element_count(in_shapes.at(i))) * batch; }
  double in_total() const {
    double s = 0;
    for (std::size_t i = 0; i < in_shapes.size(); ++i) s += in(i);
    return s;
  }
  double out() const { return static_cast<double>(ir::element_count(layer.output)) * batch; }
  bool need(std::size_t i = 0) const { return i < grad.inputs.size() && grad.inputs[i]; }
  double needf(std::size_t i = 0) const { return need(i) ? 1.0 : 0.0; }
  bool any_need() const {
    for (std::size_t i = 0; i < in_shapes.size(); ++i)
      if (need(i)) return true;
    return false;
  }
};

using CostFn = void (*)(const Ctx&, OpCost&);
// Every row says what its backward reads of the forward's values (op_costs.hpp, Saves): a row that
// leaves it out is a -Wmissing-field-initializers warning, which the build treats as a defect.
struct CostRow {
  std::string_view op;   // the spec row's name
  CostFn cost;
  Saves saves;
};

// What rows save, as PyTorch's derivatives.yaml has it for the op's ATen form.
inline constexpr Saves kSavesNothing{0, false};   // add, concat, views, pooling by mean: the gradient alone
inline constexpr Saves kSavesInput{1, false};     // the first input: conv, linear, norms, gelu, silu
inline constexpr Saves kSavesInputs{~0u, false};  // every input: matmul, mul, div
inline constexpr Saves kSavesOutput{0, true};     // the result: relu, sigmoid, tanh, exp, softmax

inline PassCost pass(double flops, double read, double written, int kernels = 1) {
  return PassCost{flops, read, written, kernels};
}

// A view: no kernel forward; the spec row says so, and a row may still give a backward.
inline void view(const Ctx&, OpCost&) {}

constexpr double kIndexBytes = 8.0;   // torch's int64 indices (gather, max-pool argmax)

// A copy of the input forward and of the gradient backward (pad, roll, pixel_shuffle, channel_shuffle).
inline void copy_both_ways(const Ctx& c, OpCost& r) {
  r.forward = pass(0, c.in() * c.w, c.out() * c.w);
  r.backward = pass(0, c.out() * c.w, c.in() * c.w);
}

// A layer with a weight matrix (conv, conv_transpose, linear): `macs` forward, the weights read at
// their own width (weight-only quantisation). Backward: the weight gradient always (the layer has
// parameters), the input gradient when needed.
inline void weighted(const Ctx& c, OpCost& r, double macs) {
  r.macs = macs;
  const double f = 2.0 * r.macs;
  const double P = c.params;
  r.forward = pass(f, c.in() * c.w + P * c.ww, c.out() * c.w);
  r.backward = pass(f + c.needf() * f,
                    (c.out() + c.in()) * c.w + c.needf() * P * c.ww,   // grad_out, saved input, weights
                    (c.needf() * c.in() + P) * c.w,                    // grad_in, weight grads
                    1 + (c.need() ? 1 : 0));
}

// The forward GEMM's weights (B) as DRAM holds them under weight-only quantisation (c.ww below
// c.gemm_w): the kernel model counts an operand's stored elements at the run's width, so weights at ww
// bytes are ww / gemm_w of its elements. The weights are dequantised on their way to the matrix units (gpt-fast's
// and torchao's int8 weight-only linear), whose rate stays the run's.
inline kernels::Gemm weights_as_stored(const Ctx& c, kernels::Gemm g) {
  if (c.ww < c.gemm_w) g.b_stored = (g.b_stored > 0 ? g.b_stored : g.k * g.n) * c.ww / c.gemm_w;
  return g;
}

// The GEMMs of a layer with a weight matrix, as a library runs it: forward C[m, n] = A[m, k] W[k, n]
// (`count` groups), backward the input gradient [m, k] = dC [m, n] W^T when needed and the weight
// gradient [n, k] = dC^T [n, m] A [m, k]. For a convolution, m is the output positions of the batch and
// k the input channels of a group times the window (implicit GEMM, as cuDNN's and CUTLASS's kernels).
inline void weighted_gemms(const Ctx& c, OpCost& r, const kernels::Gemm& forward) {
  r.gemm_forward.add(weights_as_stored(c, forward));
  const auto backward = [&](double m, double n, double k) {
    kernels::Gemm g{m, n, k, forward.count};
    g.unaligned = forward.unaligned;   // the same tensors' rows
    return g;
  };
  if (c.need()) r.gemm_backward.add(backward(forward.m, forward.k, forward.n));
  r.gemm_backward.add(backward(forward.n, forward.k, forward.m));
}

// Whether any of `rows` (dimensions that are the rows of a GEMM's operands or output: a linear layer's
// in and out features, a matmul's K and N, attention's head width and sequence) is not a whole number
// of 16-byte vectors at `bytes` per element (kernels::Gemm::unaligned). The batch and token dimension
// M is never a row, in the forward or in either backward product.
inline bool unaligned_rows(double bytes, std::initializer_list<double> rows) {
  for (const double r : rows)
    if (std::fmod(r * bytes, 16.0) != 0.0) return true;
  return false;
}
inline kernels::Gemm gemm_with_rows(kernels::Gemm g, double bytes, std::initializer_list<double> rows) {
  g.unaligned = unaligned_rows(bytes, rows);
  return g;
}

std::vector<CostRow> tensor_costs();
std::vector<CostRow> pointwise_costs();
std::vector<CostRow> conv_costs();
std::vector<CostRow> norm_costs();
std::vector<CostRow> dense_costs();

}  // namespace ridge::engine::costs
