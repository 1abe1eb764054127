#include "lang/ir/ops.hpp"

#include <catch2/catch.hpp>

using namespace ridge::ir;

namespace {
Attrs conv_attrs(std::int64_t out, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t g = 1) {
  return {{"out", out}, {"kernel", k}, {"stride", s}, {"pad", p}, {"groups", g}};
}
// The arguments given, bound through the op's spec row (defaults filled in), then the shape.
Shape shape_of(std::string_view name, const Attrs& given, const std::vector<Shape>& in) {
  return infer_shape(op(name), bind_attrs(spec(op(name)), given, in), in);
}
Layer layer_of(std::string_view name, const Attrs& given, const std::vector<Shape>& in) {
  Layer l;
  l.op = op(name);
  l.attrs = bind_attrs(spec(l.op), given, in);
  return l;
}
}  // namespace

TEST_CASE("conv output size follows PyTorch's formula") {
  // AlexNet's first conv: 224 -> floor((224 + 4 - 11) / 4) + 1 = 55 (torchvision alexnet).
  CHECK(shape_of("conv", conv_attrs(64, 11, 4, 2), {{3, 224, 224}}) == Shape{64, 55, 55});
  // ResNet stem: 224 -> 112.
  CHECK(shape_of("conv", conv_attrs(64, 7, 2, 3), {{3, 224, 224}}) == Shape{64, 112, 112});
}

TEST_CASE("ceil-mode pooling matches PyTorch, including the last-window rule") {
  Attrs a{{"kernel", 3}, {"stride", 2}, {"ceil", true}};
  // GoogLeNet: 112 -> ceil((112 - 3) / 2) + 1 = 56; SqueezeNet: 55 -> 27 (both per torchvision).
  CHECK(shape_of("maxpool", a, {{64, 112, 112}}) == Shape{64, 56, 56});
  CHECK(shape_of("maxpool", a, {{96, 55, 55}}) == Shape{96, 27, 27});
  a.set("ceil", false);
  CHECK(shape_of("maxpool", a, {{64, 112, 112}}) == Shape{64, 55, 55});
}

TEST_CASE("shape errors say what is wrong") {
  CHECK_THROWS_WITH(shape_of("conv", conv_attrs(64, 3, 1, 0, 4), {{6, 8, 8}}),
                    Catch::Contains("not divisible by groups"));
  CHECK_THROWS_WITH(shape_of("conv", conv_attrs(64, 9, 1, 0), {{3, 4, 4}}), Catch::Contains("larger than"));
  CHECK_THROWS_WITH(shape_of("add", {}, {{3, 4, 4}, {5, 4, 4}}), Catch::Contains("broadcast"));
  CHECK_THROWS_WITH(shape_of("add", {}, {{3, 4, 4}}), Catch::Contains("needs argument 'b' (a tensor or a number)"));
  CHECK_THROWS_WITH(shape_of("matmul", {}, {{3, 4}}), Catch::Contains("takes 2"));
  Attrs huge{{"shape", std::vector<std::int64_t>{1 << 20, 1 << 20, 1 << 20}}};
  CHECK_THROWS_WITH(infer_shape(kInputOp, huge, {}), Catch::Contains("absurdly large"));
}

TEST_CASE("parameters are counted as torch counts them") {
  Attrs a = conv_attrs(64, 3, 1, 1);
  a.set("bias", true);
  CHECK(parameter_count(layer_of("conv", a, {{3, 32, 32}}), {{3, 32, 32}}) == 64 * 3 * 9 + 64);
  a.set("groups", std::int64_t{32});   // depthwise-style grouping divides the input channels
  a.set("bias", false);
  CHECK(parameter_count(layer_of("conv", a, {{32, 8, 8}}), {{32, 8, 8}}) == 64 * 1 * 9);
  const Layer bn = layer_of("batchnorm", {}, {{64, 8, 8}});
  CHECK(parameter_count(bn, {{64, 8, 8}}) == 128);   // running stats are buffers
}

TEST_CASE("slice, concat and flatten shapes") {
  const Attrs s{{"start", 58}, {"size", 58}};
  CHECK(shape_of("slice", s, {{116, 28, 28}}) == Shape{58, 28, 28});
  CHECK(shape_of("concat", {}, {{58, 28, 28}, {58, 28, 28}}) == Shape{116, 28, 28});
  CHECK(shape_of("flatten", {}, {{512, 1, 1}}) == Shape{512});
}
