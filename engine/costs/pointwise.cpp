// Costs of arithmetic, math functions and activations. Per element (a transcendental such as exp,
// erf or tanh's exp counts as 1 FLOP; comparisons and selects count 1):
//   op           forward                                   backward (input gradient)
//   relu         1  max(x, 0)                              1  select
//   relu6        2  min(max(x, 0), 6)                      2  two range tests
//   leaky_relu   2  compare, mul                           2
//   elu          4  compare, exp, sub, mul                 3  compare, (y + alpha) or 1, mul
//   prelu        2  compare, mul by the learned slope      2 per input element for the input gradient, 2 for the slope's (mul, sum);
//                                                          two kernels with the input gradient (it, the slope's reduction), one without
//   sigmoid      4  neg, exp, add, div                     3  g*s*(1-s)
//   tanh         5  mul, exp, sub, add, div                3  g*(1-t^2)
//   silu         5  sigmoid + mul                          9  recompute sigmoid (4) + g*s*(1+x*(1-s)) (5)
//   mish         9  softplus (exp, add, log) + tanh (5) + mul   15  recompute (9) + derivative (6)
//   softplus     5  mul, exp, add, log, div (+ threshold test folded)   5  sigmoid(beta x) (4), mul
//   gelu (erf)   5  div, erf, add, mul, mul                11 recompute cdf (4) + pdf (4) + combine (3)
//   gelu (tanh)  9  x^3 (2), fma (2), scale, tanh, add, mul, mul    14  recompute (6) + sech^2 (2) + combine (6)
//   hardsigmoid  4  add, clamp (2), div                    3  range test (2), mul
//   hardswish    5  hardsigmoid + mul                      6  range tests (2), (2x+3)/6 (3), mul
//   exp 1 / 1 (g*y); sqrt 1 / 2 (g / (2y)); rsqrt 1 / 3 (-g y^3 / 2)
//   add, sub     1                                         pass the gradient (sub: negate, 1); a broadcast operand's gradient is reduced (1/element)
//   mul          1                                         1 per needed operand (+1 reduction when broadcast)
//   div          1                                         a: 1 (g/b, reads b); b: 3 (-g*a/b^2, reads a and b) (+1 reduction when broadcast)
//   pow          1                                         3 (g * e * x^(e-1)); a tensor exponent adds 3 (g * y * ln x)
//                                                          (+1 reduction when broadcast); reads the saved result besides
// Backward reads g and the operands the wanted gradients' formulas use, each once; one kernel.
// A number operand (`mul(x, 0.125)`) is folded into the kernel: one input tensor.
#include "engine/costs/rows.hpp"

namespace ridge::engine::costs {
namespace {

template <int Fwd, int Bwd>
void unary(const Ctx& c, OpCost& r) {
  r.forward = pass(Fwd * c.out(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(Bwd * c.in(), (c.out() + c.in()) * c.w, c.in() * c.w);   // grad_out, saved input
}

void gelu(const Ctx& c, OpCost& r) {
  if (c.a().s("approximate") == "tanh") return unary<9, 14>(c, r);
  unary<5, 11>(c, r);
}

void prelu(const Ctx& c, OpCost& r) {
  r.forward = pass(2.0 * c.out(), (c.in() + c.params) * c.w, c.out() * c.w);
  r.backward = pass(2.0 * c.in() * (1.0 + c.needf()), (c.out() + c.in() + c.params) * c.w,
                    (c.needf() * c.in() + c.params) * c.w, 1 + (c.need() ? 1 : 0));
}

// Binary arithmetic. `grad_a`, `grad_b`: FLOPs per output of each operand's gradient. `reads`: which
// operands the gradients' formulas read, per operand whose gradient is wanted (mul's a-gradient g*b
// reads b; div's b-gradient -g*a/b^2 reads a and b); each operand is read once however many need it.
struct GradReads {
  bool a_for_a, b_for_a, a_for_b, b_for_b;
};
void arithmetic(const Ctx& c, OpCost& r, double grad_a, double grad_b, GradReads reads) {
  r.forward = pass(c.out(), c.in_total() * c.w, c.out() * c.w);
  double flops = 0, read = c.out(), written = 0;
  const double per[2] = {grad_a, grad_b};
  bool read_operand[2] = {false, false};
  for (std::size_t i = 0; i < c.in_shapes.size(); ++i) {
    if (!c.need(i)) continue;
    flops += per[i] * c.out() + (c.in(i) < c.out() ? c.out() : 0.0);   // reduce over broadcast axes
    read_operand[0] |= i == 0 ? reads.a_for_a : reads.a_for_b;
    read_operand[1] |= i == 0 ? reads.b_for_a : reads.b_for_b;
    written += c.in(i);
  }
  for (std::size_t i = 0; i < c.in_shapes.size(); ++i)
    if (read_operand[i]) read += c.in(i);
  if (written == 0) return;   // no operand needs a gradient (grad.output may still be set by a caller)
  r.backward = pass(flops, read * c.w, written * c.w);
}
void add(const Ctx& c, OpCost& r) { arithmetic(c, r, 0, 0, {false, false, false, false}); }
void sub(const Ctx& c, OpCost& r) { arithmetic(c, r, 0, 1, {false, false, false, false}); }
void mul(const Ctx& c, OpCost& r) { arithmetic(c, r, 1, 1, {false, true, true, false}); }
void div(const Ctx& c, OpCost& r) { arithmetic(c, r, 1, 3, {false, true, true, true}); }
void pow(const Ctx& c, OpCost& r) {
  arithmetic(c, r, 3, 3, {false, true, true, false});
  r.backward.bytes_read += c.out() * c.w;   // the saved result or input
}

}  // namespace

std::vector<CostRow> pointwise_costs() {
  return {
      {"add", add, kSavesNothing},
      {"sub", sub, kSavesNothing},
      {"mul", mul, kSavesInputs},
      {"div", div, kSavesInputs},
      {"pow", pow, kSavesInputs},
      {"exp", unary<1, 1>, kSavesOutput},
      {"sqrt", unary<1, 2>, kSavesOutput},
      {"rsqrt", unary<1, 3>, kSavesOutput},
      {"relu", unary<1, 1>, kSavesOutput},
      {"relu6", unary<2, 2>, kSavesInput},
      {"clamp", unary<2, 2>, kSavesInput},
      {"leaky_relu", unary<2, 2>, kSavesInput},
      {"elu", unary<4, 3>, kSavesInput},
      {"prelu", prelu, kSavesInput},
      {"sigmoid", unary<4, 3>, kSavesOutput},
      {"tanh", unary<5, 3>, kSavesOutput},
      {"silu", unary<5, 9>, kSavesInput},
      {"mish", unary<9, 15>, kSavesInput},
      {"softplus", unary<5, 5>, kSavesInput},
      {"gelu", gelu, kSavesInput},
      {"hardsigmoid", unary<4, 3>, kSavesInput},
      {"hardswish", unary<5, 6>, kSavesInput},
  };
}

}  // namespace ridge::engine::costs
