#include "lang/ir/ops/rules.hpp"

#include <algorithm>

namespace ridge::ir::rules {

void fail(const std::string& message) { throw ShapeError(message); }
std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  if (a < 0 || b < 0) fail(std::string(what) + " is negative");
  if (a != 0 && b > kMaxElementsPerSample / a)
    fail(std::string(what) + " is absurdly large (limit " + str(kMaxElementsPerSample) + ")");
  return a * b;
}

void require_rank(const Shape& s, std::size_t rank, std::string_view op) {
  if (s.size() != rank)
    fail(std::string(op) + " expects a " + str(static_cast<std::int64_t>(rank)) + "-d input per sample, got " +
         to_string(s));
}

void require_rank_between(const Shape& s, std::size_t lo, std::size_t hi, std::string_view op) {
  if (s.size() < lo || s.size() > hi)
    fail(std::string(op) + " expects a " + str(static_cast<std::int64_t>(lo)) + "-d to " +
         str(static_cast<std::int64_t>(hi)) + "-d input per sample, got " + to_string(s));
}

std::int64_t window_output(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                           std::int64_t dilation, bool ceil_mode, std::string_view axis) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad < 0)
    fail("kernel, stride and dilation must be at least 1 and padding at least 0");
  // Every factor is below 2^31 (kMaxDimension) only if checked: a dilation of 2^32 times a kernel of
  // 2^32 wraps a 64-bit span.
  if (kernel > kMaxDimension || dilation > kMaxDimension || stride > kMaxDimension || pad > kMaxDimension)
    fail("kernel, stride, padding and dilation must be at most " + str(kMaxDimension));
  const std::int64_t span = dilation * (kernel - 1) + 1;
  const std::int64_t room = in + 2 * pad - span;
  if (room < 0)
    fail("the window (" + str(span) + ") is larger than the padded input " + std::string(axis) + " (" +
         str(in + 2 * pad) + ")");
  std::int64_t out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
  // A ceil-mode window must start inside the input or its left padding (PyTorch's rule).
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Shape windowed(const Shape& in, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
               const std::vector<std::int64_t>& pad, const std::vector<std::int64_t>& dilation, bool ceil_mode) {
  static constexpr std::string_view kAxes[3][3] = {{"length"}, {"height", "width"}, {"depth", "height", "width"}};
  Shape out{in.at(0)};
  const std::size_t rank = in.size() - 1;
  for (std::size_t i = 1; i < in.size(); ++i)
    out.push_back(window_output(in[i], kernel.at(i - 1), stride.at(i - 1), pad.at(i - 1), dilation.at(i - 1),
                                ceil_mode, rank >= 1 && rank <= 3 ? kAxes[rank - 1][i - 1] : "axis"));
  return out;
}

Shape broadcast(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    out[i] = std::max(da, db);
  }
  return out;
}

std::int64_t checked_axis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) fail("axis " + str(axis) + " is out of range for a " + str(r) + "-d input");
  return axis < 0 ? axis + r : axis;
}

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t n = 1;
  for (auto d : v) n = checked_mul(n, d, "the size");
  return n;
}

Shape same_shape(const Attrs&, const std::vector<Shape>& in) { return in.at(0); }

Shape broadcast_all(const Attrs&, const std::vector<Shape>& in) {
  Shape out = in.at(0);
  for (std::size_t i = 1; i < in.size(); ++i) out = broadcast(out, in[i]);
  return out;
}

}  // namespace ridge::ir::rules
