#include "validate/probes.hpp"

#include "engine/op_costs.hpp"
#include "lang/ir/ops.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace ridge;

TEST_CASE("the kernel probes cover the classes the classic CNNs lack") {
  const auto probes = validate::kernel_probes();
  REQUIRE(probes.size() == 16);
  std::set<std::string> names, ops;
  std::set<ir::OpClass> classes;
  std::set<std::int64_t> kernels, sizes, strides, pointwise_sizes;
  for (const ir::Network& net : probes) {
    INFO(net.name);
    names.insert(net.name);
    const auto grads = engine::grad_flags(net);
    for (std::size_t i = 1; i < net.layers.size(); ++i) {
      const ir::Layer& layer = net.layers[i];
      const engine::OpCost c = engine::op_cost(net, layer, 8, ir::Precision::FP32, grads[i]);
      classes.insert(c.op_class);
      ops.insert(std::string(ir::spec(layer.op).name));
      CHECK(c.backward.flops > 0);   // every layer gets a gradient: the convs have weights
      if (c.op_class == ir::OpClass::Depthwise || c.op_class == ir::OpClass::DepthwiseLarge) {
        CHECK(layer.attrs.i("groups") == net.layers[i - 1].output.at(0));   // one input channel per group
        CHECK((c.op_class == ir::OpClass::Depthwise) == (layer.attrs.ints("kernel").at(0) == 3));
        kernels.insert(layer.attrs.ints("kernel").at(0));
        strides.insert(layer.attrs.ints("stride").at(0));
        sizes.insert(net.layers[i - 1].output.at(1));
      }
      if (c.op_class == ir::OpClass::Pointwise) {   // dense 1x1: four times the channels, then back
        CHECK(layer.attrs.ints("kernel") == std::vector<std::int64_t>{1, 1});
        CHECK(layer.attrs.i("groups") == 1);
        const std::int64_t in = net.layers[i - 1].output.at(0), out = layer.output.at(0);
        CHECK((out == 4 * in || 4 * out == in));
        pointwise_sizes.insert(layer.output.at(1));
      }
    }
    // The first conv's input is the network's: its backward is the weight gradient alone.
    const engine::OpCost first = engine::op_cost(net, net.layers[1], 8, ir::Precision::FP32, grads[1]);
    CHECK(first.backward.flops == Approx(first.forward.flops));
    // It ends in a global average pool: one value per channel.
    CHECK(net.layers.back().output == ir::Shape{net.layers.front().output.at(0), 1, 1});
  }
  CHECK(names.size() == probes.size());
  CHECK(classes == std::set<ir::OpClass>{ir::OpClass::Depthwise, ir::OpClass::DepthwiseLarge, ir::OpClass::Reduction,
                                         ir::OpClass::Pointwise});
  CHECK(ops == std::set<std::string>{"conv", "adaptive_avgpool"});
  CHECK(kernels == std::set<std::int64_t>{3, 5});
  CHECK(strides == std::set<std::int64_t>{1, 2});
  CHECK(*sizes.begin() <= 7);
  CHECK(*sizes.rbegin() == 112);
  CHECK(pointwise_sizes == std::set<std::int64_t>{7, 14, 28, 56, 112});
}
