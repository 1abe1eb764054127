#include "tests/ir/resnet18_builder.hpp"

#include "lang/ir/ops.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {
std::int64_t total_parameters(const ir::Network& n) {
  std::int64_t total = 0;
  for (const auto& l : n.layers) total += ir::parameter_count(l, ir::input_shapes(n, l));
  return total;
}
}  // namespace

TEST_CASE("ResNet-18 built in C++ has torchvision's parameter count and output shape") {
  const ir::Network net = testing::resnet18_from_builder();
  // torchvision.models.resnet18: 11,689,512 parameters (torchvision model docs, ResNet18_Weights).
  CHECK(total_parameters(net) == 11'689'512);
  CHECK(net.layers[net.output].output == ir::Shape{1000});
}

TEST_CASE("builder names layers per op within nested scopes") {
  const ir::Network net = testing::resnet18_from_builder();
  CHECK(net.layers[1].name == "conv1");
  CHECK(net.layers[2].name == "batchnorm1");
  bool found = false;
  for (const auto& l : net.layers) found = found || l.name == "basic1.conv1";
  CHECK(found);
}

TEST_CASE("builder rejects a channel mismatch with the layer's name") {
  lang::NetworkBuilder b("bad", {3, 8, 8});
  auto x = b.conv(b.input(), 4, 3);
  auto y = b.conv(b.input(), 5, 3);
  CHECK_THROWS_WITH(b.add(x, y), Catch::Contains("add1") && Catch::Contains("broadcast"));
}
