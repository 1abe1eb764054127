// Values flowing through an imported graph, and the constants folded at import.
//
// Every ONNX tensor becomes one Value:
//  - Layer: an IR layer's output. ONNX shapes carry the batch; the IR's are per sample, so a Layer
//    value records which ONNX axis is the batch (usually 0; 1 for an LSTM's [T, B, F]), or -1 for a
//    value that is the same for every sample (a learned tensor and what is computed from it alone).
//  - Const: a tensor known at import (initializers, Constant nodes and the shape arithmetic that
//    exporters emit: Shape -> Gather -> Concat -> Reshape). `data` holds its elements when they are
//    known and small; an element that is NaN stands for the batch size, or a number computed from it,
//    which the importer keeps symbolic so one import serves every `--batch`. An initializer keeps
//    its name (`weight`): that is what makes a shared initializer count once.
#pragma once

#include "lang/onnx/model.hpp"

#include "lang/ir/network.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ridge::lang::onnx_import {

// The batch size, which Ridge keeps out of the graph, wherever folded shape arithmetic meets it: a NaN
// with a payload of its own. Arithmetic carries a NaN's payload through (IEEE 754 recommends it; x86-64
// and AArch64 do), so a shape computed from the batch stays the batch, while a NaN that a file's tensor
// holds (the canonical payload) is not taken for it (issue #41: a Cast of NaN used as a shape became
// the batch axis). The sign is ignored: a negation keeps the payload and flips it.
inline constexpr std::uint64_t kBatchBits = 0x7ff8'0000'0000'ba7cULL;
inline constexpr double kBatch = std::bit_cast<double>(kBatchBits);
inline bool is_batch(double v) { return (std::bit_cast<std::uint64_t>(v) & ~(std::uint64_t{1} << 63)) == kBatchBits; }

struct Value {
  enum class Kind { Layer, Const } kind = Kind::Const;
  // Layer
  ir::LayerId layer = 0;
  int batch_axis = 0;                        // -1: the same for every sample
  // The batch is folded into the batch axis with a factor the IR shape holds there: Swin's window
  // partition reshapes [B, 8, 8, 7, 7, C] to [B * 64, 49, C], which the IR holds as [64, 49, C] per
  // sample. A folded value's IR shape has the ONNX rank; an unfolded one's lacks the batch axis.
  bool folded = false;
  // Const
  ir::Shape dims;                            // the full shape
  std::optional<std::vector<double>> data;   // row-major elements, when known
  std::string weight;                        // the initializer's name, if it is one
  bool integral = false;                     // int / bool element type (shape arithmetic)
  // A slice of a learned tensor whose values are not here (`wpe.weight[:T]`): the initializer's own
  // shape and the slices (axis, start, size) taken of it, applied when it is read as data.
  ir::Shape base_dims;
  std::vector<std::array<std::int64_t, 3>> slices;
  // Which part of the learned tensor `weight` this is, when sliced ("[axis:start+size]", one per slice,
  // whether or not its values are here): two parts of one tensor are two weights (a packed in_proj
  // split into queries and keys-and-values), the same part read twice one tied weight.
  std::string part;

  bool is_layer() const { return kind == Kind::Layer; }
  bool batched() const { return is_layer() && batch_axis >= 0; }
  // A learned tensor: an initializer (or a part of one) that is not integers (shape arithmetic).
  bool learned() const { return !weight.empty() && !integral; }
  static Value of_layer(ir::LayerId id, int batch_axis, bool folded = false) {
    Value v;
    v.kind = Kind::Layer;
    v.layer = id;
    v.batch_axis = batch_axis;
    v.folded = folded && batch_axis >= 0;
    return v;
  }
  static Value constant(ir::Shape dims, std::vector<double> data, bool integral) {
    Value v;
    v.dims = std::move(dims);
    v.data = std::move(data);
    v.integral = integral;
    return v;
  }
};

// A TensorProto's shape, and its elements when present (external or stripped data: none). Checks
// the dims against the IR's limits. Throws OnnxError naming `what`.
Value read_tensor(const onnx::TensorProto& t, const std::string& what);

std::int64_t element_count_checked(const ir::Shape& dims, const std::string& what);

// An integer from a folded element; the batch (NaN) or a non-integer is an error naming `what`.
std::int64_t as_int(double v, const std::string& what);
std::vector<std::int64_t> as_ints(const Value& v, const std::string& what);

// numpy-style broadcast of two full shapes; nullopt when they do not broadcast.
std::optional<ir::Shape> broadcast(const ir::Shape& a, const ir::Shape& b);

// Element-wise op on two known constants with broadcasting.
Value fold_binary(const Value& a, const Value& b, double (*f)(double, double), const std::string& what);

// Node attributes.
const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name);
std::int64_t attr_int(const onnx::NodeProto& n, const std::string& name, std::int64_t fallback);
double attr_float(const onnx::NodeProto& n, const std::string& name, double fallback);
std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback);
std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name);

}  // namespace ridge::lang::onnx_import
