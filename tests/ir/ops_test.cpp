#include "ir/ops.hpp"

#include <catch2/catch.hpp>

using namespace ridge::ir;

namespace {
Attrs conv_attrs(std::int64_t out, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t g = 1) {
  Attrs a;
  a.out = out;
  a.kernel = {k, k};
  a.stride = {s, s};
  a.padding = {p, p};
  a.groups = g;
  return a;
}
}  // namespace

TEST_CASE("conv output size follows PyTorch's formula") {
  // AlexNet's first conv: 224 -> floor((224 + 4 - 11) / 4) + 1 = 55 (torchvision alexnet).
  CHECK(infer_shape(Op::Conv, conv_attrs(64, 11, 4, 2), {{3, 224, 224}}) == Shape{64, 55, 55});
  // ResNet stem: 224 -> 112.
  CHECK(infer_shape(Op::Conv, conv_attrs(64, 7, 2, 3), {{3, 224, 224}}) == Shape{64, 112, 112});
}

TEST_CASE("ceil-mode pooling matches PyTorch, including the last-window rule") {
  Attrs a;
  a.kernel = {3, 3};
  a.stride = {2, 2};
  a.ceil_mode = true;
  // GoogLeNet: 112 -> ceil((112 - 3) / 2) + 1 = 56; SqueezeNet: 55 -> 27 (both per torchvision).
  CHECK(infer_shape(Op::MaxPool, a, {{64, 112, 112}}) == Shape{64, 56, 56});
  CHECK(infer_shape(Op::MaxPool, a, {{96, 55, 55}}) == Shape{96, 27, 27});
  a.ceil_mode = false;
  CHECK(infer_shape(Op::MaxPool, a, {{64, 112, 112}}) == Shape{64, 55, 55});
}

TEST_CASE("shape errors say what is wrong") {
  CHECK_THROWS_WITH(infer_shape(Op::Conv, conv_attrs(64, 3, 1, 0, 4), {{6, 8, 8}}),
                    Catch::Contains("not divisible by groups"));
  CHECK_THROWS_WITH(infer_shape(Op::Conv, conv_attrs(64, 9, 1, 0), {{3, 4, 4}}), Catch::Contains("larger than"));
  CHECK_THROWS_WITH(infer_shape(Op::Add, {}, {{3, 4, 4}, {5, 4, 4}}), Catch::Contains("broadcast"));
  CHECK_THROWS_WITH(infer_shape(Op::Add, {}, {{3, 4, 4}}), Catch::Contains("takes 2"));
  Attrs huge;
  huge.shape = {1 << 20, 1 << 20, 1 << 20};
  CHECK_THROWS_WITH(infer_shape(Op::Input, huge, {}), Catch::Contains("absurdly large"));
}

TEST_CASE("parameters are counted as torch counts them") {
  Layer conv;
  conv.op = Op::Conv;
  conv.attrs = conv_attrs(64, 3, 1, 1);
  conv.attrs.bias = true;
  CHECK(parameter_count(conv, {{3, 32, 32}}) == 64 * 3 * 9 + 64);
  conv.attrs.groups = 32;   // depthwise-style grouping divides the input channels
  conv.attrs.bias = false;
  CHECK(parameter_count(conv, {{32, 8, 8}}) == 64 * 1 * 9);
  Layer bn;
  bn.op = Op::BatchNorm;
  CHECK(parameter_count(bn, {{64, 8, 8}}) == 128);   // running stats are buffers
}

TEST_CASE("slice, concat and flatten shapes") {
  Attrs s;
  s.start = 58;
  s.size = 58;
  CHECK(infer_shape(Op::Slice, s, {{116, 28, 28}}) == Shape{58, 28, 28});
  CHECK(infer_shape(Op::Concat, {}, {{58, 28, 28}, {58, 28, 28}}) == Shape{116, 28, 28});
  CHECK(infer_shape(Op::Flatten, {}, {{512, 1, 1}}) == Shape{512});
}
