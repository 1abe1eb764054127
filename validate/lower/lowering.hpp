// The LibTorch form of each op: how its parameters are made and how it runs. One file per op family
// (the same families as lang/ir/ops/ and engine/costs/), each row keyed by the op's name; the
// program (torch_program.cpp) looks rows up by op. Internal to validate.
#pragma once

#include "lang/ir/ops.hpp"

#include <ATen/ATen.h>

#include <string_view>
#include <vector>

namespace ridge::validate::lower {

// Making a layer's parameters (weight first, then bias, as torch orders them) and buffers.
struct Init {
  const ir::Layer& layer;
  const std::vector<ir::Shape>& in;        // per-sample input shapes
  const at::TensorOptions& options;
  std::vector<at::Tensor>& buffers;        // e.g. batch norm's running mean and variance
};

// Running it: inputs carry the batch as dimension 0, so per-sample axis a is tensor dimension a + 1.
struct Run {
  const ir::Layer& layer;
  const std::vector<at::Tensor>& x;
  const std::vector<at::Tensor>& p;
  const std::vector<at::Tensor>& buffers;
  bool training;
  std::int64_t batch;                      // for ops with no input (a learned tensor)
  const ir::Attrs& a() const { return layer.attrs; }
};

using InitFn = std::vector<at::Tensor> (*)(const Init&);
using RunFn = at::Tensor (*)(const Run&);
struct Row {
  std::string_view op;
  RunFn run;
  InitFn init = nullptr;   // nullptr: no parameters
};

// Helpers the rows share.
std::int64_t dim(std::int64_t axis);                       // per-sample axis -> tensor dimension
std::vector<std::int64_t> dims(const std::vector<std::int64_t>& axes);
at::Tensor weight(std::vector<std::int64_t> shape, std::int64_t fan_in, const at::TensorOptions& o);
std::pair<at::Tensor, at::Tensor> aligned(const at::Tensor& a, const at::Tensor& b);
c10::optional<at::Tensor> maybe(const std::vector<at::Tensor>& p, std::size_t i);

std::vector<Row> tensor_rows();
std::vector<Row> pointwise_rows();
std::vector<Row> conv_rows();
std::vector<Row> norm_rows();
std::vector<Row> dense_rows();

// The row of an op, or nullptr (a test walks the spec table with it).
const Row* find(ir::Op op);

}  // namespace ridge::validate::lower
