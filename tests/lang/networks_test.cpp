// Parse + elaborate small networks of each shape the language must express, checking output
// shapes and parameter counts against figures derived by hand from torch.nn's definitions.
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {

const ir::Layer& layer(const ir::Network& n, const std::string& name) {
  for (const auto& l : n.layers)
    if (l.name == name) return l;
  FAIL("no layer named " << name);
  throw;
}

bool has_layer(const ir::Network& n, const std::string& name) {
  for (const auto& l : n.layers)
    if (l.name == name) return true;
  return false;
}

}  // namespace

TEST_CASE("a plain chain (the PyTorch CIFAR-10 tutorial's LeNet) has 62,006 parameters") {
  const ir::Network n = lang::parse_network(R"(
network lenet(classes = 10) {
  input x: [3, 32, 32]
  return x -> conv(6, 5) -> relu -> maxpool(2) -> conv(16, 5) -> relu -> maxpool(2)
           -> flatten -> linear(120) -> relu -> linear(84) -> relu -> linear(classes)
})", "lenet.net");
  // PyTorch "Training a Classifier" tutorial Net: 456 + 2,416 + 48,120 + 10,164 + 850 = 62,006.
  CHECK(test::total_parameters(n) == 62'006);
  CHECK(n.layers[n.output].output == ir::Shape{10});
  CHECK(layer(n, "maxpool2").output == ir::Shape{16, 5, 5});
  CHECK(layer(n, "linear3").attrs.i("out") == 10);
  CHECK(n.layers.size() == 13);
}

TEST_CASE("docs/language.md's residual example elaborates with blocks, loops, labels and make_divisible") {
  const std::string text = R"(
# ResNet-style residual block, then a tiny network using it.
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
  // stem 432 + bn 32; basic1 (16->32, stride 2, projection) 4,608+64+9,216+64+512+64 = 14,528;
  // basic2 and basic3 (32->32) 9,216+64+9,216+64 = 18,560 each; linear 32*10+10 = 330.
  CHECK(test::total_parameters(n) == 432 + 32 + 14'528 + 2 * 18'560 + 330);
  CHECK(n.layers[n.output].output == ir::Shape{10});
  CHECK(has_layer(n, "stem"));
  CHECK(has_layer(n, "batchnorm1"));
  CHECK(has_layer(n, "basic1.conv3"));     // the projection
  CHECK_FALSE(has_layer(n, "basic2.conv3"));
  CHECK(layer(n, "basic3.relu2").output == ir::Shape{32, 16, 16});
  CHECK(layer(n, "stem").origin == "tiny.net:15:12");
}

TEST_CASE("a branching network joins an inception module's four branches with concat") {
  // torchvision GoogLeNet's inception3a (192 -> 64 + 128 + 32 + 32 channels at 28x28), BasicConv2d =
  // conv (no bias) + batchnorm (eps 0.001) + relu; torchvision uses 3x3 where the paper has 5x5.
  const ir::Network n = lang::parse_network(R"(
block basic_conv(x, out, kernel, pad = 0) {
  return x -> conv(out, kernel, pad: pad, bias: false) -> batchnorm(eps: 0.001) -> relu
}
block inception(x, c1, c3r, c3, c5r, c5, pool) {
  a = basic_conv(x, c1, 1)
  b = x -> basic_conv(c3r, 1) -> basic_conv(c3, 3, pad: 1)
  c = x -> basic_conv(c5r, 1) -> basic_conv(c5, 3, pad: 1)
  d = x -> maxpool(3, stride: 1, pad: 1, ceil: true) -> basic_conv(pool, 1)
  return concat(a, b, c, d)
}
network module {
  input x: [192, 28, 28]
  return inception(x, 64, 96, 128, 16, 32, 32) as inception3a
})", "inception.net");
  // a: 192*64 + 128 = 12,416; b: 192*96 + 192 + 96*128*9 + 256 = 129,472;
  // c: 192*16 + 32 + 16*32*9 + 64 = 7,776; d: 192*32 + 64 = 6,208. Total 155,872.
  CHECK(test::total_parameters(n) == 155'872);
  CHECK(n.layers[n.output].output == ir::Shape{256, 28, 28});
  CHECK(layer(n, "inception3a.basic_conv3.conv1").attrs.ints("kernel") == std::vector<std::int64_t>{3, 3});
  CHECK(layer(n, "inception3a.basic_conv1.batchnorm1").attrs.r("eps") == 0.001);
  CHECK(n.layers[n.output].name == "inception3a.concat1");
  CHECK(n.layers[n.output].inputs.size() == 4);
}

TEST_CASE("a depthwise convolution with squeeze-excite (MobileNetV3 block) has the expected parameters") {
  const ir::Network n = lang::parse_network(R"(
block squeeze_excite(x, squeeze) {
  s = x -> adaptive_avgpool(1) -> conv(squeeze, 1) -> relu -> conv(channels(x), 1) -> hardsigmoid
  return mul(x, s)
}
network mbv3_block(expand = 64) {
  input x: [16, 56, 56]
  y = x -> conv(expand, 1, bias: false) -> batchnorm -> relu
        -> conv(expand, 3, pad: 1, groups: expand, bias: false) -> batchnorm -> relu
  y = squeeze_excite(y, make_divisible(expand / 4, 8))
  return y -> conv(24, 1, bias: false) -> batchnorm
})", "mbv3.net");
  // expand 16*64 + 128 = 1,152; depthwise 64*9 + 128 = 704; SE (torchvision SqueezeExcitation,
  // squeeze = _make_divisible(64 // 4, 8) = 16): 64*16+16 + 16*64+64 = 2,128; project 64*24 + 48 = 1,584.
  CHECK(test::total_parameters(n) == 1'152 + 704 + 2'128 + 1'584);
  CHECK(n.layers[n.output].output == ir::Shape{24, 56, 56});
  CHECK(layer(n, "squeeze_excite1.mul1").output == ir::Shape{64, 56, 56});
  CHECK(layer(n, "conv2").attrs.i("groups") == 64);
}

TEST_CASE("a ShuffleNetV2 unit splits, shuffles and concatenates channels") {
  const ir::Network n = lang::parse_network(R"(
network shuffle_unit(c = 116) {
  input x: [c, 28, 28]
  a, b = split(x, 2)
  b = b -> conv(c / 2, 1, bias: false) -> batchnorm -> relu
        -> conv(c / 2, 3, pad: 1, groups: c / 2, bias: false) -> batchnorm
        -> conv(c / 2, 1, bias: false) -> batchnorm -> relu
  return concat(a, b) -> channel_shuffle(2)
})", "shuffle.net");
  // torchvision shufflenet_v2 InvertedResidual(116, 116, stride 1), branch2:
  // 58*58 + 116 + 58*9 + 116 + 58*58 + 116 = 7,598.
  CHECK(test::total_parameters(n) == 7'598);
  CHECK(n.layers[n.output].output == ir::Shape{116, 28, 28});
  CHECK(layer(n, "slice1").attrs.i("start") == 0);
  CHECK(layer(n, "slice2").attrs.i("start") == 58);
  CHECK(layer(n, "slice2").output == ir::Shape{58, 28, 28});
  CHECK(layer(n, "channel_shuffle1").attrs.i("groups") == 2);
}

TEST_CASE("split follows torch.chunk, takes explicit sizes, and names labelled pieces") {
  const ir::Network n = lang::parse_network(R"(
network pieces {
  input x: [10, 4, 4]
  p = split(x, 3)                        # torch.chunk(10, 3): 4, 4, 2
  q = split(x, [2, 8]) as parts
  return concat(p, q, axis: 0)
})", "split.net");
  CHECK(layer(n, "slice3").output == ir::Shape{2, 4, 4});
  CHECK(layer(n, "parts.1").attrs.i("start") == 2);
  CHECK(layer(n, "parts.1").output == ir::Shape{8, 4, 4});
  CHECK(n.layers[n.output].output == ir::Shape{20, 4, 4});
}

TEST_CASE("expressions follow docs/language.md's precedence and torchvision's make_divisible") {
  const auto value = [](const std::string& expr) {
    const ir::Network n = lang::parse_network("network e {\n input x: [1]\n v = " + expr +
                                                  "\n return x -> linear(v)\n}", "expr.net");
    return n.layers[n.output].attrs.i("out");
  };
  CHECK(value("1 + 2 * 3") == 7);
  CHECK(value("(1 + 2) * 3") == 9);
  CHECK(value("7 // 2 + 7 % 4") == 6);
  CHECK(value("-7 // 2 + 10") == 6);          // floors: -4
  CHECK(value("-7 % 3") == 2);                // floored remainder
  CHECK(value("1 < 2 && 2 < 3 ? 5 : 6") == 5);
  CHECK(value("false ? 1 : true ? 2 : 3") == 2);
  CHECK(value("!(1 == 1) || 2 >= 3 ? 1 : 4") == 4);
  CHECK(value("10 - 2 - 3") == 5);
  CHECK(value("min(4, 2, 9) + max(1, 3)") == 5);
  CHECK(value("int(2.9) + floor(2.5) + ceil(2.1) + round(2.5) + abs(-1)") == 2 + 2 + 3 + 2 + 1);
  // torchvision _make_divisible: (32 * 0.75, 8) -> 24; (10, 8) -> 16 (8 would be > 10% below 10);
  // (3, 8) -> 8 (min_value); (37, 8, min_value: 48) -> 48.
  CHECK(value("make_divisible(32 * 0.75, 8)") == 24);
  CHECK(value("make_divisible(10, 8)") == 16);
  CHECK(value("make_divisible(3, 8)") == 8);
  CHECK(value("make_divisible(37, 8, min_value: 48)") == 48);
  CHECK(value("len([1, 2, 3]) + dim(x, 0)") == 4);
}

TEST_CASE("names that start with a keyword are names, and comments run to the end of the line") {
  const ir::Network n = lang::parse_network(R"(# leading comment
network kw {   # comment after a brace
  input inputs: [4]
  in_features = 4   # `in` and `input` are keywords; these are not
  format = 2
  return inputs -> linear(in_features * format)
})", "kw.net");
  CHECK(n.layers[n.output].output == ir::Shape{8});
}
