// Convolution, pooling and resampling over channels-first inputs [C, *spatial] with 1 to 3 spatial
// axes (torch's Conv1d/2d/3d and friends, picked by the input's rank).
#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rows.hpp"

#include <algorithm>

namespace ridge::ir::families {
namespace {

using namespace rows;

void spatial_input(const Shape& s, std::string_view op) { require_rank_between(s, 2, 4, op); }

void check_groups(std::int64_t in, std::int64_t out, std::int64_t groups) {
  if (groups < 1) fail("groups must be at least 1");
  if (out < 1) fail("a convolution needs at least one output channel");
  if (in % groups != 0) fail("input channels (" + str(in) + ") are not divisible by groups (" + str(groups) + ")");
  if (out % groups != 0) fail("output channels (" + str(out) + ") are not divisible by groups (" + str(groups) + ")");
}

Shape conv(const Attrs& a, const In& in) {
  spatial_input(in[0], "conv");
  check_groups(in[0][0], a.i("out"), a.i("groups"));
  Shape out = windowed(in[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.ints("dilation"), false);
  out[0] = a.i("out");
  return out;
}

std::int64_t conv_weights(const Attrs& a, const In& in) {
  const std::int64_t per_out = checked_mul(in[0].at(0) / a.i("groups"), product(a.ints("kernel")), "the kernel");
  return checked_mul(a.i("out"), per_out, "the weight count") + (a.b("bias") ? a.i("out") : 0);
}

Shape conv_transpose(const Attrs& a, const In& in) {
  spatial_input(in[0], "conv_transpose");
  check_groups(in[0][0], a.i("out"), a.i("groups"));
  Shape out{a.i("out")};
  for (std::size_t i = 1; i < in[0].size(); ++i) {
    const std::int64_t k = a.ints("kernel")[i - 1], s = a.ints("stride")[i - 1], p = a.ints("pad")[i - 1];
    const std::int64_t d = a.ints("dilation")[i - 1], op = a.ints("output_pad")[i - 1];
    if (k < 1 || s < 1 || d < 1 || p < 0 || op < 0) fail("kernel, stride and dilation must be at least 1 and padding at least 0");
    if (k > kMaxDimension || s > kMaxDimension || d > kMaxDimension || p > kMaxDimension) fail("conv_transpose's window is absurdly large");
    if (op >= s && op >= d) fail("output_pad must be smaller than stride or dilation (torch's rule)");
    // torch: (in - 1) * stride - 2 * pad + dilation * (kernel - 1) + output_pad + 1
    const std::int64_t size = checked_mul(in[0][i] - 1, s, "conv_transpose's output") - 2 * p + d * (k - 1) + op + 1;
    if (size < 1) fail("conv_transpose's output along axis " + str(static_cast<std::int64_t>(i)) + " is empty");
    out.push_back(size);
  }
  return out;
}

std::int64_t conv_transpose_weights(const Attrs& a, const In& in) {
  // torch stores [C_in, out / groups, *kernel].
  const std::int64_t per_in = checked_mul(a.i("out") / a.i("groups"), product(a.ints("kernel")), "the kernel");
  return checked_mul(in[0].at(0), per_in, "the weight count") + (a.b("bias") ? a.i("out") : 0);
}

Shape pool(const Attrs& a, const In& in, bool max) {
  spatial_input(in[0], max ? "maxpool" : "avgpool");
  const auto& k = a.ints("kernel");
  const auto& p = a.ints("pad");
  for (std::size_t i = 0; i < k.size(); ++i)
    if (2 * p[i] > k[i]) fail("pooling padding must be at most half the kernel size");
  const std::vector<std::int64_t> ones(k.size(), 1);
  return windowed(in[0], k, a.ints("stride"), p, max ? a.ints("dilation") : ones, a.b("ceil"));
}
Shape maxpool(const Attrs& a, const In& in) { return pool(a, in, true); }
Shape avgpool(const Attrs& a, const In& in) { return pool(a, in, false); }

Shape adaptive(const Attrs& a, const In& in) {
  spatial_input(in[0], "adaptive pooling");
  Shape out{in[0][0]};
  for (auto s : a.ints("size")) {
    if (s < 1) fail("adaptive pooling output size must be positive");
    out.push_back(s);
  }
  return out;
}

Shape upsample(const Attrs& a, const In& in) {
  spatial_input(in[0], "upsample");
  const auto& size = a.ints("size");
  const auto& scale = a.ints("scale");
  const std::string& mode = a.s("mode");
  const std::size_t rank = in[0].size() - 1;
  if ((mode == "linear" && rank != 1) || (mode == "bilinear" && rank != 2) || (mode == "bicubic" && rank != 2) ||
      (mode == "trilinear" && rank != 3))
    fail("upsample mode \"" + mode + "\" does not fit an input with " + str(static_cast<std::int64_t>(rank)) + " spatial axes");
  // F.interpolate's rules: a size or a scale, not both; align_corners only where it interpolates.
  const auto given = [](const std::vector<std::int64_t>& v) { return std::any_of(v.begin(), v.end(), [](auto x) { return x != 0; }); };
  if (given(size) && given(scale)) fail("upsample takes a size or a scale, not both");
  if (a.b("align_corners") && mode == "nearest")
    fail("align_corners is for the interpolating modes (linear, bilinear, bicubic, trilinear), not \"nearest\"");
  Shape out{in[0][0]};
  for (std::size_t i = 0; i < rank; ++i) {
    if (size[i] > 0) {
      out.push_back(size[i]);
    } else {
      if (scale[i] < 1) fail("upsample needs a positive integer scale or a size");
      out.push_back(checked_mul(in[0][i + 1], scale[i], "upsample's output"));
    }
  }
  return out;
}

Shape pixel_shuffle(const Attrs& a, const In& in) {
  require_rank(in[0], 3, "pixel_shuffle");
  const std::int64_t r = a.i("factor");
  if (r < 1 || r > 65536 || in[0][0] % (r * r) != 0)
    fail("channels (" + str(in[0][0]) + ") are not divisible by factor^2 (" + str(r) + "^2)");
  return {in[0][0] / (r * r), checked_mul(in[0][1], r, "pixel_shuffle's output"), checked_mul(in[0][2], r, "pixel_shuffle's output")};
}

}  // namespace

std::vector<OpSpec> conv_ops() {
  using C = OpClass;
  const ParamSpec x = tensor("x");
  return {
      {"conv",
       {x, {"out", K::Int}, {"kernel", K::Spatial}, {"stride", K::Spatial, I(1)}, {"pad", K::Spatial, I(0)},
        {"dilation", K::Spatial, I(1)}, {"groups", K::Int, I(1)}, {"bias", K::Bool, B(true)}},
       C::MatMul, conv, conv_weights, false, "1-, 2- or 3-d convolution, by the input's rank"},
      {"conv_transpose",
       {x, {"out", K::Int}, {"kernel", K::Spatial}, {"stride", K::Spatial, I(1)}, {"pad", K::Spatial, I(0)},
        {"output_pad", K::Spatial, I(0)}, {"groups", K::Int, I(1)}, {"bias", K::Bool, B(true)}, {"dilation", K::Spatial, I(1)}},
       C::MatMul, conv_transpose, conv_transpose_weights, false, "transposed convolution (ConvTranspose1d/2d/3d)"},
      {"maxpool",
       {x, {"kernel", K::Spatial}, {"stride", K::Spatial, std::nullopt, "kernel"}, {"pad", K::Spatial, I(0)},
        {"dilation", K::Spatial, I(1)}, {"ceil", K::Bool, B(false)}},
       C::Pooling, maxpool, nullptr, false, "max over windows"},
      {"avgpool",
       {x, {"kernel", K::Spatial}, {"stride", K::Spatial, std::nullopt, "kernel"}, {"pad", K::Spatial, I(0)},
        {"ceil", K::Bool, B(false)}, {"count_include_pad", K::Bool, B(true)}},
       C::Pooling, avgpool, nullptr, false, "mean over windows"},
      {"adaptive_avgpool", {x, {"size", K::Spatial}}, C::Pooling, adaptive, nullptr, false, "mean over torch's adaptive windows"},
      {"adaptive_maxpool", {x, {"size", K::Spatial}}, C::Pooling, adaptive, nullptr, false, "max over torch's adaptive windows"},
      {"upsample",
       {x, {"scale", K::Spatial, I(0)}, {"size", K::Spatial, I(0)},
        {"mode", K::Word, W("nearest"), {}, {"nearest", "linear", "bilinear", "bicubic", "trilinear"}},
        {"align_corners", K::Bool, B(false)}},
       C::DataMovement, upsample, nullptr, false, "resize by an integer scale or to a size (F.interpolate)"},
      {"pixel_shuffle", {x, {"factor", K::Int}}, C::DataMovement, pixel_shuffle, nullptr, false,
       "[C r^2, H, W] -> [C, H r, W r]"},
  };
}

}  // namespace ridge::ir::families
