// LibTorch forms of normalisation.
#include "validate/lower/lowering.hpp"

namespace ridge::validate::lower {
namespace {

at::Tensor batchnorm(const Run& r) {
  // The running statistics are buffers: in training they are updated in place, as torch does; the
  // copies here are shallow, so the update lands in the program's buffers.
  at::Tensor mean = r.buffers[0];
  at::Tensor var = r.buffers[1];
  return at::batch_norm(r.x[0], r.p[0], r.p[1], mean, var, r.training, 0.1, r.a().r("eps"), /*cudnn_enabled=*/true);
}
std::vector<at::Tensor> batchnorm_init(const Init& i) {
  const std::int64_t c = i.in.at(0).at(0);
  i.buffers = {at::zeros({c}, i.options), at::ones({c}, i.options)};
  return {at::ones({c}, i.options), at::zeros({c}, i.options)};
}

std::vector<std::int64_t> normalized_shape(const ir::Layer& l, const ir::Shape& in) {
  return {in.end() - l.attrs.i("dims"), in.end()};
}
std::vector<std::int64_t> normalized_shape(const Run& r) {
  const auto s = r.x[0].sizes().vec();
  return {s.end() - r.a().i("dims"), s.end()};
}

at::Tensor layernorm(const Run& r) {
  return at::layer_norm(r.x[0], normalized_shape(r), maybe(r.p, 0), maybe(r.p, 1), r.a().r("eps"));
}
std::vector<at::Tensor> layernorm_init(const Init& i) {
  if (!i.layer.attrs.b("affine")) return {};
  const auto shape = normalized_shape(i.layer, i.in.at(0));
  std::vector<at::Tensor> p{at::ones(shape, i.options)};
  if (i.layer.attrs.b("bias")) p.push_back(at::zeros(shape, i.options));
  return p;
}

// LibTorch 1.13 has no rms_norm: x * rsqrt(mean(x^2) + eps) * weight, as Llama's RMSNorm module.
at::Tensor rmsnorm(const Run& r) {
  std::vector<std::int64_t> axes;
  for (std::int64_t d = r.x[0].dim() - r.a().i("dims"); d < r.x[0].dim(); ++d) axes.push_back(d);
  at::Tensor y = r.x[0] * at::rsqrt(r.x[0].pow(2).mean(axes, true) + r.a().r("eps"));
  return r.p.empty() ? y : y * r.p[0];
}
std::vector<at::Tensor> rmsnorm_init(const Init& i) {
  if (!i.layer.attrs.b("affine")) return {};
  return {at::ones(normalized_shape(i.layer, i.in.at(0)), i.options)};
}

at::Tensor groupnorm(const Run& r) {
  return at::group_norm(r.x[0], r.a().i("groups"), maybe(r.p, 0), maybe(r.p, 1), r.a().r("eps"));
}
at::Tensor instancenorm(const Run& r) {
  return at::instance_norm(r.x[0], maybe(r.p, 0), maybe(r.p, 1), {}, {}, true, 0.1, r.a().r("eps"), true);
}
std::vector<at::Tensor> affine_init(const Init& i) {
  if (!i.layer.attrs.b("affine")) return {};
  const std::int64_t c = i.in.at(0).at(0);
  return {at::ones({c}, i.options), at::zeros({c}, i.options)};
}

}  // namespace

std::vector<Row> norm_rows() {
  return {{"batchnorm", batchnorm, batchnorm_init},
          {"layernorm", layernorm, layernorm_init},
          {"rmsnorm", rmsnorm, rmsnorm_init},
          {"groupnorm", groupnorm, affine_init},
          {"instancenorm", instancenorm, affine_init}};
}

}  // namespace ridge::validate::lower
