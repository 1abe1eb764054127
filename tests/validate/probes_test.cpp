#include "validate/probes.hpp"

#include "engine/op_costs.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace ridge;

TEST_CASE("the depthwise probes are depthwise convs over the shapes of mobile networks") {
  const auto probes = validate::depthwise_probes();
  REQUIRE(probes.size() == 10);
  std::set<std::string> names;
  std::set<std::int64_t> kernels, sizes, strides;
  for (const ir::Network& net : probes) {
    INFO(net.name);
    names.insert(net.name);
    const auto grads = engine::grad_flags(net);
    REQUIRE(net.layers.size() == 4);   // the input and three convs
    for (std::size_t i = 1; i < net.layers.size(); ++i) {
      const ir::Layer& layer = net.layers[i];
      const engine::OpCost c = engine::op_cost(net, layer, 8, ir::Precision::FP32, grads[i]);
      CHECK(c.op_class == (layer.attrs.ints("kernel").at(0) == 3 ? ir::OpClass::Depthwise : ir::OpClass::DepthwiseLarge));
      CHECK(layer.attrs.i("groups") == net.layers[i - 1].output.at(0));   // one input channel per group
      kernels.insert(layer.attrs.ints("kernel").at(0));
      strides.insert(layer.attrs.ints("stride").at(0));
      sizes.insert(net.layers[i - 1].output.at(1));
      CHECK(c.backward.flops > 0);
    }
    // The first conv's input is the network's: its backward is the weight gradient alone, half the
    // second's work per output element at stride 1 (the engine's count; calibrate times it so too).
    const engine::OpCost first = engine::op_cost(net, net.layers[1], 8, ir::Precision::FP32, grads[1]);
    CHECK(first.backward.flops == Approx(first.forward.flops));
  }
  CHECK(names.size() == probes.size());
  CHECK(kernels == std::set<std::int64_t>{3, 5});
  CHECK(strides == std::set<std::int64_t>{1, 2});
  CHECK(*sizes.begin() <= 7);
  CHECK(*sizes.rbegin() == 112);
}
