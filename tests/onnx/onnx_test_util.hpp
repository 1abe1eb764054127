// Shared by the ONNX tests: fixture paths, the counts compared, and small graphs built through the
// ONNX protobuf API.
#pragma once

#include "engine/op_costs.hpp"
#include "lang/ir/network.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::onnx_test {

inline std::string fixture(const std::string& name) { return std::string(RIDGE_ONNX_FIXTURES) + "/" + name + ".onnx"; }
inline std::string zoo(const std::string& name) { return std::string(RIDGE_MODELS_DIR) + "/" + name + ".net"; }

inline std::int64_t total_parameters(const ir::Network& net) {
  std::int64_t n = 0;
  for (const auto& layer : net.layers) n += ir::parameter_count(layer, ir::input_shapes(net, layer));
  return n;
}

// Forward MACs of one sample, from the engine's op-cost table (what torchvision's "GFLOPS" count).
inline double engine_macs(const ir::Network& net) {
  const auto grads = engine::grad_flags(net);
  double macs = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    macs += engine::op_cost(net, net.layers[i], 1, ir::Precision::FP32, grads[i]).macs;
  return macs;
}

// Forward and backward FLOPs and bytes of every layer together, at a batch and precision.
struct PassTotals {
  double forward_flops = 0, forward_bytes = 0, backward_flops = 0, backward_bytes = 0;
};
inline PassTotals pass_totals(const ir::Network& net, std::int64_t batch, ir::Precision precision) {
  const auto grads = engine::grad_flags(net);
  PassTotals t;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto c = engine::op_cost(net, net.layers[i], batch, precision, grads[i]);
    t.forward_flops += c.forward.flops;
    t.forward_bytes += c.forward.bytes();
    t.backward_flops += c.backward.flops;
    t.backward_bytes += c.backward.bytes();
  }
  return t;
}

// A model of opset 17 whose graph reads x of [batch, *input_dims] and returns y; add nodes with
// node() and weights with initializer().
inline onnx::ModelProto model(std::vector<std::int64_t> input_dims = {3, 8, 8}) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("test");
  auto* in = g->add_input();
  in->set_name("x");
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  for (const auto d : input_dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  g->add_output()->set_name("y");
  return m;
}

inline onnx::NodeProto* node(onnx::ModelProto& m, const std::string& op, std::vector<std::string> inputs,
                             std::vector<std::string> outputs, const std::string& name = {}) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(m.graph().node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

// A float initializer of these dims, declared without its data.
inline onnx::TensorProto* initializer(onnx::ModelProto& m, const std::string& name, std::vector<std::int64_t> dims) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (const auto d : dims) t->add_dims(d);
  return t;
}

// An int64 initializer of these dims holding these values, row-major (indices, scalars: dims {}).
inline onnx::TensorProto* int64_tensor(onnx::ModelProto& m, const std::string& name, const std::vector<std::int64_t>& dims,
                                       const std::vector<std::int64_t>& values) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (const auto d : dims) t->add_dims(d);
  for (const auto v : values) t->add_int64_data(v);
  return t;
}

// A 1-D int64 initializer holding these values (axes, shapes, starts).
inline onnx::TensorProto* int64_initializer(onnx::ModelProto& m, const std::string& name, std::vector<std::int64_t> values) {
  return int64_tensor(m, name, {static_cast<std::int64_t>(values.size())}, values);
}

inline void int_attribute(onnx::NodeProto* n, const std::string& name, std::int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

inline void ints_attribute(onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (const auto v : values) a->add_ints(v);
}

inline void string_attribute(onnx::NodeProto* n, const std::string& name, const std::string& value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

// The graph imported (a built model's file name is "defaults.onnx" in diagnostics), or its error.
inline ir::Network import(const onnx::ModelProto& m) { return lang::parse_onnx(m.SerializeAsString(), "defaults.onnx").network; }

inline std::string error_of(const onnx::ModelProto& m) {
  try {
    import(m);
  } catch (const lang::Error& e) {
    return e.what();
  }
  return {};
}

inline int count_of(const ir::Network& net, std::string_view op) {
  int count = 0;
  for (const auto& l : net.layers) count += ir::spec(l.op).name == op;
  return count;
}

inline const ir::Shape& output_shape(const ir::Network& net) { return net.layers.at(net.output).output; }

}  // namespace ridge::onnx_test
