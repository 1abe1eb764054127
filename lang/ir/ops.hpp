// The op spec table: every op Ridge knows, as data. One row says everything structural about an op:
// its name in the language, its signature with torch.nn's defaults, its shape rule, the learnable
// parameters it holds, whether it is a view, and the op class its efficiency is looked up under.
// The `.net` elaborator binds arguments from the signature, the C++ builder fills defaults from it,
// the engine's cost table (engine/costs/) and the LibTorch lowering (validate/lower/) are keyed by
// its name. Adding an op is one row here (in the family file under ir/ops/), one cost row and one
// lowering; tests fail when either of the last two is missing.
//
// FLOPs and bytes are not here: they are the engine's (engine/op_costs.hpp).
#pragma once

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

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

enum class ParamKind {
  Tensor,          // an input tensor, in argument order
  Tensors,         // any number of input tensors (or lists/tuples of them): concat
  TensorOrNumber,  // an input tensor, or a number kept as the attribute (`mul(x, 0.125)`)
  Int,
  Real,
  Bool,
  Spatial,         // an integer, or a list with one per spatial axis; stored as a list over the first
                   // input's spatial axes (all but the first, the channels)
  Ints,            // a list of integers (a permutation, a shape); one integer is a list of one
  Word,            // one of `words` (`mode: "bilinear"`)
  Weights,         // a tensor: reuse the parameters of the layer that made it (tied weights); stored
                   // as that layer's id, -1 when not given
};

struct ParamSpec {
  std::string_view name;
  ParamKind kind;
  std::optional<AttrValue> fallback = std::nullopt;   // none and no same_as: the argument is required
  std::string_view same_as = {};                      // default: another argument (maxpool's stride = kernel)
  std::vector<std::string_view> words = {};
  bool required() const {
    return !fallback && same_as.empty() && kind != ParamKind::Weights && kind != ParamKind::Tensors;
  }
  bool is_tensor() const {
    return kind == ParamKind::Tensor || kind == ParamKind::Tensors || kind == ParamKind::TensorOrNumber;
  }
};

using ShapeRule = Shape (*)(const Attrs&, const std::vector<Shape>&);
using CountRule = std::int64_t (*)(const Attrs&, const std::vector<Shape>&);

struct OpSpec {
  std::string_view name;                // in the language: "conv", "adaptive_avgpool"
  std::vector<ParamSpec> params;        // tensors first, then attributes, as torch orders them
  OpClass op_class;                     // whose PPP and peak the op is timed with
  ShapeRule shape;                      // output shape per sample; throws ShapeError
  CountRule weights = nullptr;          // learnable parameters it reads (nullptr: none)
  bool view = false;                    // runs no kernel forward and aliases its first input
  std::string_view doc = {};            // one line for the reference: what it computes
  // Derived from params:
  int min_inputs() const;
  int max_inputs() const;               // -1: any number
};

// The table. Row 0 is the network input; ids are stable within one build.
const std::vector<OpSpec>& all_ops();
const OpSpec& spec(Op op);
std::string_view op_name(Op op);
std::optional<Op> find_op(std::string_view name);   // every op but the input
Op op(std::string_view name);                        // for C++ that names an op it knows; logic_error if none
inline constexpr Op kInputOp{};

// Arguments given by name become the full attribute set: defaults and `same_as` defaults filled in,
// spatial arguments expanded to the first input's spatial rank, words checked, unknown names refused.
// Throws ShapeError naming the argument.
Attrs bind_attrs(const OpSpec& spec, const Attrs& given, const std::vector<Shape>& inputs);

// Per-sample limits. They keep every count the engine derives (elements x batch x bytes x FLOPs per
// element) far inside 64-bit and double-exact range; anything bigger is an absurd size, not a network.
inline constexpr std::int64_t kMaxElementsPerSample = std::int64_t{1} << 36;  // ~6.9e10
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;

// The output shape of `op` on inputs of `inputs` shapes. Throws ShapeError.
Shape infer_shape(Op op, const Attrs& attrs, const std::vector<Shape>& inputs);

// Learnable parameters the layer owns, counted as torch's `sum(p.numel() for p in
// model.parameters())` does: batch-norm running statistics are buffers, and a layer with tied
// weights owns none (torch counts a shared parameter once).
std::int64_t parameter_count(const Layer& layer, const std::vector<Shape>& input_shapes);
// Learnable parameters the layer reads, owned or tied: what its FLOPs, bytes and weight gradient use.
std::int64_t weight_count(const Layer& layer, const std::vector<Shape>& input_shapes);
// The layer whose parameters this one reuses, if any.
std::optional<LayerId> tied_to(const Layer& layer);

// Shapes of a layer's inputs, in argument order.
std::vector<Shape> input_shapes(const Network& network, const Layer& layer);

std::int64_t element_count(const Shape& shape);
std::string to_string(const Shape& shape);   // "[3, 224, 224]"

}  // namespace ridge::ir
