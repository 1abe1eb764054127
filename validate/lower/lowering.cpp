#include "validate/lower/lowering.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ridge::validate::lower {

std::int64_t dim(std::int64_t axis) { return axis < 0 ? axis : axis + 1; }

std::vector<std::int64_t> dims(const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> d;
  for (auto a : axes) d.push_back(dim(a));
  return d;
}

// Fan-in scaled normal initialisation keeps activations O(1) through deep stacks: values that blow up
// to inf/NaN or decay into denormals change CPU timings.
at::Tensor weight(std::vector<std::int64_t> shape, std::int64_t fan_in, const at::TensorOptions& o) {
  return at::randn(shape, o).mul_(1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fan_in, 1))));
}

namespace {
// Per-sample broadcasting aligns shapes on the right, but a batched tensor of lower per-sample rank
// would align its batch dimension with a per-sample one; insert the missing unit dimensions after
// the batch so torch broadcasts what the IR broadcasts.
at::Tensor lift_rank(const at::Tensor& t, std::int64_t rank) {
  if (t.dim() >= rank) return t;
  std::vector<std::int64_t> shape{t.size(0)};
  for (std::int64_t i = t.dim(); i < rank; ++i) shape.push_back(1);
  for (std::int64_t i = 1; i < t.dim(); ++i) shape.push_back(t.size(i));
  return t.view(shape);
}
}  // namespace

std::pair<at::Tensor, at::Tensor> aligned(const at::Tensor& a, const at::Tensor& b) {
  const std::int64_t rank = std::max(a.dim(), b.dim());
  return {lift_rank(a, rank), lift_rank(b, rank)};
}

c10::optional<at::Tensor> maybe(const std::vector<at::Tensor>& p, std::size_t i) {
  return i < p.size() ? c10::optional<at::Tensor>(p[i]) : c10::nullopt;
}

namespace {
at::Tensor input(const Run& r) { return r.x.at(0); }

const std::vector<const Row*>& table() {
  static const std::vector<Row> rows = [] {
    std::vector<Row> all{{"input", input}};
    for (auto family : {tensor_rows, pointwise_rows, conv_rows, norm_rows, dense_rows})
      for (const Row& r : family()) all.push_back(r);
    return all;
  }();
  static const std::vector<const Row*> by_op = [] {
    std::vector<const Row*> t(ir::all_ops().size(), nullptr);
    for (const Row& r : rows) {
      const ir::Op op = r.op == "input" ? ir::kInputOp : ir::op(r.op);
      t[op.id] = &r;
    }
    return t;
  }();
  return by_op;
}
}  // namespace

const Row* find(ir::Op op) { return op.id < table().size() ? table()[op.id] : nullptr; }

}  // namespace ridge::validate::lower
