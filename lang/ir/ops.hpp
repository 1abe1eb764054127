// What the IR knows about each op without costing it: its name in the language, how many inputs it
// takes, its output shape and its parameter count. These are structural facts, shared by the
// language, the C++ builder, the engine and validate. (FLOPs and bytes are the engine's: see
// engine/op_costs.cpp.)
#pragma once

#include "ir/network.hpp"

#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ridge::ir {

// Raised when an op's inputs or attributes cannot produce a valid output. The message says what is
// wrong without a location; the caller (the elaborator, the builder) adds where.
struct ShapeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OpInfo {
  Op op;
  std::string_view name;   // the op's name in the language, e.g. "conv", "adaptive_avgpool"
  int min_inputs;
  int max_inputs;          // -1: any number (concat)
};

const OpInfo& op_info(Op op);
std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);
const std::vector<OpInfo>& all_ops();

// Per-sample limits. They keep every count the engine derives (elements x batch x bytes x FLOPs per
// element) far inside 64-bit and double-exact range; anything bigger is an absurd size, not a network.
inline constexpr std::int64_t kMaxElementsPerSample = std::int64_t{1} << 36;  // ~6.9e10
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;

// The output shape of `op` on inputs of `inputs` shapes. Throws ShapeError.
Shape infer_shape(Op op, const Attrs& attrs, const std::vector<Shape>& inputs);

// Learnable parameters, counted as torch's `sum(p.numel() for p in model.parameters())` does:
// batch-norm running statistics are buffers, not parameters.
std::int64_t parameter_count(const Layer& layer, const std::vector<Shape>& input_shapes);

// Shapes of a layer's inputs, in argument order.
std::vector<Shape> input_shapes(const Network& network, const Layer& layer);

std::int64_t element_count(const Shape& shape);
std::string to_string(const Shape& shape);   // "[3, 224, 224]"

}  // namespace ridge::ir
