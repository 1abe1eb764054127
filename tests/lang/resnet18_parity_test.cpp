// models/resnet18.net and testing::resnet18_from_builder() must elaborate to the same IR.
#include "tests/ir/resnet18_builder.hpp"
#include "tests/lang/lang_test_util.hpp"

#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {

std::string describe(const ir::Layer& l) {
  std::string s = l.name;
  s.append(" (").append(ir::op_name(l.op)).append(", inputs");
  // append() rather than " " + to_string(): GCC 12 -O2 warns -Wrestrict on that (GCC bug 105329).
  for (auto i : l.inputs) s.append(" ").append(std::to_string(i));
  return s + ", output " + ir::to_string(l.output) + ")";
}

// The first layer where the two differ, in words; empty when they are equal.
std::string first_difference(const ir::Network& text, const ir::Network& cpp) {
  const std::size_t n = std::min(text.layers.size(), cpp.layers.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(text.layers[i] == cpp.layers[i]))
      return "layer " + std::to_string(i) + ": text has " + describe(text.layers[i]) + ", C++ has " +
             describe(cpp.layers[i]) + (text.layers[i].attrs == cpp.layers[i].attrs ? "" : " (attributes differ)");
  if (text.layers.size() != cpp.layers.size())
    return "text has " + std::to_string(text.layers.size()) + " layers, C++ has " + std::to_string(cpp.layers.size());
  if (text.name != cpp.name) return "names differ: " + text.name + " vs " + cpp.name;
  if (text.output != cpp.output) return "outputs differ";
  return {};
}

}  // namespace

TEST_CASE("resnet18.net elaborates to the same IR as the C++ builder, layer by layer") {
  const ir::Network text = lang::load_network(RIDGE_MODELS_DIR "/resnet18.net");
  const ir::Network cpp = testing::resnet18_from_builder();
  INFO(first_difference(text, cpp));
  CHECK(first_difference(text, cpp).empty());
  CHECK(text == cpp);
}

TEST_CASE("resnet18.net matches torchvision's parameter count and output shape") {
  const ir::Network net = lang::load_network(RIDGE_MODELS_DIR "/resnet18.net");
  // torchvision.models.resnet18: 11,689,512 parameters (torchvision model docs, ResNet18_Weights.IMAGENET1K_V1).
  CHECK(test::total_parameters(net) == 11'689'512);
  CHECK(net.layers[net.output].output == ir::Shape{1000});
}

TEST_CASE("every layer of resnet18.net records where it was written") {
  const ir::Network net = lang::load_network(RIDGE_MODELS_DIR "/resnet18.net");
  for (const auto& l : net.layers) CHECK_THAT(l.origin, Catch::StartsWith(RIDGE_MODELS_DIR "/resnet18.net:"));
  CHECK(net.layers[1].origin == RIDGE_MODELS_DIR "/resnet18.net:18:12");   // the stem's conv
}
