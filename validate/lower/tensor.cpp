// LibTorch forms of views, copies, reductions and softmax.
#include "validate/lower/lowering.hpp"

namespace ridge::validate::lower {
namespace {

at::Tensor flatten(const Run& r) { return at::flatten(r.x[0], dim(r.a().i("axis")), dim(r.a().i("end"))); }
at::Tensor reshape(const Run& r) {
  std::vector<std::int64_t> shape{r.x[0].size(0)};
  const auto& s = r.a().ints("shape");
  shape.insert(shape.end(), s.begin(), s.end());
  return r.x[0].reshape(shape);
}
at::Tensor transpose(const Run& r) { return r.x[0].transpose(dim(r.a().i("a")), dim(r.a().i("b"))); }
at::Tensor permute(const Run& r) {
  std::vector<std::int64_t> order{0};
  for (auto d : r.a().ints("dims")) order.push_back(dim(d < 0 ? d + static_cast<std::int64_t>(r.a().ints("dims").size()) : d));
  return r.x[0].permute(order);
}
at::Tensor expand(const Run& r) {
  std::vector<std::int64_t> shape{r.x[0].size(0)};
  const auto& s = r.a().ints("shape");
  shape.insert(shape.end(), s.begin(), s.end());
  return r.x[0].expand(shape);
}
at::Tensor concat(const Run& r) { return at::cat(r.x, dim(r.a().i("axis"))); }
at::Tensor slice(const Run& r) { return r.x[0].narrow(dim(r.a().i("axis")), r.a().i("start"), r.a().i("size")); }
at::Tensor gather(const Run& r) {
  // A fixed index, as Swin's relative-position index: wrap around the axis.
  const std::int64_t d = dim(r.a().i("axis"));
  const auto index = at::arange(r.a().i("count"), at::TensorOptions().dtype(at::kLong).device(r.x[0].device()))
                         .remainder(r.x[0].size(d));
  return at::index_select(r.x[0], d, index);
}
at::Tensor channel_shuffle(const Run& r) {
  // torchvision's channel_shuffle: view as [N, g, C/g, ...], swap the two, flatten back.
  const auto sizes = r.x[0].sizes().vec();
  const std::int64_t g = r.a().i("groups");
  std::vector<std::int64_t> grouped{sizes[0], g, sizes[1] / g};
  grouped.insert(grouped.end(), sizes.begin() + 2, sizes.end());
  return r.x[0].reshape(grouped).transpose(1, 2).contiguous().reshape(sizes);
}
at::Tensor pad(const Run& r) {
  const std::string& mode = r.a().s("mode");
  return at::pad(r.x[0], r.a().ints("pad"), mode, mode == "constant" ? c10::optional<double>(r.a().r("value")) : c10::nullopt);
}
at::Tensor roll(const Run& r) { return at::roll(r.x[0], r.a().ints("shifts"), dims(r.a().ints("axes"))); }

std::vector<std::int64_t> reduce_dims(const Run& r) {
  const auto& axes = r.a().ints("axes");
  if (!axes.empty()) return dims(axes);
  std::vector<std::int64_t> all;
  for (std::int64_t d = 1; d < r.x[0].dim(); ++d) all.push_back(d);
  return all;
}
// The IR keeps a per-sample scalar as [1]; torch would drop to [N].
at::Tensor keep_rank(at::Tensor t) { return t.dim() == 1 ? t.unsqueeze(1) : t; }
at::Tensor mean(const Run& r) { return keep_rank(at::mean(r.x[0], reduce_dims(r), r.a().b("keepdim"))); }
at::Tensor sum(const Run& r) { return keep_rank(at::sum(r.x[0], reduce_dims(r), r.a().b("keepdim"))); }
at::Tensor amax(const Run& r) { return keep_rank(at::amax(r.x[0], reduce_dims(r), r.a().b("keepdim"))); }
at::Tensor norm(const Run& r) { return keep_rank(at::linalg_vector_norm(r.x[0], 2.0, reduce_dims(r), r.a().b("keepdim"))); }
at::Tensor softmax(const Run& r) { return at::softmax(r.x[0], dim(r.a().i("axis"))); }
at::Tensor log_softmax(const Run& r) { return at::log_softmax(r.x[0], dim(r.a().i("axis"))); }
at::Tensor dropout(const Run& r) { return at::dropout(r.x[0], r.a().r("p"), r.training); }

}  // namespace

std::vector<Row> tensor_rows() {
  return {{"flatten", flatten}, {"reshape", reshape}, {"transpose", transpose}, {"permute", permute},
          {"expand", expand},   {"concat", concat},   {"slice", slice},         {"gather", gather},
          {"channel_shuffle", channel_shuffle},       {"pad", pad},             {"roll", roll},
          {"mean", mean},       {"sum", sum},         {"amax", amax}, {"norm", norm},           {"softmax", softmax},
          {"log_softmax", log_softmax},               {"dropout", dropout}};
}

}  // namespace ridge::validate::lower
