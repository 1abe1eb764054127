// ONNX attribute defaults, pinned to the operator specification (https://onnx.ai/onnx/operators/):
// tiny graphs built through the ONNX protobuf API, each imported with and without the attribute, and
// checked by what a user sees (the output shape, the parameter count, the layer's attributes, MACs).
// tests/mutation/mutations.txt's ox-gemm-transb, ox-conv-transpose-out, ox-layernorm-axis,
// ox-same-upper and ox-reduce-keepdims each fail one of these.
#include "tests/onnx/onnx_test_util.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace ridge;
using onnx_test::count_of;
using onnx_test::error_of;
using onnx_test::import;
using onnx_test::initializer;
using onnx_test::int64_initializer;
using onnx_test::int_attribute;
using onnx_test::ints_attribute;
using onnx_test::model;
using onnx_test::node;
using onnx_test::output_shape;
using onnx_test::string_attribute;

namespace {

using Ints = std::vector<std::int64_t>;

// The one layer of this op in the network.
const ir::Layer& only(const ir::Network& net, std::string_view op) {
  const ir::Layer* found = nullptr;
  int count = 0;
  for (const auto& l : net.layers)
    if (ir::spec(l.op).name == op) {
      found = &l;
      ++count;
    }
  INFO("layers of op '" << op << "'");
  REQUIRE(count == 1);
  return *found;
}

}  // namespace

// Gemm: transA = 0, transB = 0, alpha = beta = 1 (Y = A B + C with A [M, K], B [K, N]); with
// transB = 1, B is [N, K]. B here is not square, so reading it the wrong way round cannot fit.
TEST_CASE("Gemm without transB reads B as [K, N] (ONNX default transB = 0), transB = 1 reads it as [N, K]") {
  constexpr std::int64_t K = 8, N = 5;
  SECTION("no transB: B [K, N]") {
    auto m = model({K});
    initializer(m, "fc.weight", {K, N});
    node(m, "Gemm", {"x", "fc.weight"}, {"y"});
    const auto net = import(m);
    const auto& fc = only(net, "linear");
    CHECK(fc.attrs.i("out") == N);
    CHECK_FALSE(fc.attrs.b("bias"));
    CHECK(output_shape(net) == ir::Shape{N});
    CHECK(onnx_test::total_parameters(net) == K * N);
    CHECK(onnx_test::engine_macs(net) == K * N);
  }
  SECTION("no transB, with C: the bias is N wide") {
    auto m = model({K});
    initializer(m, "fc.weight", {K, N});
    initializer(m, "fc.bias", {N});
    node(m, "Gemm", {"x", "fc.weight", "fc.bias"}, {"y"});
    const auto net = import(m);
    CHECK(output_shape(net) == ir::Shape{N});
    CHECK(onnx_test::total_parameters(net) == K * N + N);
  }
  SECTION("transB = 1: B [N, K]") {
    auto m = model({K});
    initializer(m, "fc.weight", {N, K});
    int_attribute(node(m, "Gemm", {"x", "fc.weight"}, {"y"}), "transB", 1);
    const auto net = import(m);
    CHECK(only(net, "linear").attrs.i("out") == N);
    CHECK(output_shape(net) == ir::Shape{N});
    CHECK(onnx_test::total_parameters(net) == K * N);
  }
  SECTION("an explicit transB = 0 is the default; B [N, K] then does not fit") {
    auto m = model({K});
    initializer(m, "fc.weight", {K, N});
    int_attribute(node(m, "Gemm", {"x", "fc.weight"}, {"y"}), "transB", 0);
    CHECK(output_shape(import(m)) == ir::Shape{N});
    auto wrong = model({K});
    initializer(wrong, "fc.weight", {N, K});
    node(wrong, "Gemm", {"x", "fc.weight"}, {"y"});
    CHECK_THAT(error_of(wrong), Catch::Contains("does not fit"));
  }
  SECTION("no transA imports (default 0); transA = 1 is refused") {
    auto m = model({K});
    initializer(m, "fc.weight", {N, K});
    int_attribute(node(m, "Gemm", {"x", "fc.weight"}, {"y"}), "transA", 1);
    CHECK_THAT(error_of(m), Catch::Contains("transA is not supported"));
  }
}

// ConvTranspose: W is [C, M / group, kH, kW] and the output has M = W.shape[1] x group channels;
// group defaults to 1. Output size = stride (in - 1) + output_padding + (k - 1) dilation + 1 - pads.
TEST_CASE("a grouped ConvTranspose has W.shape[1] x group output channels (ONNX)") {
  constexpr std::int64_t C = 4, M_per_group = 4, k = 3;
  SECTION("group 2") {
    auto m = model({C, 5, 5});
    initializer(m, "up.weight", {C, M_per_group, k, k});
    int_attribute(node(m, "ConvTranspose", {"x", "up.weight"}, {"y"}), "group", 2);
    const auto net = import(m);
    const auto& up = only(net, "conv_transpose");
    CHECK(up.attrs.i("out") == M_per_group * 2);
    CHECK(up.attrs.i("groups") == 2);
    CHECK(output_shape(net) == ir::Shape{M_per_group * 2, 7, 7});
    CHECK(onnx_test::total_parameters(net) == C * M_per_group * k * k);   // W's elements
  }
  SECTION("group 2, stride 2, with a bias of M") {
    auto m = model({C, 5, 5});
    initializer(m, "up.weight", {C, M_per_group, k, k});
    initializer(m, "up.bias", {M_per_group * 2});
    auto* n = node(m, "ConvTranspose", {"x", "up.weight", "up.bias"}, {"y"});
    int_attribute(n, "group", 2);
    ints_attribute(n, "strides", {2, 2});
    const auto net = import(m);
    CHECK(output_shape(net) == ir::Shape{M_per_group * 2, 11, 11});   // 2 * (5 - 1) + 3
    CHECK(onnx_test::total_parameters(net) == C * M_per_group * k * k + M_per_group * 2);
  }
  SECTION("no group: group 1, M = W.shape[1]") {
    auto m = model({C, 5, 5});
    initializer(m, "up.weight", {C, M_per_group, k, k});
    node(m, "ConvTranspose", {"x", "up.weight"}, {"y"});
    const auto net = import(m);
    CHECK(only(net, "conv_transpose").attrs.i("groups") == 1);
    CHECK(output_shape(net) == ir::Shape{M_per_group, 7, 7});
    CHECK(onnx_test::total_parameters(net) == C * M_per_group * k * k);
  }
}

// LayerNormalization: axis = -1, normalising over the last axis only; Scale and B have the shape
// of the normalised axes.
TEST_CASE("LayerNormalization without axis normalises the last axis only (ONNX default axis = -1)") {
  // x is [batch, 3, 4, 6]: the last axis is 6 wide, axes 1.. are 3 * 4 * 6 = 72.
  const auto layer_norm = [](std::optional<std::int64_t> axis, Ints norm_shape) {
    auto m = model({3, 4, 6});
    initializer(m, "ln.weight", norm_shape);
    initializer(m, "ln.bias", norm_shape);
    auto* n = node(m, "LayerNormalization", {"x", "ln.weight", "ln.bias"}, {"y"});
    if (axis) int_attribute(n, "axis", *axis);
    return import(m);
  };
  SECTION("no axis") {
    const auto net = layer_norm(std::nullopt, {6});
    const auto& ln = only(net, "layernorm");
    CHECK(ln.attrs.i("dims") == 1);
    CHECK(ln.attrs.b("affine"));
    CHECK(ln.attrs.b("bias"));
    CHECK(output_shape(net) == ir::Shape{3, 4, 6});
    CHECK(onnx_test::total_parameters(net) == 2 * 6);   // Scale and B of [6]
  }
  SECTION("axis = -1 said explicitly is the same") {
    const auto net = layer_norm(-1, {6});
    CHECK(only(net, "layernorm").attrs.i("dims") == 1);
    CHECK(onnx_test::total_parameters(net) == 2 * 6);
  }
  SECTION("axis = 1 normalises everything but the batch") {
    const auto net = layer_norm(1, {3, 4, 6});
    CHECK(only(net, "layernorm").attrs.i("dims") == 3);
    CHECK(onnx_test::total_parameters(net) == 2 * 72);
  }
  SECTION("axis = -2 normalises the last two axes") {
    const auto net = layer_norm(-2, {4, 6});
    CHECK(only(net, "layernorm").attrs.i("dims") == 2);
    CHECK(onnx_test::total_parameters(net) == 2 * 24);
  }
}

// auto_pad: NOTSET by default (explicit pads, 0 if none). SAME_UPPER and SAME_LOWER pad so that
// out = ceil(in / stride), with total = (out - 1) stride + (k - 1) dilation + 1 - in; an odd total's
// extra pixel goes at the end for SAME_UPPER, at the beginning for SAME_LOWER. Ridge's conv pads
// symmetrically, so an asymmetric pair becomes a pad layer in front of the conv (F.pad order: the
// last axis first, before then after) and the conv's own pad is 0.
TEST_CASE("auto_pad SAME_UPPER puts an odd padding's extra pixel at the end, SAME_LOWER at the beginning (ONNX)") {
  // in 8, stride 2, k 3: out = ceil(8 / 2) = 4, total = 3 * 2 + 3 - 8 = 1.
  const auto conv = [](const std::string& auto_pad, std::int64_t in) {
    auto m = model({3, in, in});
    initializer(m, "conv.weight", {16, 3, 3, 3});
    auto* n = node(m, "Conv", {"x", "conv.weight"}, {"y"});
    ints_attribute(n, "strides", {2, 2});
    if (!auto_pad.empty()) string_attribute(n, "auto_pad", auto_pad);
    return import(m);
  };
  SECTION("SAME_UPPER: 0 before, 1 after") {
    const auto net = conv("SAME_UPPER", 8);
    const auto& pad = only(net, "pad");
    CHECK(pad.attrs.ints("pad") == Ints{0, 1, 0, 1});   // W before, W after, H before, H after
    CHECK(pad.output == ir::Shape{3, 9, 9});
    CHECK(only(net, "conv").attrs.ints("pad") == Ints{0, 0});
    CHECK(output_shape(net) == ir::Shape{16, 4, 4});
  }
  SECTION("SAME_LOWER: 1 before, 0 after") {
    const auto net = conv("SAME_LOWER", 8);
    const auto& pad = only(net, "pad");
    CHECK(pad.attrs.ints("pad") == Ints{1, 0, 1, 0});
    CHECK(pad.output == ir::Shape{3, 9, 9});
    CHECK(only(net, "conv").attrs.ints("pad") == Ints{0, 0});
    CHECK(output_shape(net) == ir::Shape{16, 4, 4});
  }
  SECTION("an even total is split evenly, into the conv's own pad") {
    // in 7: out = ceil(7 / 2) = 4, total = 3 * 2 + 3 - 7 = 2.
    for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
      CAPTURE(mode);
      const auto net = conv(mode, 7);
      CHECK(count_of(net, "pad") == 0);
      CHECK(only(net, "conv").attrs.ints("pad") == Ints{1, 1});
      CHECK(output_shape(net) == ir::Shape{16, 4, 4});
    }
  }
  SECTION("no auto_pad is NOTSET: no padding without pads") {
    const auto net = conv("", 8);
    CHECK(count_of(net, "pad") == 0);
    CHECK(only(net, "conv").attrs.ints("pad") == Ints{0, 0});
    CHECK(output_shape(net) == ir::Shape{16, 3, 3});   // floor((8 - 3) / 2) + 1
  }
  SECTION("VALID: no padding") {
    const auto net = conv("VALID", 8);
    CHECK(count_of(net, "pad") == 0);
    CHECK(output_shape(net) == ir::Shape{16, 3, 3});
  }
}

// ReduceMean, ReduceSum, ReduceMax: keepdims = 1, the reduced axes kept with size 1. (Opset 17:
// ReduceMean and ReduceMax take axes as an attribute, ReduceSum as input 1.)
TEST_CASE("Reduce ops without keepdims keep the reduced axis with size 1 (ONNX default keepdims = 1)") {
  // x is [batch, 3, 8, 8]; ONNX axis 2 is the per-sample axis 1.
  const auto reduce = [](const std::string& op, std::optional<std::int64_t> keepdims, Ints axes = {2}) {
    auto m = model({3, 8, 8});
    onnx::NodeProto* n = nullptr;
    if (op == "ReduceSum") {
      int64_initializer(m, "axes", axes);
      n = node(m, op, {"x", "axes"}, {"y"});
    } else {
      n = node(m, op, {"x"}, {"y"});
      ints_attribute(n, "axes", axes);
    }
    if (keepdims) int_attribute(n, "keepdims", *keepdims);
    return import(m);
  };
  for (const auto& [op, ridge_op] : {std::pair<std::string, std::string>{"ReduceMean", "mean"}, {"ReduceSum", "sum"},
                                     {"ReduceMax", "amax"}}) {
    CAPTURE(op);
    const auto kept = reduce(op, std::nullopt);
    CHECK(only(kept, ridge_op).attrs.b("keepdim"));
    CHECK(output_shape(kept) == ir::Shape{3, 1, 8});
    CHECK(output_shape(reduce(op, 1)) == ir::Shape{3, 1, 8});
    const auto dropped = reduce(op, 0);
    CHECK_FALSE(only(dropped, ridge_op).attrs.b("keepdim"));
    CHECK(output_shape(dropped) == ir::Shape{3, 8});
  }
  SECTION("a ReduceMean over every spatial axis is a global average pool, and keeps them too") {
    const auto kept = reduce("ReduceMean", std::nullopt, {2, 3});
    CHECK(count_of(kept, "adaptive_avgpool") == 1);
    CHECK(output_shape(kept) == ir::Shape{3, 1, 1});
    CHECK(output_shape(reduce("ReduceMean", 0, {2, 3})) == ir::Shape{3});
  }
}

// Slice with a step other than 1 (ONNX Slice-13): a negative step walks down from start, clamped to
// [0, dim - 1], to end, clamped to [-1, dim - 1]; torch.onnx writes F.pad's computed pads reversed
// that way (starts -1, ends -2^63 + 1, step -1: torchvision's Swin). Values known at import (here a
// reshape target) slice with any step; the network's tensors only with a positive step
// (tests/onnx/window_attention_test.cpp).
TEST_CASE("Slice of a known value takes any step, a negative step walks down (ONNX Slice-13)") {
  // x is [batch, 3, 8, 8] (192 per sample); the target is sliced out of a constant list.
  const auto reshaped = [](const Ints& list, std::int64_t start, std::int64_t end, std::int64_t step) {
    auto m = model({3, 8, 8});
    int64_initializer(m, "list", list);
    int64_initializer(m, "starts", {start});
    int64_initializer(m, "ends", {end});
    int64_initializer(m, "axes", {0});
    int64_initializer(m, "steps", {step});
    node(m, "Slice", {"list", "starts", "ends", "axes", "steps"}, {"shape"}, "sl");
    node(m, "Reshape", {"x", "shape"}, {"y"}, "rs");
    return output_shape(import(m));
  };
  // [16, 12, -1] reversed is [-1, 12, 16]: per sample [12, 16].
  CHECK(reshaped({16, 12, -1}, -1, -9223372036854775807LL, -1) == ir::Shape{12, 16});
  // Every second entry of [-1, 7, 24, 9, 8]: [-1, 24, 8].
  CHECK(reshaped({-1, 7, 24, 9, 8}, 0, 5, 2) == ir::Shape{24, 8});
  // Every second entry walking down, start 100 clamped to the last (4) and end -100 to -1 (past the
  // first): indices 4, 2, 0 of [8, 9, 24, 7, -1] are [-1, 24, 8].
  CHECK(reshaped({8, 9, 24, 7, -1}, 100, -100, -2) == ir::Shape{24, 8});
  // A step of 0 is no slice at all.
  CHECK_THROWS_WITH(reshaped({16, 12, -1}, 0, 3, 0), Catch::Contains("step 0"));
  // The network's own tensors are not walked down.
  auto m = model({3, 8, 8});
  int64_initializer(m, "starts", {0});
  int64_initializer(m, "ends", {3});
  int64_initializer(m, "axes", {2});
  int64_initializer(m, "steps", {-1});
  node(m, "Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, "sl");
  CHECK_THAT(error_of(m), Catch::Contains("sl") && Catch::Contains("with step -1"));
}
