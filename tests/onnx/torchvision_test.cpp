// torchvision classifiers exported by torch.onnx.export (tests/onnx/make_fixtures.py) against
// torchvision's published figures, and, for the zoo's, layer by layer against the `.net` simulation.
//
// Golden figures: torchvision's documentation, "Classification" weights tables
// (https://pytorch.org/vision/stable/models.html#table-of-all-available-classification-weights), whose
// "Params" and "GFLOPS" columns come from each weights enum's meta["num_params"] and meta["_ops"] in
// torchvision/models/*.py (e.g. MNASNet1_0_Weights.IMAGENET1K_V1: num_params 4383312, _ops 0.314).
// "GFLOPS" there are multiply-accumulates, so they are compared with the engine's MACs, to half a unit
// of the last published digit. Parameters are compared exactly.
#include "tests/onnx/onnx_test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace ridge;
using namespace ridge::onnx_test;

namespace {

double half_unit(const std::string& published) {
  const auto dot = published.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(published.size() - dot - 1);
  return 0.5 * std::pow(10.0, -decimals);
}

// Every computing layer's forward FLOPs and bytes at batch 8 (views and dropouts, which an eval-mode
// export drops, left out), keyed by op: the multiset two simulations must share.
std::map<std::string, std::vector<std::pair<double, double>>> layer_costs(const ir::Network& net) {
  const auto grads = engine::grad_flags(net);
  std::map<std::string, std::vector<std::pair<double, double>>> out;
  for (std::size_t i = 1; i < net.layers.size(); ++i) {
    const auto& l = net.layers[i];
    const std::string op(ir::op_name(l.op));
    if (ir::spec(l.op).view || op == "dropout") continue;
    const auto c = engine::op_cost(net, l, 8, ir::Precision::FP16, grads[i]);
    out[op].emplace_back(c.forward.flops, c.forward.bytes());
  }
  for (auto& [op, v] : out) std::sort(v.begin(), v.end());
  return out;
}

}  // namespace

TEST_CASE("torchvision exports match torchvision's published parameters and GFLOPS") {
  // name, num_params, GFLOPS as the docs table prints it, meta["_ops"] as the source holds it
  auto [name, params, gflops, ops] = GENERATE(table<std::string, std::int64_t, std::string, std::string>({
      {"resnet18", 11'689'512, "1.81", "1.814"},
      {"resnet50", 25'557'032, "4.09", "4.089"},
      {"mobilenet_v2", 3'504'872, "0.3", "0.301"},
      {"mobilenet_v3_large", 5'483'032, "0.22", "0.217"},
      {"squeezenet1_1", 1'235'496, "0.35", "0.349"},
      {"googlenet", 6'624'904, "1.5", "1.498"},
      {"densenet121", 7'978'856, "2.83", "2.834"},
      {"efficientnet_b0", 5'288'548, "0.39", "0.386"},
      {"shufflenet_v2_x2_0", 7'393'996, "0.58", "0.583"},
      // not in the zoo
      {"mnasnet1_0", 4'383'312, "0.31", "0.314"},
      {"shufflenet_v2_x1_0", 2'278'604, "0.14", "0.145"},
      {"regnet_x_400mf", 5'495'976, "0.41", "0.414"},
      {"resnet101", 44'549'160, "7.8", "7.801"},
  }));
  CAPTURE(name);
  const ir::Network net = lang::load_onnx(fixture(name)).network;
  CHECK(net.layers.at(net.output).output == ir::Shape{1000});
  CHECK(net.input().output == ir::Shape{3, 224, 224});
  CHECK(total_parameters(net) == params);
  const double gmacs = engine_macs(net) / 1e9;
  CAPTURE(gmacs, gflops, ops);
  CHECK(std::abs(gmacs - std::stod(gflops)) <= half_unit(gflops) + 1e-9);
  CHECK(std::abs(gmacs - std::stod(ops)) <= half_unit(ops) + 1e-9);
}

TEST_CASE("torchvision exports of zoo networks simulate layer for layer as the zoo's .net") {
  const std::string name = GENERATE(as<std::string>{}, "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large",
                                    "squeezenet1_1", "googlenet", "densenet121", "efficientnet_b0", "shufflenet_v2_x2_0");
  CAPTURE(name);
  const ir::Network onnx = lang::load_onnx(fixture(name)).network;
  const ir::Network net = lang::load_network(zoo(name));
  const auto a = layer_costs(onnx);
  const auto b = layer_costs(net);
  for (const auto& [op, costs] : b) {
    CAPTURE(op);
    REQUIRE(a.count(op));
    CHECK(a.at(op).size() == costs.size());
    CHECK(a.at(op) == costs);
  }
  for (const auto& [op, costs] : a) {
    CAPTURE(op);
    CHECK(b.count(op));
  }
}
