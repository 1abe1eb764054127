// The .net text the importer writes (simulate --emit-net) elaborates to the network it came from:
// the same ops, attributes, inputs and shapes layer by layer, so every count is the same.
#include "tests/onnx/onnx_test_util.hpp"

#include "lang/builder.hpp"
#include "lang/zoo_variant.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <sstream>

#include <catch2/catch.hpp>

using namespace ridge;
using namespace ridge::onnx_test;

TEST_CASE("an imported network written as .net elaborates to the same layers") {
  const std::string name = GENERATE(as<std::string>{}, "resnet18", "mobilenet_v3_large", "googlenet", "shufflenet_v2_x1_0",
                                    "efficientnet_b0", "bert_base", "gpt2");
  CAPTURE(name);
  lang::OnnxOptions o;
  if (name == "bert_base" || name == "gpt2") o.dims["seq_len"] = 32;   // their symbolic sequence axis
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
  // layer4.0 is one call of the bottleneck block with a downsample branch, so its layers are named in
  // the call's scope.
  const ir::Network again = lang::parse_network(text, "resnet50.net");
  CHECK(std::any_of(again.layers.begin(), again.layers.end(), [](const ir::Layer& l) { return l.name == "layer4_0.downsample_0"; }));
}

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// "  layer2_3 = layer1_block_2(": a line that calls a block.
std::size_t block_calls(const std::string& text) {
  std::size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find(" = ");
    const auto paren = line.find('(', eq == std::string::npos ? 0 : eq);
    if (eq != std::string::npos && paren != std::string::npos && line.substr(eq + 3, paren - eq - 3).find("_block") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("runs of layers that repeat under one module are written as block calls") {
  // torchvision's ResNets: layers [3, 4, 6, 3] (ResNet-50 and -101: [3, 4, 23, 3]) of two kinds of
  // block, the first of each stage with a downsample branch and a stride; GPT-2 small and BERT-base:
  // 12 identical transformer layers (n_layer / num_hidden_layers in their configurations).
  struct Case {
    std::string name;
    std::size_t blocks, calls;
  };
  const Case c = GENERATE(Case{"resnet18", 2, 8}, Case{"resnet50", 2, 16}, Case{"resnet101", 2, 33}, Case{"gpt2", 1, 12},
                          Case{"bert_base", 1, 12});
  CAPTURE(c.name);
  lang::OnnxOptions o;
  if (c.name == "bert_base" || c.name == "gpt2") o.dims["seq_len"] = 32;   // their symbolic sequence axis
  const ir::Network onnx = lang::load_onnx(fixture(c.name), o).network;
  const std::string text = lang::to_net_text(onnx);
  CHECK(count_of(text, "\nblock ") == c.blocks);
  CHECK(block_calls(text) == c.calls);
  // The text is shorter than one line per layer; the layers stay the same (the test above).
  CHECK(count_of(text, "\n") < onnx.layers.size());
}

TEST_CASE("a run whose inner layers are read from outside it stays written out") {
  // s.0 and s.1 have the same structure, but y reads s.0.a, so s.0 cannot be one call returning s.0.b.
  lang::NetworkBuilder b("net", {8});
  const auto x = b.input();
  const auto a0 = b.call("linear", {x}, {{"out", std::int64_t{8}}}, "s.0.a");
  const auto b0 = b.call("relu", {a0}, {}, "s.0.b");
  const auto a1 = b.call("linear", {b0}, {{"out", std::int64_t{8}}}, "s.1.a");
  const auto b1 = b.call("relu", {a1}, {}, "s.1.b");
  const auto a2 = b.call("linear", {b1}, {{"out", std::int64_t{8}}}, "s.2.a");
  const auto b2 = b.call("relu", {a2}, {}, "s.2.b");
  const auto y = b.call("add", {b2, a0}, {}, "y");
  const ir::Network net = b.finish(y);
  const std::string text = lang::to_net_text(net);
  CHECK(count_of(text, "\nblock ") == 1);
  CHECK(block_calls(text) == 2);   // s.1 and s.2
  CHECK_THAT(text, Catch::Contains("s_0_a = linear("));
  const ir::Network again = lang::parse_network(text, "net.net");
  REQUIRE(again.layers.size() == net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) CHECK(again.layers[i].inputs == net.layers[i].inputs);
}

TEST_CASE("layers named after the language's keywords are written as names it reads") {
  // `import` became a keyword with imports (issue #38): a module called `import` is still a layer.
  lang::NetworkBuilder b("net", {8});
  ir::LayerId x = b.input();
  for (const char* word : {"import", "network", "return", "as"}) x = b.call("relu", {x}, {}, word);
  const ir::Network net = b.finish(x);
  const std::string text = lang::to_net_text(net);
  CHECK_THAT(text, Catch::Contains("import_ = relu("));
  CHECK(lang::parse_network(text, "net.net").layers.size() == net.layers.size());
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

TEST_CASE("an imported model that is a zoo architecture is written as an import and one line") {
  // torchvision's ResNet-18 and ResNet-50, exported: the zoo's files at classes 1000, 224 x 224.
  for (const auto& [name, args] : {std::pair{std::string("resnet18"), std::string("classes: 1000")},
                                   std::pair{std::string("resnet50"), std::string("classes: 1000, resolution: 224")}}) {
    CAPTURE(name);
    const ir::Network onnx = lang::load_onnx(fixture(name)).network;
    const std::string written_to = std::string(RIDGE_MODELS_DIR) + "/../out/" + name + ".net";
    const std::optional<std::string> text = lang::zoo_variant_text(onnx, written_to);
    REQUIRE(text);
    CHECK_THAT(*text, Catch::Contains("import \"../models/" + name + ".net\"\n") &&
                          Catch::Contains("network " + name + "_imported = " + name + "(" + args + ")\n"));
    // Read back where it would be written: the zoo's layers, which are the imported ones.
    const ir::Network back = lang::parse_network(*text, written_to);
    CHECK(back.name == name + "_imported");
    CHECK(lang::same_layers(back, onnx));
    CHECK(total_parameters(back) == total_parameters(onnx));
  }
  // Written far from the zoo, the import is absolute.
  const std::optional<std::string> far = lang::zoo_variant_text(lang::load_onnx(fixture("resnet18")).network, "/r18.net");
  REQUIRE(far);
  CHECK_THAT(*far, Catch::Contains("import \"/"));
  // MNASNet is in no zoo file, and an inference export of SqueezeNet has no dropout where the zoo's
  // file keeps torchvision's: neither is written as a variant.
  CHECK_FALSE(lang::zoo_variant_text(lang::load_onnx(fixture("mnasnet1_0")).network, "m.net"));
  CHECK_FALSE(lang::zoo_variant_text(lang::load_onnx(fixture("squeezenet1_1")).network, "s.net"));
}

TEST_CASE("same layers: names and the order of independent layers and of add's operands aside") {
  const auto net = [](const std::string& body) { return lang::parse_network("network n {\n  input x: [8]\n" + body + "}\n", "n.net"); };
  const ir::Network a = net("  y = x -> linear(4) as p\n  z = x -> linear(4) as q -> relu\n  return add(y, z)\n");
  const ir::Network b = net("  z = x -> linear(4) as other -> relu\n  y = x -> linear(4)\n  return add(z, y)\n");
  CHECK(lang::same_layers(a, b));
  CHECK_FALSE(lang::same_layers(a, net("  y = x -> linear(4)\n  z = x -> linear(4) -> relu\n  return sub(y, z)\n")));
  CHECK_FALSE(lang::same_layers(a, net("  y = x -> linear(4, bias: false)\n  z = x -> linear(4) -> relu\n  return add(y, z)\n")));
  // A real that differs past float32's precision is the same figure; one that differs before is not.
  CHECK(lang::same_layers(net("  return x -> layernorm(eps: 1e-5)\n"), net("  return x -> layernorm(eps: 0.0000100000001)\n")));
  CHECK_FALSE(lang::same_layers(net("  return x -> layernorm(eps: 1e-5)\n"), net("  return x -> layernorm(eps: 1e-6)\n")));
}

TEST_CASE("a network of two inputs is written with two input statements and elaborates to the same layers") {
  auto m = model({3, 8, 8});
  auto* in = m.mutable_graph()->add_input();
  in->set_name("memory");
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const std::string d : {"batch"}) t->mutable_shape()->add_dim()->set_dim_param(d);
  for (const std::int64_t d : {3, 8, 8}) t->mutable_shape()->add_dim()->set_dim_value(d);
  node(m, "Relu", {"memory"}, {"r"}, "relu");
  node(m, "Add", {"x", "r"}, {"y"}, "sum");
  const ir::Network onnx = lang::parse_onnx(m.SerializeAsString(), "two.onnx").network;
  const std::string text = lang::to_net_text(onnx);
  CHECK_THAT(text, Catch::Contains("  input x: [3, 8, 8]\n") && Catch::Contains("  input memory: [3, 8, 8]\n"));
  const ir::Network net = lang::parse_network(text, "two.net");
  REQUIRE(net.layers.size() == onnx.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    CAPTURE(i);
    CHECK(net.layers[i].name == onnx.layers[i].name);
    CHECK(net.layers[i].op == onnx.layers[i].op);
    CHECK(net.layers[i].inputs == onnx.layers[i].inputs);
    CHECK(net.layers[i].output == onnx.layers[i].output);
  }
}
