// The .net text the importer writes (simulate --emit-net) elaborates to the network it came from:
// the same ops, attributes, inputs and shapes layer by layer, so every count is the same.
#include "onnx_test_util.hpp"

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
