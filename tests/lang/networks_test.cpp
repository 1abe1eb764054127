#include "lang_test_util.hpp"
#include <catch2/catch.hpp>
using namespace ridge;
TEST_CASE("LANGUAGE.md's example network elaborates") {
  const std::string text = R"(
block basic(x, planes, stride = 1) {
  y = x -> conv(planes, 3, stride: stride, pad: 1, bias: false) -> batchnorm -> relu
        -> conv(planes, 3, pad: 1, bias: false) -> batchnorm
  if stride != 1 || channels(x) != planes {
    x = x -> conv(planes, 1, stride: stride, bias: false) -> batchnorm
  }
  return add(y, x) -> relu
}

network tiny(classes = 10, width = 1.0) {
  input x: [3, 32, 32]
  c = make_divisible(16 * width, 8)
  x = x -> conv(c, 3, pad: 1, bias: false) as stem -> batchnorm -> relu
  for i in 0 .. 3 {
    x = basic(x, c * 2, stride: i == 0 ? 2 : 1)
  }
  return x -> adaptive_avgpool(1) -> flatten -> linear(classes)
})";
  const ir::Network n = lang::parse_network(text, "tiny.net");
  CHECK(n.layers[n.output].output == ir::Shape{10});
}
