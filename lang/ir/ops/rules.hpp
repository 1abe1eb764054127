// Helpers the op families' shape and parameter rules share. Internal to lang/ir.
#pragma once

#include "lang/ir/ops.hpp"

#include <string>
#include <string_view>

namespace ridge::ir::rules {

[[noreturn]] void fail(const std::string& message);
std::string str(std::int64_t v);

// a * b, refused (ShapeError) past kMaxElementsPerSample: sizes from the user can be anything.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what);

void require_rank(const Shape& s, std::size_t rank, std::string_view op);
void require_rank_between(const Shape& s, std::size_t lo, std::size_t hi, std::string_view op);

// PyTorch's output-size rule for convolution and pooling along one axis.
std::int64_t window_output(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                           std::int64_t dilation, bool ceil_mode, std::string_view axis);
// The spatial axes of a channels-first input [C, *spatial] through a window op.
Shape windowed(const Shape& in, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
               const std::vector<std::int64_t>& pad, const std::vector<std::int64_t>& dilation, bool ceil_mode);

Shape broadcast(const Shape& a, const Shape& b);
std::int64_t checked_axis(std::int64_t axis, std::size_t rank);
std::int64_t product(const std::vector<std::int64_t>& v);

// Rules every family uses.
Shape same_shape(const Attrs&, const std::vector<Shape>& in);
Shape broadcast_all(const Attrs&, const std::vector<Shape>& in);

}  // namespace ridge::ir::rules
