// ONNX diagnostics name the node they are about by its place in the graph's node list (what
// model.graph.node[i] is in Python's onnx), its name and its op, whichever part of the importer
// refused it; each carries its kind's ID, and a node counted as free is a warning.
#include "tests/onnx/onnx_test_util.hpp"

#include "lang/diagnostic_ids.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ridge;

namespace {

using onnx_test::initializer;
using onnx_test::int64_initializer;
using onnx_test::model;
using onnx_test::node;

// The one diagnostic of a model that must be refused.
lang::Diagnostic refusal(const onnx::ModelProto& m) {
  try {
    lang::parse_onnx(m.SerializeAsString(), "m.onnx");
  } catch (const lang::Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    return e.diagnostics().front();
  }
  FAIL("the model was imported");
  return {};
}

}  // namespace

TEST_CASE("an ONNX error names the node: its index in the graph, its name, its op and inputs") {
  auto m = model();
  node(m, "Relu", {"x"}, {"r"}, "first");
  node(m, "Sigmoid", {"r"}, {"s"}, "second");
  node(m, "Hardmax", {"s"}, {"h"}, "mystery");
  node(m, "Relu", {"h"}, {"y"}, "last");
  const lang::Diagnostic d = refusal(m);
  CHECK(d.id == lang::diag::kOnnxUnsupportedOp);
  CHECK(d.where.file == "m.onnx");
  CHECK(d.where.line == 0);   // a binary model has no lines: the node is named in the message
  CHECK_THAT(d.message, Catch::StartsWith("node 2 'mystery' (Hardmax, inputs: s): Ridge cannot model the ONNX op 'Hardmax'"));
  CHECK_THAT(lang::render(d), Catch::StartsWith("m.onnx: error: node 2 'mystery' (Hardmax, inputs: s): Ridge cannot model") &&
                                  Catch::EndsWith(" [onnx-unsupported-op]\n"));
}

TEST_CASE("the index is the node's place in the file, not in the order nodes are converted") {
  // Listed before the node whose output it reads: converted second, but node 0 of the graph.
  auto m = model();
  node(m, "Hardmax", {"r"}, {"y"}, "late");
  node(m, "Relu", {"x"}, {"r"}, "early");
  CHECK_THAT(refusal(m).message, Catch::StartsWith("node 0 'late' (Hardmax, inputs: r): "));
  // A node without a name is named by its index and op alone; another domain's op with its domain.
  auto unnamed = model();
  node(unnamed, "Relu", {"x"}, {"r"});
  node(unnamed, "Mystery", {"r"}, {"y"})->set_name("");
  unnamed.mutable_graph()->mutable_node(1)->set_domain("com.example");
  CHECK_THAT(refusal(unnamed).message, Catch::StartsWith("node 1 (com.example.Mystery, inputs: r): Ridge cannot model the ONNX op "
                                                         "'com.example.Mystery'"));
}

TEST_CASE("what a converter's helpers and the op specs refuse is named after the node being converted") {
  SECTION("a shape that is no integer, met while folding the node's target shape") {
    auto m = model();
    auto* shape = m.mutable_graph()->add_initializer();
    shape->set_name("shape");
    shape->set_data_type(onnx::TensorProto::FLOAT);
    shape->add_dims(2);
    shape->add_float_data(0);
    shape->add_float_data(std::nanf(""));
    node(m, "Relu", {"x"}, {"r"}, "relu");
    auto* cast = node(m, "Cast", {"shape"}, {"shape64"}, "cast");
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::INT64);
    node(m, "Reshape", {"r", "shape64"}, {"y"}, "rs");
    const lang::Diagnostic d = refusal(m);
    CHECK(d.id == lang::diag::kOnnxUnsupportedNode);
    CHECK_THAT(d.message, Catch::StartsWith("node 2 'rs' (Reshape, inputs: r, shape64): ") && Catch::Contains("not an integer"));
  }
  SECTION("a layer the op specs refuse") {
    auto m = model({3, 8, 8});
    initializer(m, "conv.weight", {16, 3, 11, 11});   // an 11x11 kernel over an 8x8 input
    node(m, "Conv", {"x", "conv.weight"}, {"c"}, "big_conv");
    node(m, "Relu", {"c"}, {"y"}, "relu");
    const lang::Diagnostic d = refusal(m);
    CHECK(d.id == lang::diag::kOnnxShape);
    CHECK_THAT(d.message, Catch::StartsWith("node 0 'big_conv' (Conv, inputs: x, conv.weight): as 'conv': "));
  }
  SECTION("a folded constant past the limit") {
    auto m = model();
    int64_initializer(m, "shape", {std::int64_t{1} << 29});
    node(m, "Relu", {"x"}, {"y"}, "relu");
    node(m, "ConstantOfShape", {"shape"}, {"c"}, "fill");
    const lang::Diagnostic d = refusal(m);
    CHECK(d.id == lang::diag::kOnnxLimit);
    CHECK_THAT(d.message, Catch::StartsWith("node 1 'fill' (ConstantOfShape, inputs: shape): makes a constant of"));
  }
}

TEST_CASE("graph and model errors carry their IDs, those about the whole model name no node") {
  auto dangling = model();
  node(dangling, "Relu", {"x"}, {"r"}, "fine");
  node(dangling, "Relu", {"nowhere"}, {"y"}, "lost");
  const lang::Diagnostic graph = refusal(dangling);
  CHECK(graph.id == lang::diag::kOnnxGraph);
  CHECK(graph.message == "node 1 'lost' (Relu, inputs: nowhere): reads 'nowhere', which nothing in the graph produces");

  auto cycle = model();
  node(cycle, "Add", {"x", "b"}, {"a"}, "first");
  node(cycle, "Relu", {"a"}, {"b"}, "second");
  node(cycle, "Relu", {"a"}, {"y"});
  CHECK_THAT(refusal(cycle).message, Catch::StartsWith("node 0 'first' (Add, inputs: x, b): the graph has a cycle through this node"));

  try {
    lang::parse_onnx("", "empty.onnx");
    FAIL("an empty file was imported");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kOnnxCorrupt);
    CHECK(std::string(e.what()) == "empty.onnx: error: the model has no graph [onnx-corrupt]\n");
  }
  auto bound = model({3, 8, 8});
  node(bound, "Relu", {"x"}, {"y"});
  lang::OnnxOptions o;
  o.dims = {{"seq_len", 64}};
  try {
    lang::parse_onnx(bound.SerializeAsString(), "m.onnx", o);
    FAIL("a binding that binds nothing was accepted");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kOnnxInput);
  }
}

TEST_CASE("a node counted as free is a warning naming it") {
  auto m = model();
  node(m, "Relu", {"x"}, {"r"}, "relu");
  node(m, "Hardmax", {"r"}, {"y"}, "mystery");
  lang::OnnxOptions o;
  o.allow_unknown = true;
  const auto imported = lang::parse_onnx(m.SerializeAsString(), "m.onnx", o);
  REQUIRE(imported.free_nodes == std::vector<std::string>{"node 1 'mystery' (Hardmax, inputs: r)"});
  REQUIRE(imported.warnings.size() == 1);
  const lang::Diagnostic& w = imported.warnings.front();
  CHECK(w.severity == lang::Severity::Warning);
  CHECK(w.id == lang::diag::kOnnxFreeNode);
  CHECK(lang::render(w) ==
        "m.onnx: warning: node 1 'mystery' (Hardmax, inputs: r): counted as free (--allow-unknown) [onnx-free-node]\n");
}

TEST_CASE("an input whose batch is axis 1 imports with that axis left out, and an axis it lacks is refused") {
  // x: [10, batch, 16], as a sequence-first module takes it; transposed to [batch, 10, 16] and back.
  auto m = model({0, 16});
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_value(10);
  dims->mutable_dim(1)->set_dim_param("batch");
  node(m, "Relu", {"x"}, {"r"}, "relu");
  auto* t = node(m, "Transpose", {"r"}, {"y"}, "swap");
  auto* perm = t->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (const int p : {1, 0, 2}) perm->add_ints(p);
  lang::OnnxOptions o;
  o.batch_axis = 1;
  const ir::Network net = lang::parse_onnx(m.SerializeAsString(), "m.onnx", o).network;
  CHECK(net.input().output == ir::Shape{10, 16});
  CHECK(net.layers.back().output == ir::Shape{10, 16});
  o.batch_axis = 3;
  try {
    lang::parse_onnx(m.SerializeAsString(), "m.onnx", o);
    FAIL("a batch axis the input lacks was accepted");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kOnnxInput);
    CHECK_THAT(e.diagnostics().front().message, Catch::Contains("the batch axis 3 is not an axis of graph input 'x' (3 axes)"));
  }
}

namespace {

// A second graph input named `name`: [batch, dims...], the batch symbolic ("batch") or static.
void second_input(onnx::ModelProto& m, const std::string& name, std::vector<std::int64_t> dims, std::int64_t batch = 0) {
  auto* in = m.mutable_graph()->add_input();
  in->set_name(name);
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  if (batch > 0) t->mutable_shape()->add_dim()->set_dim_value(batch);
  else t->mutable_shape()->add_dim()->set_dim_param("batch");
  for (const auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

// Issue #38: every data input a node reads is an input of the network (nn.Transformer's src and tgt).
TEST_CASE("a graph of two data inputs imports as a network of two, they share one batch") {
  auto m = model({3, 8, 8});
  second_input(m, "other.input", {3, 8, 8});
  node(m, "Add", {"x", "other.input"}, {"y"}, "sum");
  const ir::Network net = lang::parse_onnx(m.SerializeAsString(), "two.onnx").network;
  REQUIRE(net.layers.size() == 3);
  CHECK(net.layers[0].name == "input");
  CHECK(net.layers[1].op == ir::kInputOp);
  CHECK(net.layers[1].name == "other_input");   // the graph input's name, made a layer name
  CHECK(net.layers[1].output == ir::Shape{3, 8, 8});
  CHECK(net.layers[2].inputs == std::vector<ir::LayerId>{0, 1});
  // An input no node reads is no input of the network.
  auto unread = model({3, 8, 8});
  second_input(unread, "mask", {8});
  node(unread, "Relu", {"x"}, {"y"});
  CHECK(lang::parse_onnx(unread.SerializeAsString(), "unread.onnx").network.layers.size() == 2);
  // Static batches that differ cannot be one network's.
  auto apart = model({3, 8, 8});
  apart.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(2);
  second_input(apart, "z", {3, 8, 8}, 4);
  node(apart, "Add", {"x", "z"}, {"y"});
  const lang::Diagnostic d = refusal(apart);
  CHECK(d.id == lang::diag::kOnnxInput);
  CHECK_THAT(d.message, Catch::Contains("graph input 'z' declares a batch of 4 and 'x' one of 2") &&
                            Catch::Contains("a network's inputs share one batch"));
  // A binding may name an axis of any input.
  auto symbolic = model({3, 8, 8});
  second_input(symbolic, "tgt", {});
  symbolic.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("tgt_len");
  node(symbolic, "Relu", {"tgt"}, {"t"});
  node(symbolic, "Relu", {"x"}, {"y"});
  lang::OnnxOptions o;
  o.dims = {{"tgt_len", 5}};
  const ir::Network bound = lang::parse_onnx(symbolic.SerializeAsString(), "bound.onnx", o).network;
  CHECK(bound.layers[1].output == ir::Shape{5});
}
