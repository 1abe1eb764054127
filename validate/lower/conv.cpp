// LibTorch forms of convolution, pooling and resampling, for 1 to 3 spatial axes.
#include "validate/lower/lowering.hpp"

namespace ridge::validate::lower {
namespace {

std::int64_t spatial_rank(const Run& r) { return r.x[0].dim() - 2; }
std::vector<std::int64_t> zeros(const Run& r) { return std::vector<std::int64_t>(static_cast<std::size_t>(spatial_rank(r)), 0); }
std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

at::Tensor conv(const Run& r) {
  const ir::Attrs& a = r.a();
  return at::convolution(r.x[0], r.p[0], maybe(r.p, 1), a.ints("stride"), a.ints("pad"), a.ints("dilation"), false,
                         zeros(r), a.i("groups"));
}
std::vector<at::Tensor> conv_init(const Init& i) {
  const ir::Attrs& a = i.layer.attrs;
  const std::int64_t cin = i.in.at(0).at(0) / a.i("groups");
  std::vector<std::int64_t> shape{a.i("out"), cin};
  for (auto k : a.ints("kernel")) shape.push_back(k);
  std::vector<at::Tensor> p{weight(shape, cin * product(a.ints("kernel")), i.options)};
  if (a.b("bias")) p.push_back(at::zeros({a.i("out")}, i.options));
  return p;
}

at::Tensor conv_transpose(const Run& r) {
  const ir::Attrs& a = r.a();
  return at::convolution(r.x[0], r.p[0], maybe(r.p, 1), a.ints("stride"), a.ints("pad"), a.ints("dilation"), true,
                         a.ints("output_pad"), a.i("groups"));
}
std::vector<at::Tensor> conv_transpose_init(const Init& i) {
  const ir::Attrs& a = i.layer.attrs;
  std::vector<std::int64_t> shape{i.in.at(0).at(0), a.i("out") / a.i("groups")};
  for (auto k : a.ints("kernel")) shape.push_back(k);
  std::vector<at::Tensor> p{weight(shape, i.in.at(0).at(0) * product(a.ints("kernel")), i.options)};
  if (a.b("bias")) p.push_back(at::zeros({a.i("out")}, i.options));
  return p;
}

at::Tensor maxpool(const Run& r) {
  const ir::Attrs& a = r.a();
  switch (spatial_rank(r)) {
    case 1: return at::max_pool1d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.ints("dilation"), a.b("ceil"));
    case 2: return at::max_pool2d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.ints("dilation"), a.b("ceil"));
    default: return at::max_pool3d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.ints("dilation"), a.b("ceil"));
  }
}
at::Tensor avgpool(const Run& r) {
  const ir::Attrs& a = r.a();
  switch (spatial_rank(r)) {
    case 1: return at::avg_pool1d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.b("ceil"), a.b("count_include_pad"));
    case 2: return at::avg_pool2d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.b("ceil"), a.b("count_include_pad"));
    default: return at::avg_pool3d(r.x[0], a.ints("kernel"), a.ints("stride"), a.ints("pad"), a.b("ceil"), a.b("count_include_pad"));
  }
}
at::Tensor adaptive_avgpool(const Run& r) {
  const auto& s = r.a().ints("size");
  switch (spatial_rank(r)) {
    case 1: return at::adaptive_avg_pool1d(r.x[0], s);
    case 2: return at::adaptive_avg_pool2d(r.x[0], s);
    default: return at::adaptive_avg_pool3d(r.x[0], s);
  }
}
at::Tensor adaptive_maxpool(const Run& r) {
  const auto& s = r.a().ints("size");
  switch (spatial_rank(r)) {
    case 1: return std::get<0>(at::adaptive_max_pool1d(r.x[0], s));
    case 2: return std::get<0>(at::adaptive_max_pool2d(r.x[0], s));
    default: return std::get<0>(at::adaptive_max_pool3d(r.x[0], s));
  }
}

at::Tensor upsample(const Run& r) {
  const std::vector<std::int64_t> size(r.layer.output.begin() + 1, r.layer.output.end());
  const std::string& mode = r.a().s("mode");
  const bool corners = r.a().b("align_corners");
  if (mode == "linear") return at::upsample_linear1d(r.x[0], size, corners);
  if (mode == "bilinear") return at::upsample_bilinear2d(r.x[0], size, corners);
  if (mode == "bicubic") return at::upsample_bicubic2d(r.x[0], size, corners);
  if (mode == "trilinear") return at::upsample_trilinear3d(r.x[0], size, corners);
  switch (spatial_rank(r)) {
    case 1: return at::upsample_nearest1d(r.x[0], size);
    case 2: return at::upsample_nearest2d(r.x[0], size);
    default: return at::upsample_nearest3d(r.x[0], size);
  }
}

at::Tensor pixel_shuffle(const Run& r) { return at::pixel_shuffle(r.x[0], r.a().i("factor")); }

}  // namespace

std::vector<Row> conv_rows() {
  return {{"conv", conv, conv_init},
          {"conv_transpose", conv_transpose, conv_transpose_init},
          {"maxpool", maxpool},
          {"avgpool", avgpool},
          {"adaptive_avgpool", adaptive_avgpool},
          {"adaptive_maxpool", adaptive_maxpool},
          {"upsample", upsample},
          {"pixel_shuffle", pixel_shuffle}};
}

}  // namespace ridge::validate::lower
