// LibTorch forms of arithmetic, math functions and activations.
#include "validate/lower/lowering.hpp"

namespace ridge::validate::lower {
namespace {

// b: the second tensor, or the number the layer holds.
template <at::Tensor (*Tensor)(const at::Tensor&, const at::Tensor&), at::Tensor (*Scalar)(const at::Tensor&, const at::Scalar&)>
at::Tensor binary(const Run& r, std::string_view scalar_name) {
  if (r.x.size() == 1) return Scalar(r.x[0], r.a().r(scalar_name));
  auto [u, v] = aligned(r.x[0], r.x[1]);
  return Tensor(u, v);
}
at::Tensor t_add(const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }
at::Tensor s_add(const at::Tensor& a, const at::Scalar& b) { return at::add(a, b); }
at::Tensor t_sub(const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); }
at::Tensor s_sub(const at::Tensor& a, const at::Scalar& b) { return at::sub(a, b); }
at::Tensor t_mul(const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); }
at::Tensor s_mul(const at::Tensor& a, const at::Scalar& b) { return at::mul(a, b); }
at::Tensor t_div(const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); }
at::Tensor s_div(const at::Tensor& a, const at::Scalar& b) { return at::div(a, b); }
at::Tensor t_pow(const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); }
at::Tensor s_pow(const at::Tensor& a, const at::Scalar& b) { return at::pow(a, b); }

at::Tensor add(const Run& r) { return binary<t_add, s_add>(r, "b"); }
at::Tensor sub(const Run& r) { return binary<t_sub, s_sub>(r, "b"); }
at::Tensor mul(const Run& r) { return binary<t_mul, s_mul>(r, "b"); }
at::Tensor div(const Run& r) { return binary<t_div, s_div>(r, "b"); }
at::Tensor pow(const Run& r) { return binary<t_pow, s_pow>(r, "exponent"); }

at::Tensor exp(const Run& r) { return at::exp(r.x[0]); }
at::Tensor sqrt(const Run& r) { return at::sqrt(r.x[0]); }
at::Tensor rsqrt(const Run& r) { return at::rsqrt(r.x[0]); }
at::Tensor relu(const Run& r) { return at::relu(r.x[0]); }
at::Tensor relu6(const Run& r) { return at::hardtanh(r.x[0], 0.0, 6.0); }
at::Tensor clamp(const Run& r) { return at::clamp(r.x[0], r.a().r("min"), r.a().r("max")); }
at::Tensor leaky_relu(const Run& r) { return at::leaky_relu(r.x[0], r.a().r("negative_slope")); }
at::Tensor elu(const Run& r) { return at::elu(r.x[0], r.a().r("alpha")); }
at::Tensor prelu(const Run& r) { return at::prelu(r.x[0], r.p[0]); }
std::vector<at::Tensor> prelu_init(const Init& i) { return {at::full({i.layer.attrs.i("num")}, 0.25, i.options)}; }
at::Tensor sigmoid(const Run& r) { return at::sigmoid(r.x[0]); }
at::Tensor tanh(const Run& r) { return at::tanh(r.x[0]); }
at::Tensor silu(const Run& r) { return at::silu(r.x[0]); }
at::Tensor mish(const Run& r) { return at::mish(r.x[0]); }
at::Tensor softplus(const Run& r) { return at::softplus(r.x[0], r.a().r("beta"), r.a().r("threshold")); }
at::Tensor gelu(const Run& r) { return at::gelu(r.x[0], r.a().s("approximate")); }
at::Tensor hardsigmoid(const Run& r) { return at::hardsigmoid(r.x[0]); }
at::Tensor hardswish(const Run& r) { return at::hardswish(r.x[0]); }

}  // namespace

std::vector<Row> pointwise_rows() {
  return {{"add", add},         {"sub", sub},         {"mul", mul},
          {"div", div},         {"pow", pow},         {"exp", exp},
          {"sqrt", sqrt},       {"rsqrt", rsqrt},     {"relu", relu},
          {"relu6", relu6},     {"leaky_relu", leaky_relu}, {"clamp", clamp},
          {"elu", elu},         {"prelu", prelu, prelu_init},
          {"sigmoid", sigmoid}, {"tanh", tanh},       {"silu", silu},
          {"mish", mish},       {"softplus", softplus},
          {"gelu", gelu},       {"hardsigmoid", hardsigmoid},
          {"hardswish", hardswish}};
}

}  // namespace ridge::validate::lower
