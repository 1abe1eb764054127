// The .net text the importer writes (simulate --emit-net) elaborates to the network it came from:
// the same ops, attributes, inputs and shapes layer by layer, so every count is the same.
#include "onnx_test_util.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

using namespace ridge;
using namespace ridge::onnx_test;

TEST_CASE("an imported network written as .net elaborates to the same layers") {
  const std::string name = GENERATE(as<std::string>{}, "resnet18", "mobilenet_v3_large", "googlenet", "shufflenet_v2_x1_0",
                                    "efficientnet_b0", "bert_base", "gpt2");
  CAPTURE(name);
  lang::OnnxOptions o;
  o.dims["seq_len"] = 32;
  const ir::Network onnx = lang::load_onnx(fixture(name), o).network;
  const std::string text = lang::to_net_text(onnx);
  const ir::Network net = lang::parse_network(text, name + ".net");
  REQUIRE(net.layers.size() == onnx.layers.size());
  CHECK(net.output == onnx.output);
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    CAPTURE(i, onnx.layers[i].name);
    CHECK(net.layers[i].op == onnx.layers[i].op);
    CHECK(net.layers[i].attrs == onnx.layers[i].attrs);
    CHECK(net.layers[i].inputs == onnx.layers[i].inputs);
    CHECK(net.layers[i].output == onnx.layers[i].output);
  }
  CHECK(total_parameters(net) == total_parameters(onnx));
  CHECK(engine_macs(net) == engine_macs(onnx));
}

TEST_CASE("layer names come from the exporter's module paths") {
  const ir::Network net = lang::load_onnx(fixture("resnet50")).network;
  std::vector<std::string> names;
  for (const auto& l : net.layers) names.push_back(l.name);
  for (const std::string want : {"conv1", "bn1", "layer1.0.conv1", "layer4.2.bn3", "layer4.0.downsample.0", "fc"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  const std::string text = lang::to_net_text(net);
  CHECK_THAT(text, Catch::Contains("layer4_0_downsample_0 = conv("));
}

TEST_CASE("numbers the .net parser would round differently are written exactly") {
  // float32 0.044715 (GELU's constant) as a double: 17 significant digits, which the language's
  // number parser does not read back to the same double (found by the fuzz target).
  onnx::ModelProto m;
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  t->mutable_shape()->add_dim()->set_dim_value(4);
  g->add_output()->set_name("y");
  for (const float c : {0.044715f, 1e-12f, 3.0f, -2.5e-7f}) {
    auto* k = g->add_initializer();
    k->set_name("c" + std::to_string(g->initializer_size()));
    k->set_data_type(onnx::TensorProto::FLOAT);
    k->add_float_data(c);
  }
  auto mul = [&](const std::string& a, const std::string& b, const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type("Mul");
    n->add_input(a);
    n->add_input(b);
    n->add_output(out);
  };
  mul("x", "c1", "a");
  mul("a", "c2", "b");
  mul("b", "c3", "c");
  mul("c", "c4", "y");
  const ir::Network net = lang::parse_onnx(m.SerializeAsString(), "numbers.onnx").network;
  const ir::Network again = lang::parse_network(lang::to_net_text(net), "numbers.net");
  REQUIRE(again.layers.size() == 5);
  for (std::size_t i = 1; i < 5; ++i) CHECK(again.layers[i].attrs == net.layers[i].attrs);
  CHECK(net.layers[1].attrs.r("b") == static_cast<double>(0.044715f));
}
