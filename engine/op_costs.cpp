// The op cost table. One row per IR op: its class and one function that fills its OpCost. Adding an
// op = one enumerator in ir/network.hpp, one row in ir/ops.cpp, one row here.
//
// Per-element FLOP counts (a transcendental such as exp or erf counts as 1 FLOP, as one instruction
// sequence on the special-function unit; comparisons and selects count 1):
//   op           forward / element                     backward / input-gradient element
//   relu         1  max(x, 0)                           1  select
//   relu6        2  min(max(x, 0), 6)                   2  two range tests
//   sigmoid      4  neg, exp, add, div                  3  g*s*(1-s)
//   tanh         5  mul, exp, sub, add, div             3  g*(1-t^2)
//   silu         5  sigmoid + mul                       9  recompute sigmoid (4) + g*s*(1+x*(1-s)) (5)
//   gelu (erf)   5  div, erf, add, mul, mul             11 recompute cdf (4) + pdf (4) + combine (3)
//   hardsigmoid  4  add, clamp (2), div                 3  range test (2), mul
//   hardswish    5  hardsigmoid + mul                   6  range tests (2), (2x+3)/6 (3), mul
//   add / mul    1                                      mul: 1 per needed input; broadcast inputs add 1 (reduction)
//   softmax      5  max, sub, exp, sum, div             4  g*y, sum, sub, mul
//   batchnorm    eval 2 (x*a+b, per-channel a, b folded from gamma, beta, mean, var);
//                train 7 (statistics 4: sum, sub, square, add; normalise 3: sub, mul, add)
//                backward 10 with the input gradient, 5 without (recompute x-hat 2, sum g 1, sum g*x-hat 2;
//                input gradient 5)
//   layernorm    7 (as batchnorm in train mode; same in eval)   backward 10 / 5 as batchnorm
//   maxpool      window-1 comparisons per output        1 per output (scatter-add into the argmax)
//   avgpool      window per output (window-1 adds, 1 div)  window per output (spread g/n over the window)
//   dropout      eval: a view; train: 1 (x * mask * scale)  1
// Conv/linear/matmul: forward 2*MACs; backward 2*MACs for the input gradient (when needed) plus
// 2*MACs for the weight gradient (conv/linear) or for the other operand's gradient (matmul). Bias
// adds and bias gradients are not counted (as fvcore does): they are one add per output element,
// under 1/(C_in*k*k) of the layer's work.
//
// Views (input, flatten, reshape, slice, eval-mode dropout) run no kernel and cost nothing forward.
// Slice's backward writes its gradient into a zero-filled tensor of the input's size (torch's narrow
// backward): a data-movement kernel. Concat's backward hands out views of the output gradient: free.
// Add's backward reads the output gradient and writes each needed input gradient: this stands in for
// the gradient accumulation at the fork the add joins.
#include "op_costs.hpp"

#include "ir/ops.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::engine {
namespace {

// What a cost function sees: element counts per batch, widths, and the gradient needs.
struct Ctx {
  const ir::Layer& layer;
  const std::vector<ir::Shape>& in_shapes;
  double batch;
  double w;                 // bytes per element
  double params;
  const GradNeeds& grad;

  double in(std::size_t i = 0) const { return static_cast<double>(ir::element_count(in_shapes.at(i))) * batch; }
  double in_total() const {
    double s = 0;
    for (std::size_t i = 0; i < in_shapes.size(); ++i) s += in(i);
    return s;
  }
  double out() const { return static_cast<double>(ir::element_count(layer.output)) * batch; }
  bool need(std::size_t i = 0) const { return i < grad.inputs.size() && grad.inputs[i]; }
  double needf(std::size_t i = 0) const { return need(i) ? 1.0 : 0.0; }
};

using CostFn = void (*)(const Ctx&, OpCost&);

PassCost pass(double flops, double read, double written, int kernels = 1) {
  return PassCost{flops, read, written, kernels};
}

// ---- matmul class -----------------------------------------------------------------------------

// Conv and linear share one shape of cost: MACs per output element times outputs, weights P.
void weighted_matmul(const Ctx& c, OpCost& r, double macs_per_output) {
  r.macs = c.out() * macs_per_output;
  const double f = 2.0 * r.macs;
  const double P = c.params;
  r.forward = pass(f, (c.in() + P) * c.w, c.out() * c.w);
  // Backward: weight gradient always (the layer has parameters); input gradient when needed.
  r.backward = pass(f + c.needf() * f,
                    (c.out() + c.in() + c.needf() * P) * c.w,   // grad_out, saved input, weights
                    (c.needf() * c.in() + P) * c.w,             // grad_in, weight grads
                    1 + (c.need() ? 1 : 0));
}

void conv(const Ctx& c, OpCost& r) {
  const ir::Attrs& a = c.layer.attrs;
  const double per_output = static_cast<double>(c.in_shapes.at(0).at(0) / a.groups) *
                            static_cast<double>(a.kernel.h) * static_cast<double>(a.kernel.w);
  weighted_matmul(c, r, per_output);
}

void linear(const Ctx& c, OpCost& r) {
  weighted_matmul(c, r, static_cast<double>(c.in_shapes.at(0).back()));
}

void matmul(const Ctx& c, OpCost& r) {
  const ir::Shape& a = c.in_shapes.at(0);
  r.macs = c.out() * static_cast<double>(a.back());   // K per output element
  const double f = 2.0 * r.macs;
  r.forward = pass(f, (c.in(0) + c.in(1)) * c.w, c.out() * c.w);
  // grad_a = g . b^T needs b; grad_b = a^T . g needs a. (Broadcast reductions are not counted.)
  const double n = c.needf(0) + c.needf(1);
  r.backward = pass(n * f, (n * c.out() + c.needf(0) * c.in(1) + c.needf(1) * c.in(0)) * c.w,
                    (c.needf(0) * c.in(0) + c.needf(1) * c.in(1)) * c.w, static_cast<int>(n));
}

// ---- normalisation -----------------------------------------------------------------------------

void batchnorm(const Ctx& c, OpCost& r) {
  const double C = c.params / 2.0;   // gamma and beta per channel
  // Eval: running mean and var are read beside gamma and beta (4C values).
  r.forward = pass(2.0 * c.in(), (c.in() + 4.0 * C) * c.w, c.out() * c.w);
  // Train: statistics pass + normalising pass read the input twice; running stats read and updated;
  // saved mean and inverse std written for backward.
  r.forward_train = pass(7.0 * c.in(), (2.0 * c.in() + 4.0 * C) * c.w, (c.out() + 4.0 * C) * c.w);
  r.backward = pass((5.0 + 5.0 * c.needf()) * c.in(),
                    (c.out() + c.in() + 3.0 * C) * c.w,        // grad_out, saved input, gamma, mean, invstd
                    (c.needf() * c.in() + c.params) * c.w);
  r.saved_bytes = 2.0 * C * c.w;
}

void layernorm(const Ctx& c, OpCost& r) {
  const double rows = c.in() / static_cast<double>(c.in_shapes.at(0).back());
  // One pass: a row fits on chip, so the input is read once; mean and rstd per row saved.
  r.forward = pass(7.0 * c.in(), (c.in() + c.params) * c.w, (c.out() + 2.0 * rows) * c.w);
  r.forward_train = r.forward;
  r.backward = pass((5.0 + 5.0 * c.needf()) * c.in(), (c.out() + c.in() + c.params + 2.0 * rows) * c.w,
                    (c.needf() * c.in() + c.params) * c.w);
  r.saved_bytes = 2.0 * rows * c.w;
}

// ---- elementwise -------------------------------------------------------------------------------

template <int Fwd, int Bwd>
void unary(const Ctx& c, OpCost& r) {
  r.forward = pass(Fwd * c.out(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(Bwd * c.in(), (c.out() + c.in()) * c.w, c.in() * c.w);   // grad_out, saved input
}

void add(const Ctx& c, OpCost& r) {
  r.forward = pass(c.out(), c.in_total() * c.w, c.out() * c.w);
  double flops = 0, written = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    if (!c.need(i)) continue;
    if (c.in(i) < c.out()) flops += c.out();   // reduce the gradient over broadcast dimensions
    written += c.in(i);
  }
  r.backward = pass(flops, c.out() * c.w, written * c.w);
}

void mul(const Ctx& c, OpCost& r) {
  r.forward = pass(c.out(), c.in_total() * c.w, c.out() * c.w);
  double flops = 0, read = c.out(), written = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    if (!c.need(i)) continue;
    flops += c.out() + (c.in(i) < c.out() ? c.out() : 0.0);
    read += c.in(1 - i);          // the other operand
    written += c.in(i);
  }
  r.backward = pass(flops, read * c.w, written * c.w);
}

void softmax(const Ctx& c, OpCost& r) {
  r.forward = pass(5.0 * c.out(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(4.0 * c.in(), 2.0 * c.out() * c.w, c.in() * c.w);   // grad_out, saved output
}

void dropout(const Ctx& c, OpCost& r) {
  // Eval: identity (a view). Train: mask (1 byte per element, torch's bool mask) saved for backward.
  r.view = true;
  r.forward_train = pass(c.out(), c.in() * c.w, c.out() * c.w + c.out());
  r.backward = pass(c.in(), c.out() * c.w + c.out(), c.in() * c.w);
  r.saved_bytes = c.out();
}

// ---- pooling -----------------------------------------------------------------------------------

constexpr double kIndexBytes = 8.0;   // torch saves max-pool argmax indices as int64

void maxpool_from_windows(const Ctx& c, OpCost& r, double window_elements) {
  // window_elements: sum over every output of its window size, per batch.
  r.forward = pass(window_elements - c.out(), c.in() * c.w, c.out() * c.w);
  r.forward_train = pass(window_elements - c.out(), c.in() * c.w, c.out() * (c.w + kIndexBytes));
  r.backward = pass(c.out(), c.out() * (c.w + kIndexBytes), c.in() * c.w);
  r.saved_bytes = c.out() * kIndexBytes;
}

void avgpool_from_windows(const Ctx& c, OpCost& r, double window_elements) {
  r.forward = pass(window_elements, c.in() * c.w, c.out() * c.w);
  r.backward = pass(window_elements, c.out() * c.w, c.in() * c.w);
}

double fixed_windows(const Ctx& c) {
  const ir::Attrs& a = c.layer.attrs;
  return c.out() * static_cast<double>(a.kernel.h) * static_cast<double>(a.kernel.w);
}

// torch's adaptive pooling: output i covers [floor(i*in/out), ceil((i+1)*in/out)).
double adaptive_span(std::int64_t in, std::int64_t out) {
  double total = 0;
  for (std::int64_t i = 0; i < out; ++i) {
    const std::int64_t start = (i * in) / out;
    const std::int64_t end = ((i + 1) * in + out - 1) / out;
    total += static_cast<double>(end - start);
  }
  return total;
}

double adaptive_windows(const Ctx& c) {
  const ir::Shape& s = c.in_shapes.at(0);
  const ir::Pair& o = c.layer.attrs.output_size;
  return static_cast<double>(s.at(0)) * adaptive_span(s.at(1), o.h) * adaptive_span(s.at(2), o.w) * c.batch;
}

void maxpool(const Ctx& c, OpCost& r) { maxpool_from_windows(c, r, fixed_windows(c)); }
void avgpool(const Ctx& c, OpCost& r) { avgpool_from_windows(c, r, fixed_windows(c)); }
void adaptive_maxpool(const Ctx& c, OpCost& r) { maxpool_from_windows(c, r, adaptive_windows(c)); }
void adaptive_avgpool(const Ctx& c, OpCost& r) { avgpool_from_windows(c, r, adaptive_windows(c)); }

// ---- data movement -----------------------------------------------------------------------------

void nothing(const Ctx&, OpCost& r) { r.view = true; }

void slice(const Ctx& c, OpCost& r) {
  r.view = true;
  r.backward = pass(0, c.out() * c.w, c.in() * c.w);
}

void concat(const Ctx& c, OpCost& r) {
  r.forward = pass(0, c.in_total() * c.w, c.out() * c.w);
  // backward: views of the output gradient, no kernel.
}

void channel_shuffle(const Ctx& c, OpCost& r) {
  r.forward = pass(0, c.in() * c.w, c.out() * c.w);
  r.backward = pass(0, c.out() * c.w, c.in() * c.w);
}

struct Row {
  ir::Op op;
  ir::OpClass op_class;
  CostFn cost;
};

using C = ir::OpClass;
const Row kTable[] = {
    {ir::Op::Input, C::DataMovement, nothing},
    {ir::Op::Conv, C::MatMul, conv},
    {ir::Op::Linear, C::MatMul, linear},
    {ir::Op::MatMul, C::MatMul, matmul},
    {ir::Op::BatchNorm, C::Normalization, batchnorm},
    {ir::Op::LayerNorm, C::Normalization, layernorm},
    {ir::Op::ReLU, C::Elementwise, unary<1, 1>},
    {ir::Op::ReLU6, C::Elementwise, unary<2, 2>},
    {ir::Op::SiLU, C::Elementwise, unary<5, 9>},
    {ir::Op::Sigmoid, C::Elementwise, unary<4, 3>},
    {ir::Op::HardSwish, C::Elementwise, unary<5, 6>},
    {ir::Op::HardSigmoid, C::Elementwise, unary<4, 3>},
    {ir::Op::GELU, C::Elementwise, unary<5, 11>},
    {ir::Op::Tanh, C::Elementwise, unary<5, 3>},
    {ir::Op::MaxPool, C::Pooling, maxpool},
    {ir::Op::AvgPool, C::Pooling, avgpool},
    {ir::Op::AdaptiveAvgPool, C::Pooling, adaptive_avgpool},
    {ir::Op::AdaptiveMaxPool, C::Pooling, adaptive_maxpool},
    {ir::Op::Dropout, C::Elementwise, dropout},
    {ir::Op::Flatten, C::DataMovement, nothing},
    {ir::Op::Reshape, C::DataMovement, nothing},
    {ir::Op::Concat, C::DataMovement, concat},
    {ir::Op::Add, C::Elementwise, add},
    {ir::Op::Mul, C::Elementwise, mul},
    {ir::Op::Softmax, C::Elementwise, softmax},
    {ir::Op::Slice, C::DataMovement, slice},
    {ir::Op::ChannelShuffle, C::DataMovement, channel_shuffle},
};

const Row& row(ir::Op op) {
  for (const Row& r : kTable)
    if (r.op == op) return r;
  throw std::logic_error("op '" + std::string(ir::op_name(op)) + "' missing from engine/op_costs.cpp");
}

}  // namespace

ir::OpClass op_class(ir::Op op) { return row(op).op_class; }

bool is_view(ir::Op op) {
  return op == ir::Op::Input || op == ir::Op::Flatten || op == ir::Op::Reshape || op == ir::Op::Slice ||
         op == ir::Op::Dropout;
}

GradNeeds grad_needs(const ir::Layer& layer, bool has_parameters, const std::vector<GradNeeds>& earlier) {
  GradNeeds g;
  g.inputs.reserve(layer.inputs.size());
  for (ir::LayerId in : layer.inputs) {
    if (in >= earlier.size()) throw std::invalid_argument("layer '" + layer.name + "' reads a later layer");
    g.inputs.push_back(earlier[in].output);
  }
  g.output = layer.op != ir::Op::Input &&
             (has_parameters || std::any_of(g.inputs.begin(), g.inputs.end(), [](bool b) { return b; }));
  return g;
}

std::vector<GradNeeds> grad_flags(const ir::Network& network) {
  std::vector<GradNeeds> flags;
  flags.reserve(network.layers.size());
  for (const ir::Layer& layer : network.layers) {
    for (ir::LayerId in : layer.inputs)
      if (in >= flags.size()) throw std::invalid_argument("layer '" + layer.name + "' reads a later layer");
    const bool has_params = ir::parameter_count(layer, ir::input_shapes(network, layer)) > 0;
    flags.push_back(grad_needs(layer, has_params, flags));
  }
  return flags;
}

OpCost op_cost(const ir::Network& network, const ir::Layer& layer, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad) {
  return op_cost(layer, ir::input_shapes(network, layer), batch, precision, grad);
}

OpCost op_cost(const ir::Layer& layer, const std::vector<ir::Shape>& shapes, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad) {
  const Ctx ctx{layer, shapes, static_cast<double>(batch), static_cast<double>(ir::bytes_per_element(precision)),
                static_cast<double>(ir::parameter_count(layer, shapes)), grad};
  const Row& r = row(layer.op);
  OpCost cost;
  cost.op_class = r.op_class;
  cost.params = ctx.params;
  r.cost(ctx, cost);
  // Ops whose train-mode forward is the eval one leave forward_train empty; copy it across.
  if (cost.forward_train == PassCost{}) cost.forward_train = cost.forward;
  if (!grad.output) cost.backward = PassCost{};   // not on any gradient path: autograd skips it
  return cost;
}

}  // namespace ridge::engine
