// Arithmetic, math functions and activations: one output element per (broadcast) input element.
#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rows.hpp"

#include <limits>

namespace ridge::ir::families {
namespace {

using namespace rows;

// `add(a, b)`: b a tensor (broadcast) or a number.
std::vector<ParamSpec> binary() { return {tensor("a"), {"b", K::TensorOrNumber}}; }

// The slope count is checked with the shape, so a mismatch is a diagnostic at the call, not a failure
// later when the parameters are counted.
Shape prelu(const Attrs& a, const In& in) {
  const std::int64_t n = a.i("num");
  if (n != 1 && n != in[0][0])
    fail("prelu's num (" + str(n) + ") must be 1 or the channel count (" + str(in[0][0]) + ")");
  return in[0];
}

std::int64_t prelu_weights(const Attrs& a, const In& in) {
  const std::int64_t n = a.i("num");
  if (n != 1 && n != in[0][0])
    fail("prelu's num (" + str(n) + ") must be 1 or the channel count (" + str(in[0][0]) + ")");
  return n;
}

OpSpec unary(std::string_view name, std::string_view doc, std::vector<ParamSpec> extra = {}) {
  std::vector<ParamSpec> params{tensor("x")};
  params.insert(params.end(), extra.begin(), extra.end());
  return {name, std::move(params), OpClass::Elementwise, same_shape, nullptr, false, doc};
}

}  // namespace

std::vector<OpSpec> pointwise_ops() {
  using C = OpClass;
  return {
      {"add", binary(), C::Elementwise, broadcast_all, nullptr, false, "a + b, broadcasting; b may be a number"},
      {"sub", binary(), C::Elementwise, broadcast_all, nullptr, false, "a - b"},
      {"mul", binary(), C::Elementwise, broadcast_all, nullptr, false, "a * b (squeeze-excite scales [C,H,W] by [C,1,1])"},
      {"div", binary(), C::Elementwise, broadcast_all, nullptr, false, "a / b"},
      {"pow", {tensor("a"), {"exponent", K::TensorOrNumber}}, C::Elementwise, broadcast_all, nullptr, false, "a ** exponent"},
      unary("exp", "e ** x"),
      unary("sqrt", "square root"),
      unary("rsqrt", "1 / sqrt(x)"),
      unary("relu", "max(x, 0)"),
      unary("relu6", "min(max(x, 0), 6)"),
      unary("clamp", "min(max(x, min), max) (torch.clamp); a bound not given is float's largest magnitude",
            {{"min", K::Real, R(-std::numeric_limits<float>::max())}, {"max", K::Real, R(std::numeric_limits<float>::max())}}),
      unary("leaky_relu", "x if x > 0 else negative_slope * x", {{"negative_slope", K::Real, R(0.01)}}),
      unary("elu", "x if x > 0 else alpha * (exp(x) - 1)", {{"alpha", K::Real, R(1.0)}}),
      {"prelu", {tensor("x"), {"num", K::Int, I(1)}}, C::Elementwise, prelu, prelu_weights, false,
       "leaky ReLU with a learned slope (1, or one per channel)"},
      unary("sigmoid", "1 / (1 + exp(-x))"),
      unary("tanh", "hyperbolic tangent"),
      unary("silu", "x * sigmoid(x) (swish)"),
      unary("mish", "x * tanh(softplus(x))"),
      unary("softplus", "log(1 + exp(beta x)) / beta, linear past threshold",
            {{"beta", K::Real, R(1.0)}, {"threshold", K::Real, R(20.0)}}),
      unary("gelu", "x * Phi(x); approximate: \"tanh\" for the tanh form (GPT-2's)",
            {{"approximate", K::Word, W("none"), {}, {"none", "tanh"}}}),
      unary("hardsigmoid", "relu6(x + 3) / 6"),
      unary("hardswish", "x * relu6(x + 3) / 6"),
  };
}

}  // namespace ridge::ir::families
