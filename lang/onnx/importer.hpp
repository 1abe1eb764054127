// The importer: a checked ONNX graph in, IR layers out through the C++ builder (so every layer is
// bound, shaped and named by the op specs exactly as a `.net` layer is).
//
// Nodes are converted one at a time in topological order by a table of converters (convert_ops.cpp
// for ops with weights and pointwise math, convert_shapes.cpp for shape arithmetic and views). A
// pattern pass (patterns.cpp) first claims the node runs that exporters emit for one torch op
// (erf- and tanh-GELU, MatMul + Add as a linear with bias).
#pragma once

#include "lang/builder.hpp"
#include "lang/onnx/model.hpp"
#include "lang/parse.hpp"
#include "lang/onnx/tensors.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang::onnx_import {

class Importer {
 public:
  Importer(const Graph& graph, const OnnxOptions& options);
  // `free_nodes` receives the nodes counted as free (allow_unknown), as describe() names them.
  ir::Network run(std::vector<std::string>& free_nodes);

  // --- what converters use ---
  const Graph& graph() const { return graph_; }
  std::int64_t opset() const { return graph_.opset; }
  bool has_input(const onnx::NodeProto& n, int i) const { return i < n.input_size() && !n.input(i).empty(); }
  const Value& input(const onnx::NodeProto& n, int i) const;
  void set_output(const onnx::NodeProto& n, int i, Value v);
  int consumers(const std::string& value) const;
  bool has_value(const std::string& value) const { return values_.count(value) > 0; }

  // The full (batched) ONNX shape of a value; the batch axis holds -1.
  ir::Shape full_shape(const Value& v) const;
  // Known constant elements, or an error naming the node.
  const std::vector<double>& const_data(const onnx::NodeProto& n, int i) const;
  // The value as an IR layer: a Layer as it is; an initializer (or a Const whose elements are not
  // all one number) becomes a `parameter` layer, made once per initializer.
  Value materialize(const onnx::NodeProto& n, int i);
  Value materialize(const Value& v, const onnx::NodeProto& n);
  // An ONNX axis of `v` as the IR's per-sample axis; the batch axis itself is an error.
  std::int64_t per_sample_axis(const Value& v, std::int64_t axis, const onnx::NodeProto& n) const;

  // Adds a layer named for the node (or `name_hint`; one starting with '.' is appended to the node's name), returning its value with `batch_axis`.
  Value emit(std::string_view op, std::vector<Value> inputs, ir::Attrs attrs, const onnx::NodeProto& n, int batch_axis,
             const std::string& name_hint = {});
  // The layer owning an initializer's parameters, if one was made.
  std::optional<ir::LayerId> owner(const std::string& weight) const;
  void set_owner(const std::string& weight, ir::LayerId layer) { owners_.emplace(weight, layer); }
  const ir::Shape& ir_shape(const Value& v) const { return builder_.shape(v.layer); }
  // The batch the graph input declares (a static export: 1), or 0 when it is symbolic.
  int declared_batch() const { return input_batch_; }

  // Pattern pass results.
  std::set<int> skipped;                                 // nodes claimed by a pattern, not converted
  std::map<int, std::function<void(Importer&)>> fused;   // node index -> what replaces it

  // An error about node `n`, named with its place in the graph; most are a known op used in a way
  // Ridge does not model.
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& why,
                         std::string_view id = diag::kOnnxUnsupportedNode) const;
  // Converts one node by the table (or as a free node with allow_unknown).
  void convert(int index);

 private:
  void add_inputs();
  // Refuses node `n` when it reads a folded value (Value::folded) and is not an op that follows one.
  void refuse_folded(const onnx::NodeProto& n) const;
  std::string unique_name(std::string base);

  const Graph& graph_;
  OnnxOptions options_;
  int input_batch_ = 0;                                   // the input's declared batch, 0 if symbolic
  NetworkBuilder builder_;
  std::map<std::string, Value> values_;
  std::map<std::string, ir::LayerId> owners_;            // initializer -> the layer holding it
  std::set<std::string> names_;
  std::set<ir::LayerId> parameters_;                     // `parameter` layers made from initializers
  std::map<std::string, ir::LayerId> buffers_;           // OnnxOptions::buffers read as data -> their `buffer` layer
  std::vector<std::string> free_nodes_;
  std::int64_t folded_ = 0;                               // elements of the constants folded so far
};

using Converter = void (*)(Importer&, const onnx::NodeProto&);
// The converters by ONNX op type (convert_ops.cpp, convert_shapes.cpp).
const std::map<std::string, Converter>& converters();
void add_op_converters(std::map<std::string, Converter>& table);
void add_shape_converters(std::map<std::string, Converter>& table);
void add_einsum_converter(std::map<std::string, Converter>& table);   // convert_einsum.cpp
// A linear layer over the last axis of `x` with the initializer `w` ([out, in]; `w_in_out`: [in, out]),
// tied to the layer that already holds `w`, if any (convert_ops.cpp).
Value linear_layer(Importer& im, const onnx::NodeProto& n, const Value& x, const Value& w, bool bias,
                   const std::string& name = {}, bool w_in_out = true);
// The pattern pass (patterns.cpp), and nn.MultiheadAttention's run in it (torch_attention.cpp).
void claim_patterns(Importer& im);
class Matcher;
void claim_torch_attention(Importer& im, const Matcher& m);

}  // namespace ridge::lang::onnx_import
