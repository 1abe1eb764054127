// What torchvision's Swin and MaxViT exports need of the importer (issue #38), on small graphs built
// through the ONNX protobuf API: a window partition that folds the batch into the windows
// ([B, 2, 4, 2, 4, C] to [B * 4, 16, C]) and unfolds it again, the attention between (the packed
// q/k/v moved so that the batch is on axis 1, then picked apart), strided slices (patch merging's
// x[..., 0::2, 1::2, :]), the shifted-window mask built from shapes alone (Range, ScatterND,
// Concat of constants), and a learned bias table read through fixed indices. Each figure below is
// worked out from the graph's own shapes.
#include "tests/onnx/onnx_test_util.hpp"

#include "engine/simulate.hpp"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace ridge;
using onnx_test::count_of;
using onnx_test::engine_macs;
using onnx_test::error_of;
using onnx_test::import;
using onnx_test::initializer;
using onnx_test::int64_initializer;
using onnx_test::int64_tensor;
using onnx_test::ints_attribute;
using onnx_test::int_attribute;
using onnx_test::model;
using onnx_test::node;
using onnx_test::output_shape;
using onnx_test::total_parameters;

namespace {

using Ints = std::vector<std::int64_t>;

// The per-sample shape of the layer named `name`.
ir::Shape shape_of(const ir::Network& net, const std::string& name) {
  for (const auto& l : net.layers)
    if (l.name == name) return l.output;
  FAIL("no layer named " << name);
  return {};
}

// x: [batch, 8, 8, 4], channels last. Windows of 4 x 4: [B, 2, 4, 2, 4, 4] -> [B, 2, 2, 4, 4, 4]
// -> [B * 4, 16, 4] (target [-1, 16, 4]), a linear 4 -> 6 (w: [4, 6]) -> [B * 4, 16, 6], then the
// windows back: [-1, 2, 2, 4, 4, 6] -> [B, 2, 4, 2, 4, 6] -> [B, 8, 8, 6].
onnx::ModelProto window_partition(bool static_batch) {
  auto m = model({8, 8, 4});
  if (static_batch) m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(1);
  int64_initializer(m, "split", {static_batch ? 1 : -1, 2, 4, 2, 4, 4});
  int64_initializer(m, "windows", {static_batch ? 4 : -1, 16, 4});
  int64_initializer(m, "back", {static_batch ? 1 : -1, 2, 2, 4, 4, 6});
  int64_initializer(m, "merged", {static_batch ? 1 : -1, 8, 8, 6});
  initializer(m, "w", {4, 6});
  node(m, "Reshape", {"x", "split"}, {"s"}, "split");
  ints_attribute(node(m, "Transpose", {"s"}, {"p"}, "partition"), "perm", {0, 1, 3, 2, 4, 5});
  node(m, "Reshape", {"p", "windows"}, {"win"}, "windows");
  node(m, "MatMul", {"win", "w"}, {"h"}, "proj");
  node(m, "Reshape", {"h", "back"}, {"b"}, "back");
  ints_attribute(node(m, "Transpose", {"b"}, {"u"}, "unpartition"), "perm", {0, 1, 3, 2, 4, 5});
  node(m, "Reshape", {"u", "merged"}, {"y"}, "merged");
  return m;
}

}  // namespace

TEST_CASE("a window partition folds the batch into the windows and a reshape unfolds it") {
  for (const bool static_batch : {false, true}) {
    INFO((static_batch ? "static batch 1, the target [4, 16, 4]" : "dynamic batch, the target [-1, 16, 4]"));
    const ir::Network net = import(window_partition(static_batch));
    // Per sample the windows are an axis of their own: 4 windows of 16 positions.
    CHECK(shape_of(net, "windows") == ir::Shape{4, 16, 4});
    CHECK(shape_of(net, "proj") == ir::Shape{4, 16, 6});
    CHECK(output_shape(net) == ir::Shape{8, 8, 6});
    // The linear layer: 4 * 16 positions x 4 -> 6 per sample, its 24 weights once.
    CHECK(total_parameters(net) == 4 * 6);
    CHECK(engine_macs(net) == 4.0 * 16 * 4 * 6);
    // The batch stays outside: eight samples are eight times the work.
    const auto one = engine::simulate(net, lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw"), {.batch = 1});
    const auto eight = engine::simulate(net, lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw"), {.batch = 8});
    CHECK(eight.totals.flops_fwd == 8 * one.totals.flops_fwd);
  }
}

TEST_CASE("a folded tensor's transpose moves its batch axis, and a gather on another axis keeps it") {
  // Windows [B * 4, 16, 3, 2, 2] (q, k, v packed: 3 x 2 heads x 2) -> perm [2, 0, 3, 1, 4]
  // -> [3, B * 4, 2, 16, 2] -> q = [0] on axis 0 -> [B * 4, 2, 16, 2]: per sample [4, 2, 16, 2].
  auto m = model({4, 16, 12});
  int64_initializer(m, "windows", {-1, 16, 12});
  int64_initializer(m, "packed", {-1, 16, 3, 2, 2});
  int64_tensor(m, "first", {}, {0});
  node(m, "Reshape", {"x", "windows"}, {"w"}, "windows");   // [B, 4, 16, 12] -> [B * 4, 16, 12]
  node(m, "Reshape", {"w", "packed"}, {"qkv"}, "packed");
  ints_attribute(node(m, "Transpose", {"qkv"}, {"t"}, "heads_first"), "perm", {2, 0, 3, 1, 4});
  int_attribute(node(m, "Gather", {"t", "first"}, {"q"}, "q"), "axis", 0);
  node(m, "Softmax", {"q"}, {"y"}, "softmax");
  const ir::Network net = import(m);
  // [B, 4, 16, 12] as [B * 4, 16, 12] holds the same layer per sample: no reshape is made for it,
  // only for the packing and for the pick's dropped axis.
  CHECK(count_of(net, "reshape") == 2);
  CHECK(shape_of(net, "packed") == ir::Shape{4, 16, 3, 2, 2});
  CHECK(shape_of(net, "heads_first") == ir::Shape{3, 4, 2, 16, 2});
  CHECK(output_shape(net) == ir::Shape{4, 2, 16, 2});
  // An op the importer does not follow a folded tensor through is refused, not misread.
  auto pooled = model({4, 16, 12});
  int64_initializer(pooled, "windows", {-1, 16, 12});
  node(pooled, "Reshape", {"x", "windows"}, {"w"}, "windows");
  node(pooled, "Flatten", {"w"}, {"y"}, "flatten");
  CHECK_THAT(error_of(pooled), Catch::Contains("flatten") && Catch::Contains("folded into axis 0"));
}

TEST_CASE("a strided slice of the network's tensor keeps every step-th element (Swin's patch merging)") {
  const auto sliced = [](Ints starts, Ints steps) {
    auto m = model({8, 8, 4});
    int64_initializer(m, "starts", starts);
    int64_initializer(m, "ends", {8, 8});
    int64_initializer(m, "axes", {1, 2});
    int64_initializer(m, "steps", steps);
    node(m, "Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, "pick");
    return m;
  };
  // x[:, 0::2, 1::2, :]: 4 x 4 positions of 4 channels.
  const ir::Network net = import(sliced({0, 1}, {2, 2}));
  CHECK(output_shape(net) == ir::Shape{4, 4, 4});
  CHECK(total_parameters(net) == 0);
  // Which elements: each axis split into [4, 2], the pick on the new axis of size 2 at the start's
  // phase, 0 for the rows (per-sample axis 0, split: axis 1) and 1 for the columns (axis 1, split: 2).
  std::vector<std::pair<std::int64_t, std::int64_t>> picks;   // (axis, start) of each slice layer
  for (const auto& l : net.layers)
    if (ir::spec(l.op).name == "slice") picks.emplace_back(l.attrs.i("axis"), l.attrs.i("start"));
  CHECK(picks == std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 0}, {2, 1}});
  // x[:, 1::2, 2::2, :]: rows 1, 3, 5, 7 and columns 2, 4, 6 (three of the four).
  CHECK(output_shape(import(sliced({1, 2}, {2, 2}))) == ir::Shape{4, 3, 4});
  // A step that does not divide the axis (8 by 3) is refused.
  CHECK_THAT(error_of(sliced({0, 0}, {3, 1})), Catch::Contains("step 3") && Catch::Contains("does not divide"));
}

TEST_CASE("Range, Concat and ScatterND of constants fold (the shifted-window mask is built so)") {
  // Range(2, 4) = [2, 3]; [-1] ++ it = [-1, 2, 3]: x [B, 6] as [B, 2, 3]. (A Range once folded to an
  // empty shape: its length was read after the values had been moved out.)
  {
    auto m = model({6});
    int64_tensor(m, "start", {}, {2});
    int64_tensor(m, "limit", {}, {4});
    int64_tensor(m, "delta", {}, {1});
    int64_initializer(m, "lead", {-1});
    node(m, "Range", {"start", "limit", "delta"}, {"r"}, "range");
    int_attribute(node(m, "Concat", {"lead", "r"}, {"shape"}, "cat"), "axis", 0);
    node(m, "Reshape", {"x", "shape"}, {"y"}, "rs");
    CHECK(output_shape(import(m)) == ir::Shape{2, 3});
  }
  // Two [2, 1] constants side by side (axis 1): [[-1, 2], [3, 2]], flattened [-1, 2, 3, 2]; stacked
  // (axis 0) they would read [-1, 3, 2, 2].
  {
    auto m = model({12});
    int64_tensor(m, "a", {2, 1}, {-1, 3});
    int64_tensor(m, "b", {2, 1}, {2, 2});
    int64_initializer(m, "flat", {4});
    int_attribute(node(m, "Concat", {"a", "b"}, {"ab"}, "cat"), "axis", 1);
    node(m, "Reshape", {"ab", "flat"}, {"shape"}, "flatten");
    node(m, "Reshape", {"x", "shape"}, {"y"}, "rs");
    CHECK(output_shape(import(m)) == ir::Shape{2, 3, 2});
  }
  // ScatterND of [1, 1, 1] with 6 at [1]: [1, 6, 1]; [-1] ++ it reshapes x [B, 6] to [B, 1, 6, 1].
  {
    auto m = model({6});
    int64_tensor(m, "ones", {3}, {1, 1, 1});
    int64_tensor(m, "at", {1, 1}, {1});
    int64_tensor(m, "six", {1}, {6});
    int64_initializer(m, "lead", {-1});
    node(m, "ScatterND", {"ones", "at", "six"}, {"s"}, "scatter");
    int_attribute(node(m, "Concat", {"lead", "s"}, {"shape"}, "cat"), "axis", 0);
    node(m, "Reshape", {"x", "shape"}, {"y"}, "rs");
    CHECK(output_shape(import(m)) == ir::Shape{1, 6, 1});
  }
}

TEST_CASE("a fixed tensor added to the scores is one add per element, a learned table read by fixed indices is learned") {
  // x: scores [B, 2, 3, 3]. The mask: ScatterND of zeros [3, 3] with -100 at (0, 2), a constant
  // computed from shapes alone, added to every head's scores. The bias: a learned [9, 2] table whose
  // rows a fixed index picks, [3, 3, 2] -> heads first [2, 3, 3], added too.
  auto m = model({2, 3, 3});
  int64_tensor(m, "mask_shape", {2}, {3, 3});
  int64_tensor(m, "at", {1, 2}, {0, 2});
  auto* fill = m.mutable_graph()->add_initializer();
  fill->set_name("minus_100");
  fill->set_data_type(onnx::TensorProto::FLOAT);
  fill->add_dims(1);
  fill->add_float_data(-100.0f);
  auto* table = initializer(m, "bias_table", {9, 2});
  for (int i = 0; i < 18; ++i) table->add_float_data(static_cast<float>(i));
  int64_tensor(m, "index", {9}, {4, 3, 2, 5, 4, 3, 6, 5, 4});
  int64_initializer(m, "grid", {3, 3, 2});
  node(m, "ConstantOfShape", {"mask_shape"}, {"zeros"}, "zeros");
  node(m, "ScatterND", {"zeros", "at", "minus_100"}, {"mask"}, "mask");
  node(m, "Add", {"x", "mask"}, {"masked"}, "masked");
  int_attribute(node(m, "Gather", {"bias_table", "index"}, {"rows"}, "lookup"), "axis", 0);
  node(m, "Reshape", {"rows", "grid"}, {"g"}, "grid");
  ints_attribute(node(m, "Transpose", {"g"}, {"bias"}, "heads_first"), "perm", {2, 0, 1});
  node(m, "Add", {"masked", "bias"}, {"y"}, "biased");
  const ir::Network net = import(m);
  CHECK(output_shape(net) == ir::Shape{2, 3, 3});
  // The table's 18 values are the parameters; the mask holds none.
  CHECK(total_parameters(net) == 18);
  CHECK(count_of(net, "gather") == 1);
  CHECK(count_of(net, "add") == 2);
}

TEST_CASE("torchvision's SwinTransformer, built small, imports with torch's parameters and the MACs worked by hand") {
  // tests/onnx/models/swin_tiny.onnx (make_fixtures.py swin_tiny): 4x4 patches of 32x32 (8x8 tokens of
  // 16), stages of two blocks (2 heads, then 4) with 4x4 windows, patch merging between, 10 classes.
  // Parameters (torch's sum(p.numel()): 35,942):
  //   patch embedding conv 16x3x4x4 + 16, its LayerNorm 2x16                                  816
  //   stage 1 block x2: norms 2x(2x16), qkv 16x48 + 48, proj 16x16 + 16, bias table 7x7x2,
  //     mlp 16x64 + 64 and 64x16 + 16: 3,378 each                                           6,756
  //   patch merging: LayerNorm 2x64, reduction 64x32 (no bias)                              2,176
  //   stage 2 block x2: norms 2x(2x32), qkv 32x96 + 96, proj 32x32 + 32, bias table 7x7x4,
  //     mlp 32x128 + 128 and 128x32 + 32: 12,900 each                                      25,800
  //   final LayerNorm 2x32, head 32x10 + 10                                                    394
  // MACs per sample: the patch conv 64 x 16 x 48 (49,152); stage 1 per block: qkv 64x16x48, proj
  // 64x16x16, mlp 2 x 64x16x64, and in 4 windows of 16 tokens x 2 heads of 8, q k^T and attn v
  // 2 x 4 x 2 x 16x16x8 (229,376 a block); merging 16 x 64 x 32 (32,768); stage 2 per block with one
  // window of 16 and 4 heads: 16x32x96 + 16x32x32 + 2 x 16x32x128 + 2 x 4 x 16x16x8 (212,992); the
  // head 32 x 10 = 966,976.
  const ir::Network net = lang::load_onnx(onnx_test::fixture("swin_tiny")).network;
  CHECK(total_parameters(net) == 35942);
  CHECK(engine_macs(net) == 966976.0);
  // Four bias tables, each read through its fixed index; no free node.
  CHECK(count_of(net, "gather") == 4);
  CHECK(output_shape(net) == ir::Shape{10});
}

TEST_CASE("a Concat of pieces of a learned tensor whose values the file holds stays learned") {
  // An unfolded export reorders an LSTM's gates with Slice and Concat of its initializers, their values
  // in the file (not stripped): the result is the same learned tensor, not a constant. Here w [4, 3]
  // (values given) has its two row halves swapped and is then x [B, 4]'s weight: a linear of 12.
  auto m = model({4});
  auto* w = initializer(m, "w", {4, 3});
  for (int i = 0; i < 12; ++i) w->add_float_data(static_cast<float>(i));
  int64_initializer(m, "zero", {0});
  int64_initializer(m, "two", {2});
  int64_initializer(m, "four", {4});
  int64_initializer(m, "rows", {0});
  node(m, "Slice", {"w", "zero", "two", "rows"}, {"top"}, "top");
  node(m, "Slice", {"w", "two", "four", "rows"}, {"bottom"}, "bottom");
  int_attribute(node(m, "Concat", {"bottom", "top"}, {"swapped"}, "swap"), "axis", 0);
  node(m, "MatMul", {"x", "swapped"}, {"y"}, "proj");
  const ir::Network net = import(m);
  CHECK(output_shape(net) == ir::Shape{3});
  CHECK(total_parameters(net) == 12);
  CHECK(count_of(net, "linear") == 1);
}

TEST_CASE("a slice of a learned table whose values the file holds counts the whole table") {
  // GPT-2's `wpe.weight[:T]` (here a [1, 16, 8] position table cut to 5 rows) in an export that keeps
  // the values: torch counts the table's 128 parameters whatever T is, and so does the import (as it
  // did for a stripped file, whose slices were already recorded).
  auto m = model({5, 8});
  auto* pos = initializer(m, "pos", {1, 16, 8});
  for (int i = 0; i < 128; ++i) pos->add_float_data(static_cast<float>(i));
  int64_initializer(m, "zero", {0});
  int64_initializer(m, "five", {5});
  int64_initializer(m, "positions", {1});
  node(m, "Slice", {"pos", "zero", "five", "positions"}, {"p"}, "first_five");
  node(m, "Add", {"x", "p"}, {"y"}, "add_positions");
  const ir::Network net = import(m);
  CHECK(output_shape(net) == ir::Shape{5, 8});
  CHECK(total_parameters(net) == 128);
}

namespace {

// Swin V2's relative-position bias: a fixed coordinates buffer `coords` [1, 3, 3, 2] through an MLP
// (2 -> 8, ReLU, 8 -> 2 heads without bias), the [9, 2] table read through a fixed index of 4, added to
// x [B, 2, 2, 2] (heads, queries, keys).
onnx::ModelProto position_bias_mlp() {
  auto m = model({2, 2, 2});
  initializer(m, "coords", {1, 3, 3, 2});
  initializer(m, "w1", {2, 8});
  initializer(m, "b1", {8});
  initializer(m, "w2", {8, 2});
  int64_initializer(m, "rows", {-1, 2});
  int64_tensor(m, "index", {4}, {0, 4, 5, 8});
  int64_initializer(m, "grid", {2, 2, 2});
  node(m, "MatMul", {"coords", "w1"}, {"h"}, "cpb_mlp.0");
  node(m, "Add", {"h", "b1"}, {"hb"}, "cpb_mlp.0.bias");
  node(m, "Relu", {"hb"}, {"r"}, "cpb_mlp.1");
  node(m, "MatMul", {"r", "w2"}, {"t"}, "cpb_mlp.2");
  node(m, "Reshape", {"t", "rows"}, {"table"}, "table");
  int_attribute(node(m, "Gather", {"table", "index"}, {"picked"}, "lookup"), "axis", 0);
  node(m, "Reshape", {"picked", "grid"}, {"g"}, "grid");
  ints_attribute(node(m, "Transpose", {"g"}, {"bias"}, "heads_first"), "perm", {2, 0, 1});
  node(m, "Add", {"x", "bias"}, {"y"}, "biased");
  return m;
}

}  // namespace

TEST_CASE("an MLP over a fixed buffer is linear layers over a `buffer`, whose values are not parameters") {
  const onnx::ModelProto m = position_bias_mlp();
  lang::OnnxOptions named;
  named.buffers = {"coords"};
  const ir::Network net = lang::parse_onnx(m.SerializeAsString(), "defaults.onnx", named).network;
  CHECK(output_shape(net) == ir::Shape{2, 2, 2});
  CHECK(count_of(net, "buffer") == 1);
  CHECK(count_of(net, "linear") == 2);
  CHECK(count_of(net, "parameter") == 1);   // b1, added to the first linear's output
  // w1 and b1 (16 + 8) and w2 (16): the coordinates are not learned.
  CHECK(total_parameters(net) == 40);
  // Per sample: 9 positions x 2 x 8, then 9 x 8 x 2 (the MLP, the same for every sample, is counted with
  // each as every value is).
  CHECK(engine_macs(net) == 9.0 * 2 * 8 + 9.0 * 8 * 2);
  // Without the name, an ONNX file cannot tell the buffer from a learned tensor: its 18 values count.
  const ir::Network unnamed = import(m);
  CHECK(count_of(unnamed, "parameter") == 2);
  CHECK(total_parameters(unnamed) == 40 + 18);
}

TEST_CASE("zeros written at fixed places of a copy of a learned bias leave it the same learned bias") {
  // Swin V2's qkv: bias = b.clone(); bias[2:4].zero_() (exported as b[2:4] - b[2:4] and a ScatterND),
  // then x [B, 3, 4] times w [4, 6] plus that bias: a linear layer and the bias added (a `parameter`),
  // 24 + 6 parameters.
  auto m = model({3, 4});
  initializer(m, "w", {4, 6});
  initializer(m, "b", {6});
  int64_initializer(m, "two", {2});
  int64_initializer(m, "four", {4});
  int64_initializer(m, "axis0", {0});
  int64_tensor(m, "where", {2, 1}, {2, 3});
  node(m, "Slice", {"b", "two", "four", "axis0"}, {"keys"}, "keys");
  node(m, "Sub", {"keys", "keys"}, {"zeros"}, "zero");
  node(m, "ScatterND", {"b", "where", "zeros"}, {"bias"}, "scatter");
  node(m, "MatMul", {"x", "w"}, {"h"}, "qkv");
  node(m, "Add", {"bias", "h"}, {"y"}, "qkv.bias");
  const ir::Network net = import(m);
  CHECK(output_shape(net) == ir::Shape{3, 6});
  CHECK(total_parameters(net) == 24 + 6);
  CHECK(count_of(net, "linear") == 1);
  CHECK(count_of(net, "parameter") == 1);
  CHECK(count_of(net, "sub") == 0);   // the zeros were known at import
  // Values computed at run time written into a learned tensor are refused, not counted as it.
  auto data = model({2});
  initializer(data, "b", {2});
  int64_tensor(data, "where", {2, 1}, {0, 1});
  node(data, "ScatterND", {"b", "where", "x"}, {"y"}, "scatter");
  CHECK(error_of(data).find("scatters into data") != std::string::npos);
  // So is another learned tensor, whose parameters the result would otherwise drop.
  auto learned = model({2});
  initializer(learned, "b", {2});
  initializer(learned, "c", {2});
  int64_tensor(learned, "where", {2, 1}, {0, 1});
  node(learned, "ScatterND", {"b", "where", "c"}, {"bc"}, "scatter");
  node(learned, "Add", {"x", "bc"}, {"y"}, "add");
  CHECK(error_of(learned).find("scatters the learned tensor 'c'") != std::string::npos);
}

TEST_CASE("cosine attention's norm, clamps and expand follow a batch folded into the windows") {
  // F.normalize over the last axis of windows [B * 4, 16, 8] (x [B, 2, 4, 2, 4, 8] partitioned): a norm
  // [.., 1] clamped below at 1e-12, expanded back to the rows and divided into them; a learned scale
  // [2, 1, 1] clamped above at log(100) and exponentiated (the logit scale).
  auto m = model({8, 8, 8});
  int64_initializer(m, "split", {-1, 2, 4, 2, 4, 8});
  int64_initializer(m, "windows", {-1, 16, 8});
  int64_initializer(m, "last", {-1});
  int64_initializer(m, "rows", {-1, 16, 8});
  node(m, "Reshape", {"x", "split"}, {"s"}, "split");
  ints_attribute(node(m, "Transpose", {"s"}, {"p"}, "partition"), "perm", {0, 1, 3, 2, 4, 5});
  node(m, "Reshape", {"p", "windows"}, {"win"}, "windows");
  node(m, "ReduceL2", {"win", "last"}, {"norm"}, "norm");
  auto* eps = initializer(m, "eps", {});
  eps->add_float_data(1e-12F);
  node(m, "Clip", {"norm", "eps", ""}, {"clamped"}, "clamp");
  node(m, "Shape", {"win"}, {"shape"}, "shape");
  node(m, "Expand", {"clamped", "shape"}, {"wide"}, "expand");
  node(m, "Div", {"win", "wide"}, {"y"}, "normalize");
  const ir::Network net = import(m);
  CHECK(shape_of(net, "norm") == ir::Shape{4, 16, 1});
  CHECK(shape_of(net, "expand") == ir::Shape{4, 16, 8});
  CHECK(shape_of(net, "normalize") == ir::Shape{4, 16, 8});
  CHECK(count_of(net, "norm") == 1);
  CHECK(count_of(net, "clamp") == 1);
  // Across the folded axis (the windows' batch) a norm is refused.
  auto across = model({8, 8, 8});
  int64_initializer(across, "split", {-1, 2, 4, 2, 4, 8});
  int64_initializer(across, "windows", {-1, 16, 8});
  int64_initializer(across, "first", {0});
  node(across, "Reshape", {"x", "split"}, {"s"}, "split");
  ints_attribute(node(across, "Transpose", {"s"}, {"p"}, "partition"), "perm", {0, 1, 3, 2, 4, 5});
  node(across, "Reshape", {"p", "windows"}, {"win"}, "windows");
  node(across, "ReduceL2", {"win", "first"}, {"y"}, "norm");
  INFO(error_of(across));
  CHECK(error_of(across).find("batch") != std::string::npos);
}

TEST_CASE("torchvision's Swin V2, built small, imports with torch's parameters and the MACs worked by hand") {
  // tests/onnx/models/swin_v2_tiny.onnx (make_fixtures.py swin_v2_tiny): swin_tiny's shape with V2's
  // blocks. Parameters (torch's sum(p.numel()): 47,590):
  //   patch embedding conv 16x3x4x4 + 16, its LayerNorm 2x16                                  816
  //   stage 1 block x2: norms 2x(2x16), qkv 16x48 + 48, proj 16x16 + 16, logit scale 2,
  //     bias MLP 2x512 + 512 and 512x2, mlp 16x64 + 64 and 64x16 + 16: 5,842 each           11,684
  //   patch merging: reduction 64x32 (no bias), then LayerNorm 2x32                          2,112
  //   stage 2 block x2: norms 2x(2x32), qkv 32x96 + 96, proj 32x32 + 32, logit scale 4,
  //     bias MLP 2x512 + 512 and 512x4, mlp 32x128 + 128 and 128x32 + 32: 16,292 each       32,584
  //   final LayerNorm 2x32, head 32x10 + 10                                                    394
  // MACs per sample: swin_tiny's 966,976 with V2's 16 x 64 x 32 merging (the same), plus each block's
  // bias MLP over its 7 x 7 coordinates: 49 x 2 x 512 + 49 x 512 x heads (100,352 in stage 1,
  // 150,528 in stage 2): 966,976 + 2 x 100,352 + 2 x 150,528 = 1,468,736.
  lang::OnnxOptions o;
  for (const char* block : {"features.1.0", "features.1.1", "features.3.0", "features.3.1"})
    o.buffers.insert(std::string(block) + ".attn.relative_coords_table");
  const ir::Network net = lang::load_onnx(onnx_test::fixture("swin_v2_tiny"), o).network;
  CHECK(total_parameters(net) == 47590);
  CHECK(engine_macs(net) == 1468736.0);
  // The four blocks' coordinate tables hold equal values, and the exporter keeps one initializer for
  // them (the others read it through Identity): one buffer, read by every block's MLP.
  CHECK(count_of(net, "buffer") == 1);
  CHECK(count_of(net, "gather") == 4);
  CHECK(output_shape(net) == ir::Shape{10});
  // Read without the buffers' names, the 1 x 7 x 7 x 2 table counts as learned.
  CHECK(total_parameters(lang::load_onnx(onnx_test::fixture("swin_v2_tiny")).network) == 47590 + 98);
}
