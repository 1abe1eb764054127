// Normalisation: batch, layer, RMS, group and instance norm.
#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rows.hpp"

namespace ridge::ir::families {
namespace {

using namespace rows;

Shape channels_first(const Attrs&, const In& in) {
  if (in[0].empty()) fail("normalisation needs a channel dimension");
  return in[0];
}

// layernorm/rmsnorm normalise the last `dims` axes (torch's normalized_shape = those axes).
std::int64_t normalized_size(const Attrs& a, const Shape& s) {
  const std::int64_t dims = a.i("dims");
  if (dims < 1 || dims > static_cast<std::int64_t>(s.size()))
    fail("'dims' (" + str(dims) + ") must name 1 to " + str(static_cast<std::int64_t>(s.size())) + " trailing axes of " + to_string(s));
  std::int64_t n = 1;
  for (std::size_t i = s.size() - static_cast<std::size_t>(dims); i < s.size(); ++i) n *= s[i];
  return n;
}

Shape trailing(const Attrs& a, const In& in) {
  normalized_size(a, in[0]);
  return in[0];
}

Shape grouped(const Attrs& a, const In& in) {
  if (in[0].empty()) fail("groupnorm needs a channel dimension");
  const std::int64_t g = a.i("groups");
  if (g < 1 || in[0][0] % g != 0) fail("channels (" + str(in[0][0]) + ") are not divisible by groups (" + str(g) + ")");
  return in[0];
}

std::int64_t per_channel_pair(const Attrs&, const In& in) { return 2 * in[0].at(0); }
std::int64_t affine_pair(const Attrs& a, const In& in) { return a.b("affine") ? 2 * in[0].at(0) : 0; }
std::int64_t layernorm_weights(const Attrs& a, const In& in) {
  if (!a.b("affine")) return 0;
  return (a.b("bias") ? 2 : 1) * normalized_size(a, in[0]);
}
std::int64_t rmsnorm_weights(const Attrs& a, const In& in) { return a.b("affine") ? normalized_size(a, in[0]) : 0; }

}  // namespace

std::vector<OpSpec> norm_ops() {
  using C = OpClass;
  return {
      {"batchnorm", {tensor("x"), {"eps", K::Real, R(1e-5)}}, C::Normalization, channels_first, per_channel_pair, false,
       "batch norm over channel axis 0 (affine; running statistics are buffers)"},
      {"layernorm", {tensor("x"), {"dims", K::Int, I(1)}, {"eps", K::Real, R(1e-5)}, {"affine", K::Bool, B(true)}, {"bias", K::Bool, B(true)}},
       C::Normalization, trailing, layernorm_weights, false, "layer norm over the last `dims` axes (torch's normalized_shape)"},
      {"rmsnorm", {tensor("x"), {"dims", K::Int, I(1)}, {"eps", K::Real, R(1e-6)}, {"affine", K::Bool, B(true)}},
       C::Normalization, trailing, rmsnorm_weights, false, "RMS norm over the last `dims` axes (Llama's; weight only)"},
      {"groupnorm", {tensor("x"), {"groups", K::Int}, {"eps", K::Real, R(1e-5)}, {"affine", K::Bool, B(true)}},
       C::Normalization, grouped, affine_pair, false, "group norm over channel groups"},
      {"instancenorm", {tensor("x"), {"eps", K::Real, R(1e-5)}, {"affine", K::Bool, B(false)}},
       C::Normalization, channels_first, affine_pair, false, "instance norm (per channel, per sample; torch's default: no affine)"},
  };
}

}  // namespace ridge::ir::families
