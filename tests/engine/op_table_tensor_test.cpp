// The counts of the resampling, normalisation and tensor ops documented at the top of
// engine/costs/conv.cpp, engine/costs/norm.cpp and engine/costs/tensor.cpp, pinned: forward,
// training-mode forward and backward FLOPs, bytes read and bytes written, and backward kernels, for one
// layer of each of conv_transpose, pixel_shuffle, adaptive_maxpool, upsample (nearest and bilinear),
// pad, groupnorm, instancenorm (with and without affine), rmsnorm, log_softmax, permute, transpose,
// roll, mean, expand, sum, amax, gather, buffer and norm (op_table_test.cpp pins the others). The expected numbers are
// worked by hand from those documented counts and docs/counting.md's byte convention (read inputs + weights,
// write outputs; backward reads the output gradient, the saved tensors the gradient's formula uses and
// the weights, writes the input and weight gradients), never from the code under test.
//
// Three small networks, each built from .net text and read back through simulate() at batch 2, fp32
// (4 B per element), layers looked up by name. In each a conv comes early, so every later layer needs
// its input gradient (it depends on a parameter).
#include "engine/simulate.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"
#include "tests/engine/op_table.hpp"
#include "tests/support/fixed_device.hpp"

#include <catch2/catch.hpp>

#include <span>
#include <string>
#include <vector>

using namespace ridge;

namespace {

using Pass = testing::PassCount;

using Row = testing::OpRow;

struct Table {
  const char* name;           // the network's name, for CAPTURE
  const engine::Report& report;
  std::span<const Row> rows;
};

const engine::LayerRow& layer_of(const engine::Report& report, const std::string& name) {
  return testing::layer_named(report, name);
}

// ---------------------------------------------------------------------------------------------------
// Resampling: conv_transpose, pixel_shuffle, adaptive_maxpool, upsample, pad (engine/costs/conv.cpp,
// and pad's "a copy each way" in engine/costs/tensor.cpp).
//
// The nearest upsample reads the network input, which needs no gradient, so it has no backward: only
// its forward is pinned here. Its backward is left unpinned: the documentation says "backward the same"
// (for nearest, a copy: 0 FLOPs) while the code counts 1 add per output (the scatter-add).
constexpr const char* kResampleNet = R"(network resample_ops {
  input x: [2, 3, 3]
  x = x -> upsample(2)
  x = x -> conv(8, 3, pad: 1)
  x = x -> conv_transpose(8, 3, stride: 2, pad: 1, output_pad: 1) -> pixel_shuffle(2)
  x = x -> adaptive_maxpool([5, 3]) -> upsample(scale: 2, mode: "bilinear")
  return x -> pad([1, 2, 0, 1])
}
)";

const engine::Report& resample_report() {
  static const engine::Report r = testing::simulate_on_fixed_device(kResampleNet, "resample_ops.net");
  return r;
}

const Row kResampleRows[] = {
    {"input", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    // upsample1, nearest, scale 2: [2,3,3] (18 per sample, 36 per batch, 144 B) -> [2,6,6] (72, 144,
    // 576 B). Nearest is a copy: 0 FLOPs, reads 144 B, writes 576 B, in both modes. No backward (see above).
    {"upsample1", {0, 144, 576}, {0, 144, 576}, {0, 0, 0}, 0},
    // conv1: [2,6,6] (72, 144) -> [8,6,6] (288, 576), 3x3: 152 parameters (8*2*9 weights + 8 bias).
    // MACs per output 2*9 = 18, x 576 outputs = 10,368 MACs, 20,736 FLOPs. Reads (144 + 152) x 4 = 1184 B,
    // writes 576 x 4 = 2304 B. Backward: its input (the upsampled network input) needs no gradient, so
    // the weight gradient only, 20,736 FLOPs: reads g and the saved input (576 + 144) x 4 = 2880 B,
    // writes 152 x 4 = 608 B.
    // And PyTorch's separate bias kernel on this GPU (op_table_test.cpp's conv1): +2304 + 32 read and
    // +2304 written forward; backward +2304 read, +32 written, one more kernel.
    {"conv1", {20736, 1184 + 2336, 2304 + 2304}, {20736, 1184 + 2336, 2304 + 2304}, {20736, 2880 + 2304, 608 + 32}, 2},
    // conv_transpose1: [8,6,6] (288, 576) -> 8 channels, 3x3, stride 2, pad 1, output_pad 1: each axis
    // (6 - 1) x 2 - 2 x 1 + (3 - 1) + 1 + 1 = 12 (11 without the output padding): [8,12,12] (1152, 2304).
    // 584 parameters (torch's [C_in, out, 3, 3] = 8*8*9 weights + 8 bias). MACs per *input* element
    // (out / groups) x window = 8 x 9 = 72, x 576 inputs = 41,472 MACs, 82,944 FLOPs.
    // Reads (576 + 584) x 4 = 4640 B, writes 2304 x 4 = 9216 B. Backward: input and weight gradients,
    // 2 x 82,944 = 165,888 FLOPs, 2 kernels; reads g, x and the weights (2304 + 576 + 584) x 4 = 13,856 B;
    // writes the input and weight gradients (576 + 584) x 4 = 4640 B.
    // And the separate bias kernel (cuDNN's transposed convolution takes no bias either): +9216 + 32 read
    // and +9216 written forward; backward +9216 read, +32 written.
    {"conv_transpose1", {82944, 4640 + 9248, 9216 + 9216}, {82944, 4640 + 9248, 9216 + 9216}, {165888, 13856 + 9216, 4640 + 32}, 3},
    // pixel_shuffle1, factor 2: [8,12,12] -> [8/4, 12x2, 12x2] = [2,24,24], 1152 per sample, 2304 per
    // batch, 9216 B. A copy each way.
    {"pixel_shuffle1", {0, 9216, 9216}, {0, 9216, 9216}, {0, 9216, 9216}, 1},
    // adaptive_maxpool1 [2,24,24] -> [2,5,3] (15 per channel, 30 per sample, 60 per batch, 240 B).
    // torch's windows along the rows, 24 -> 5: [0,5) [4,10) [9,15) [14,20) [19,24), sizes 5+6+6+6+5 = 28
    // (= 24 + 5 - gcd(24, 5)); along the columns, 24 -> 3: [0,8) [8,16) [16,24), 24 (= 24 + 3 - 3).
    // Window elements per channel 28 x 24 = 672, x 2 channels x 2 samples = 2688; window - 1 comparisons
    // per output: 2688 - 60 = 2628. Reads 2304 x 4 = 9216 B, writes 240 B and the int64 argmax (8 B per
    // output), which adaptive_max_pool2d always returns: 60 x 12 = 720 B. Backward 1 per output
    // (scatter-add into the argmax) = 60; reads g and the indices (720 B), writes 9216 B.
    {"adaptive_maxpool1", {2628, 9216, 720}, {2628, 9216, 720}, {60, 720, 9216}, 1},
    // upsample2, bilinear, scale 2: [2,5,3] (30, 60, 240 B) -> [2,10,6] (120, 240, 960 B). 4 taps:
    // 2 x 4 - 1 = 7 per output = 1680 FLOPs; reads 240 B, writes 960 B. Backward the same 1680 FLOPs,
    // scattered into the zero-filled input (2 kernels: the fill and the scatter-add): reads g (960 B),
    // writes the input gradient (240 B).
    {"upsample2", {1680, 240, 960}, {1680, 240, 960}, {1680, 960, 240}, 2},
    // pad1, (before, after) pairs last axis first: columns 6 + 1 + 2 = 9, rows 10 + 0 + 1 = 11:
    // [2,10,6] (120, 240, 960 B) -> [2,11,9] (198, 396, 1584 B). A copy each way.
    {"pad1", {0, 960, 1584}, {0, 960, 1584}, {0, 1584, 960}, 1},
};

// ---------------------------------------------------------------------------------------------------
// Normalisation and log_softmax (engine/costs/norm.cpp, engine/costs/tensor.cpp). Every layer after
// conv1 is on [8,4,4]: 128 per sample, 256 per batch, 1024 B.
//
// The grouped norms normalise groups that fit on chip: they read x and the parameters once, write y and
// a mean and an rstd per group (2 per group; rmsnorm has no mean: 1); backward reads g, x, the
// parameters and those statistics, writes the input gradient and the parameter gradients. 7 per element
// forward in both modes, 10 backward with the input gradient (rmsnorm: 4 and 8).
constexpr const char* kNormNet = R"(network norm_ops {
  input x: [4, 4, 4]
  x = x -> conv(8, 3, pad: 1)
  x = x -> groupnorm(4) -> instancenorm -> instancenorm(affine: true) -> rmsnorm(dims: 2)
  return x -> log_softmax
}
)";

const engine::Report& norm_report() {
  static const engine::Report r = testing::simulate_on_fixed_device(kNormNet, "norm_ops.net");
  return r;
}

const Row kNormRows[] = {
    {"input", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    // conv1: [4,4,4] (64, 128) -> [8,4,4] (128, 256), 3x3: 296 parameters (8*4*9 + 8). MACs per output
    // 4*9 = 36, x 256 = 9216 MACs, 18,432 FLOPs. Reads (128 + 296) x 4 = 1696 B, writes 1024 B.
    // Backward, weight gradient only (the network input needs none): 18,432 FLOPs; reads g and x
    // (256 + 128) x 4 = 1536 B; writes 296 x 4 = 1184 B. And PyTorch's separate bias kernel on this GPU
    // (op_table_test.cpp's conv1): +1024 + 32 read and +1024 written forward; backward +1024 read, +32
    // written, one more kernel.
    {"conv1", {18432, 1696 + 1056, 1024 + 1024}, {18432, 1696 + 1056, 1024 + 1024}, {18432, 1536 + 1024, 1184 + 32}, 2},
    // groupnorm1, 4 groups of 8 channels / 4 x 16 = 32 elements: 256 / 32 = 8 groups per batch; affine:
    // 16 parameters (gamma, beta per channel). 7 x 256 = 1792; reads (256 + 16) x 4 = 1088 B; writes
    // (256 + 2 x 8) x 4 = 1088 B. Backward 10 x 256 = 2560 in two kernels (weight and input gradients),
    // each reading g and x: (2 x (256 + 256) + 16 + 16) x 4 = 4224 B; writes (256 + 16) x 4 = 1088 B.
    {"groupnorm1", {1792, 1088, 1088}, {1792, 1088, 1088}, {2560, 4224, 1088}, 2},
    // instancenorm1, no affine (torch's default): 0 parameters; one plane of 16 per channel per sample:
    // 256 / 16 = 16 groups. 1792; reads 1024 B; writes (256 + 2 x 16) x 4 = 1152 B. Backward 2560;
    // reads (256 + 256 + 32) x 4 = 2176 B; writes 1024 B.
    {"instancenorm1", {1792, 1024, 1152}, {1792, 1024, 1152}, {2560, 2176, 1024}, 1},
    // instancenorm2, affine: 16 parameters, 16 groups. 1792; reads (256 + 16) x 4 = 1088 B; writes 1152 B.
    // Backward 2560, two kernels as groupnorm1: reads (2 x (256 + 256) + 16 + 32) x 4 = 4288 B; writes
    // (256 + 16) x 4 = 1088 B. (instancenorm1, with no weights, has the input gradient's kernel alone.)
    {"instancenorm2", {1792, 1088, 1152}, {1792, 1088, 1152}, {2560, 4288, 1088}, 2},
    // rmsnorm1 over the last 2 axes [4,4]: rows of 16, 256 / 16 = 16 rows; a weight per normalised
    // element: 16 parameters. 4 x 256 = 1024; reads (256 + 16) x 4 = 1088 B; writes y and one rstd per
    // row (256 + 16) x 4 = 1088 B. Backward 8 x 256 = 2048; reads (256 + 256 + 16 + 16) x 4 = 2176 B;
    // writes (256 + 16) x 4 = 1088 B.
    {"rmsnorm1", {1024, 1088, 1088}, {1024, 1088, 1088}, {2048, 2176, 1088}, 1},
    // log_softmax1 along the last axis: 5 x 256 = 1280; reads 1024 B, writes 1024 B. Backward 4 x 256 =
    // 1024; reads g and the saved output (2048 B), writes 1024 B.
    {"log_softmax1", {1280, 1024, 1024}, {1280, 1024, 1024}, {1024, 2048, 1024}, 1},
};

// ---------------------------------------------------------------------------------------------------
// Views, copies and reductions (engine/costs/tensor.cpp).
//
// gather picks `count` rows of a [8,4] tensor, so its int64 index (`count` = 3 entries, 24 B, shared by
// the samples) and its output (12 per sample) differ in size: the index is counted once, not per
// output element.
constexpr const char* kTensorNet = R"(network tensor_ops {
  input x: [4, 4, 4]
  x = x -> conv(8, 3, pad: 1)
  x = x -> permute([1, 2, 0]) -> transpose(1, 2) -> roll([1, 2], [0, 2])
  x = x -> mean(axes: [2], keepdim: true) -> expand([-1, -1, 4]) -> sum(axes: [0])
  x = x -> gather(3) -> amax(axes: [1], keepdim: true)
  b = buffer([3, 1])
  return add(x, b) -> norm(axes: [0])
}
)";

const engine::Report& tensor_report() {
  static const engine::Report r = testing::simulate_on_fixed_device(kTensorNet, "tensor_ops.net");
  return r;
}

const Row kTensorRows[] = {
    {"input", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    // conv1: as norm_ops' conv1, [4,4,4] -> [8,4,4], its bias kernel included.
    {"conv1", {18432, 1696 + 1056, 1024 + 1024}, {18432, 1696 + 1056, 1024 + 1024}, {18432, 1536 + 1024, 1184 + 32}, 2},
    // permute1 [8,4,4] -> [4,4,8] and transpose1 (axes 1, 2) -> [4,8,4]: views, nothing either way.
    {"permute1", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    {"transpose1", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    // roll1 on [4,8,4] (128 per sample, 256 per batch, 1024 B) over two axes: torch.roll rolls one
    // axis at a time, a copy per axis each way.
    {"roll1", {0, 2048, 2048}, {0, 2048, 2048}, {0, 2048, 2048}, 2},
    // mean1 over axis 2, kept: [4,8,4] -> [4,8,1] (32, 64, 256 B). 1 add per input element + 1 div per
    // output: 256 + 64 = 320; reads 1024 B, writes 256 B. Backward broadcasts g back, 1 mul per input
    // element: 256; reads g (256 B), writes 1024 B.
    {"mean1", {320, 1024, 256}, {320, 1024, 256}, {256, 256, 1024}, 1},
    // expand1 [4,8,1] -> [4,8,4]: a view forward; backward sums g over the broadcast axis, 1 add per
    // element of g: 256; reads g (1024 B), writes the input gradient (256 B).
    {"expand1", {0, 0, 0}, {0, 0, 0}, {256, 1024, 256}, 1},
    // sum1 over axis 0: [4,8,4] -> [8,4] (32, 64, 256 B). 1 add per input element: 256; reads 1024 B,
    // writes 256 B. Backward broadcasts g back, no arithmetic: reads 256 B, writes 1024 B.
    {"sum1", {256, 1024, 256}, {256, 1024, 256}, {0, 256, 1024}, 1},
    // gather1, 3 rows along axis 0: [8,4] (64 per batch, 256 B) -> [3,4] (12, 24, 96 B). A copy of the
    // picked rows: 0 FLOPs; reads them (96 B) and the int64 index, 3 x 8 = 24 B: 120 B; writes 96 B.
    // Backward index_add into a zero-filled input (2 kernels: the fill and the index_add), 1 add per
    // element of g: 24; reads g (96 B) and the index (24 B): 120 B; writes the input gradient (256 B).
    {"gather1", {0, 120, 96}, {0, 120, 96}, {24, 120, 256}, 2},
    // amax1 over axis 1, kept: [3,4] (24 per batch, 96 B) -> [3,1] (3, 6, 24 B). 1 comparison per input
    // element: 24; reads 96 B, writes 24 B. Backward g * (x == max), 2 per input element: 48; reads g,
    // the saved input and the saved max (6 + 24 + 6) x 4 = 144 B; writes 96 B.
    {"amax1", {24, 96, 24}, {24, 96, 24}, {48, 144, 96}, 1},
    // buffer1 [3,1]: a fixed tensor, a view of itself: nothing either way, and no gradient.
    {"buffer1", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    // add1 of amax1 [3,1] and the buffer (6 per batch each): 1 per output = 6; reads 48 B, writes 24 B.
    // Backward: only amax1 wants a gradient, no broadcast: reads g (24 B), writes 24 B.
    {"add1", {6, 48, 24}, {6, 48, 24}, {0, 24, 24}, 1},
    // norm1, the L2 norm over axis 0: [3,1] -> [1] (2 per batch, 8 B). A square and an add per input
    // element and a square root per result: 2 x 6 + 2 = 14; reads 24 B, writes 8 B. Backward g x / norm,
    // 2 per input element: 12; reads x, the norm and g: (6 + 2 + 2) x 4 = 40 B; writes 24 B.
    {"norm1", {14, 24, 8}, {14, 24, 8}, {12, 40, 24}, 1},
};

const std::vector<Table>& tables() {
  static const std::vector<Table> t{{"resample_ops", resample_report(), kResampleRows},
                                    {"norm_ops", norm_report(), kNormRows},
                                    {"tensor_ops", tensor_report(), kTensorRows}};
  return t;
}

std::vector<std::string> pinned_ops() {
  std::vector<std::string> ops;
  for (const Table& table : tables())
    for (const Row& row : table.rows) ops.push_back(std::string(ir::op_name(layer_of(table.report, row.layer).op)));
  return ops;
}
const testing::RegisterPinnedOps registered{&pinned_ops};

}  // namespace

TEST_CASE("per-op counts of resampling, normalisation and tensor ops (engine/costs/*.cpp), worked by hand") {
  for (const Table& table : tables()) {
    CAPTURE(table.name);
    for (const Row& row : table.rows) testing::check_row(table.report, row);
  }
}

TEST_CASE("every layer of the resampling, normalisation and tensor op networks has a row") {
  for (const Table& table : tables()) {
    CAPTURE(table.name);
    std::size_t rows_found = 0;
    for (const engine::LayerRow& l : table.report.layers)
      for (const Row& row : table.rows)
        if (l.name == row.layer) ++rows_found;
    CHECK(rows_found == table.rows.size());
    CHECK(table.report.layers.size() == table.rows.size());
  }
}

TEST_CASE("output shapes set by resampling, padding, pooling and reduction attributes, worked by hand") {
  const engine::Report& resample = resample_report();
  CHECK(layer_of(resample, "upsample1").output_shape == ir::Shape{2, 6, 6});
  CHECK(layer_of(resample, "conv_transpose1").output_shape == ir::Shape{8, 12, 12});   // 11 without output_pad
  CHECK(layer_of(resample, "pixel_shuffle1").output_shape == ir::Shape{2, 24, 24});
  CHECK(layer_of(resample, "adaptive_maxpool1").output_shape == ir::Shape{2, 5, 3});
  CHECK(layer_of(resample, "upsample2").output_shape == ir::Shape{2, 10, 6});
  CHECK(layer_of(resample, "pad1").output_shape == ir::Shape{2, 11, 9});
  const engine::Report& tensor = tensor_report();
  CHECK(layer_of(tensor, "permute1").output_shape == ir::Shape{4, 4, 8});
  CHECK(layer_of(tensor, "transpose1").output_shape == ir::Shape{4, 8, 4});
  CHECK(layer_of(tensor, "mean1").output_shape == ir::Shape{4, 8, 1});
  CHECK(layer_of(tensor, "expand1").output_shape == ir::Shape{4, 8, 4});
  CHECK(layer_of(tensor, "sum1").output_shape == ir::Shape{8, 4});
  CHECK(layer_of(tensor, "amax1").output_shape == ir::Shape{3, 1});
  CHECK(layer_of(tensor, "gather1").output_shape == ir::Shape{3, 4});
}

TEST_CASE("MACs and parameters of conv_transpose and the norms, worked by hand") {
  const engine::Report& resample = resample_report();
  CHECK(layer_of(resample, "conv_transpose1").macs == 41472);
  CHECK(layer_of(resample, "conv_transpose1").params == 584);
  CHECK(layer_of(resample, "conv1").macs == 10368);
  CHECK(layer_of(resample, "conv1").params == 152);
  const engine::Report& norms = norm_report();
  CHECK(layer_of(norms, "groupnorm1").params == 16);
  CHECK(layer_of(norms, "instancenorm1").params == 0);
  CHECK(layer_of(norms, "instancenorm2").params == 16);
  CHECK(layer_of(norms, "rmsnorm1").params == 16);
  CHECK(layer_of(norms, "log_softmax1").params == 0);
  for (const char* name : {"groupnorm1", "instancenorm1", "instancenorm2", "rmsnorm1", "log_softmax1"}) {
    CAPTURE(name);
    CHECK(layer_of(norms, name).macs == 0);
  }
}
