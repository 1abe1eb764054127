// Every row of the per-op count table documented at the top of engine/op_costs.cpp, pinned: forward,
// training-mode forward and backward FLOPs, bytes read and bytes written, for one layer of each op.
// The expected numbers are worked by hand from the documented per-element counts and docs/counting.md's
// byte convention (read inputs + weights, write outputs; backward reads the output gradient, the saved
// tensors and the weights, writes the input and weight gradients), never from the code under test.
//
// The network is built from .net text and read back through simulate(), layers looked up by name, so
// the test does not depend on how the IR spells ops or attributes.
#include "engine/simulate.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"
#include "tests/engine/op_table.hpp"
#include "tests/support/fixed_device.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ridge;

namespace {

// Batch 2, fp32 (4 B per element). Per-sample sizes in the comments; counts below are per batch.
// The conv first makes every later layer need its input gradient (it depends on a parameter).
constexpr const char* kOpsNet = R"(network ops {
  input x: [4, 8, 8]
  x = x -> conv(8, 3, pad: 1)
  x = x -> relu -> relu6 -> clamp(min: -1, max: 1) -> sigmoid -> tanh -> silu -> gelu -> hardsigmoid -> hardswish -> softmax
  x = x -> batchnorm -> layernorm
  m = x -> maxpool(2)
  a = x -> avgpool(2)
  c = concat(m, a)
  h = c -> channel_shuffle(2) -> slice(0, 8)
  s = add(h, a)
  g = s -> adaptive_avgpool(1)
  p = mul(s, g)
  y = p -> flatten -> linear(16) -> reshape([4, 4])
  return matmul(y, y) -> dropout
}
)";

const engine::Report& report() {
  static const engine::Report r = testing::simulate_on_fixed_device(kOpsNet, "ops.net");
  return r;
}

const engine::LayerRow& layer(const std::string& name) { return testing::layer_named(report(), name); }

using Pass = testing::PassCount;

using Row = testing::OpRow;

// Unary elementwise ops on [8, 8, 8] = 512 elements per sample, 1024 per batch, 4096 B:
//   forward  Fwd x 1024 FLOPs, reads x (4096 B), writes y (4096 B);
//   backward Bwd x 1024 FLOPs, reads g and the saved input (8192 B), writes the input gradient (4096 B).
constexpr Pass unary_fwd(double per_element) { return {per_element * 1024, 4096, 4096}; }
constexpr Pass unary_bwd(double per_element) { return {per_element * 1024, 8192, 4096}; }

const Row kRows[] = {
    // conv1: [4,8,8] -> [8,8,8], 3x3, 296 parameters (8*4*9 weights + 8 bias). MACs per output 4*9 = 36,
    // outputs 512 x 2 = 1024, MACs 36,864, FLOPs 73,728. Reads (2*256 + 296) x 4 = 3232 B, writes 4096 B.
    // Backward: the first conv's input needs no gradient, so only the weight gradient (73,728 FLOPs):
    // reads g and the saved input (1024 + 512) x 4 = 6144 B, writes the weight gradient 296 x 4 = 1184 B.
    // On this GPU PyTorch adds the bias in a kernel of its own (costs/conv.cpp): it reads the output
    // and the 8 biases and writes the output (+4096 + 32 read, +4096 written); the backward's bias
    // gradient reads g and writes 8 values (+4096 read, +32 written), a second kernel.
    {"conv1", {73728, 3232 + 4128, 4096 + 4096}, {73728, 3232 + 4128, 4096 + 4096}, {73728, 6144 + 4096, 1184 + 32}, 2},
    // The documented per-element counts, forward / backward:
    {"relu1", unary_fwd(1), unary_fwd(1), unary_bwd(1), 1},
    {"relu6_1", unary_fwd(2), unary_fwd(2), unary_bwd(2), 1},
    // clamp1: a comparison against each bound forward; backward g masked by both (reads g and x).
    {"clamp1", unary_fwd(2), unary_fwd(2), unary_bwd(2), 1},
    {"sigmoid1", unary_fwd(4), unary_fwd(4), unary_bwd(3), 1},
    {"tanh1", unary_fwd(5), unary_fwd(5), unary_bwd(3), 1},
    {"silu1", unary_fwd(5), unary_fwd(5), unary_bwd(9), 1},
    {"gelu1", unary_fwd(5), unary_fwd(5), unary_bwd(11), 1},
    {"hardsigmoid1", unary_fwd(4), unary_fwd(4), unary_bwd(3), 1},
    {"hardswish1", unary_fwd(5), unary_fwd(5), unary_bwd(6), 1},
    // softmax: 5 / element forward; backward 4 / element, reading g and the saved output (8192 B).
    // Its input is the conv's channels-last output (the elementwise ops keep that layout), and PyTorch's
    // softmax makes its input contiguous first: one copy more each way, 4096 B read and written
    // (engine/layout.hpp).
    {"softmax1", {5 * 1024, 8192, 8192}, {5 * 1024, 8192, 8192}, {4 * 1024, 12288, 8192}, 2},
    // batchnorm1 on [8,8,8]: C = 8, 16 parameters. Eval: 2 x 1024 FLOPs, reads x and 4C = 32 values
    // (running mean, var, gamma, beta): (1024 + 32) x 4 = 4224 B; writes 4096 B.
    // Train: 7 x 1024; reads x twice (statistics, normalise) + 4C: (2048 + 32) x 4 = 8320 B; writes y and
    // the updated running stats + saved mean/invstd (4C): (1024 + 32) x 4 = 4224 B.
    // Backward with the input gradient: 10 x 1024 in two kernels (a reduction, then the input
    // gradient), each reading g and x; and gamma/mean/invstd (3C): (2 x (1024 + 1024) + 24) x 4 =
    // 16480 B; writes the input gradient and 16 parameter gradients: 4160 B.
    {"batchnorm1", {2048, 4224, 4096}, {7168, 8320, 4224}, {10240, 16480, 4160}, 2},
    // layernorm1 over the last dimension (8): 16 parameters, 1024 / 8 = 128 rows. 7 / element in both
    // modes; reads x and the parameters (1024 + 16) x 4 = 4160 B; writes y and mean/rstd per row
    // (1024 + 2 x 128) x 4 = 5120 B. Backward 10 / element in two kernels (the input gradient, then
    // gamma and beta's column reduction), each reading g and x; plus parameters, mean/rstd:
    // (2 x (1024 + 1024) + 16 + 256) x 4 = 17472 B; writes the input and parameter gradients (1024 + 16) x 4 = 4160 B.
    {"layernorm1", {7168, 4160, 5120}, {7168, 4160, 5120}, {10240, 17472, 4160}, 2},
    // maxpool1 2x2 on [8,8,8] -> [8,4,4]: 256 outputs per batch, window 4: 3 comparisons per output = 768.
    // Reads 4096 B, writes 1024 B, and the int64 argmax (8 B per output): 256 x 12 = 3072 B, in training
    // and, on this GPU, in inference too (PyTorch computes the indices on any device but a CPU).
    // Backward: 1 per output (scatter-add) = 256; reads g and the indices (3072 B), writes 4096 B.
    {"maxpool1", {768, 4096, 3072}, {768, 4096, 3072}, {256, 3072, 4096}, 1},
    // avgpool1 2x2: window per output = 4 x 256 = 1024 both ways; backward reads g (1024 B), writes 4096 B.
    {"avgpool1", {1024, 4096, 1024}, {1024, 4096, 1024}, {1024, 1024, 4096}, 1},
    // concat1 of two [8,4,4]: a copy, no FLOPs: reads 2 x 1024 B, writes 2048 B; backward hands out views.
    {"concat1", {0, 2048, 2048}, {0, 2048, 2048}, {0, 0, 0}, 0},
    // channel_shuffle1 on [16,4,4]: a copy both ways, 2048 B in and out.
    {"channel_shuffle1", {0, 2048, 2048}, {0, 2048, 2048}, {0, 2048, 2048}, 1},
    // slice1 (first 8 of 16 channels): a view forward; backward writes a zero-filled [16,4,4] gradient:
    // reads g (1024 B), writes 2048 B.
    {"slice1", {0, 0, 0}, {0, 0, 0}, {0, 1024, 2048}, 1},
    // add1 of two [8,4,4]: 1 / output = 256; reads 2048 B, writes 1024 B. Backward: no broadcast, so no
    // reduction FLOPs; reads g (1024 B), writes both input gradients (2048 B).
    {"add1", {256, 2048, 1024}, {256, 2048, 1024}, {0, 1024, 2048}, 1},
    // adaptive_avgpool1 [8,4,4] -> [8,1,1]: one window of 16 per channel: 8 x 16 x 2 = 256 both ways;
    // reads 1024 B, writes 16 x 4 = 64 B; backward reads 64 B, writes 1024 B.
    {"adaptive_avgpool1", {256, 1024, 64}, {256, 1024, 64}, {256, 64, 1024}, 1},
    // mul1 of [8,4,4] by [8,1,1]: 256 FLOPs; reads (256 + 16) x 4 = 1088 B, writes 1024 B. Backward:
    // 1 per output per needed input (2 x 256) + 1 per output for the broadcast operand's reduction (256)
    // = 768; reads g and each gradient's other operand (256 + 16 + 256) x 4 = 2112 B; writes both
    // gradients (256 + 16) x 4 = 1088 B.
    {"mul1", {256, 1088, 1024}, {256, 1088, 1024}, {768, 2112, 1088}, 1},
    // linear1: 128 -> 16, 2064 parameters (128 x 16 + 16). MACs 32 x 128 = 4096, FLOPs 8192.
    // Reads (256 + 2064) x 4 = 9280 B, writes 32 x 4 = 128 B. Backward: input and weight gradients,
    // 16,384 FLOPs, 2 kernels; reads g, x and the weights (32 + 256 + 2064) x 4 = 9408 B; writes
    // (256 + 2064) x 4 = 9280 B.
    {"linear1", {8192, 9280, 128}, {8192, 9280, 128}, {16384, 9408, 9280}, 2},
    // matmul1 [4,4] x [4,4]: 32 outputs x K = 4: 128 MACs, 256 FLOPs; reads 2 x 128 B, writes 128 B.
    // Backward: both operands need a gradient: 2 x 256 FLOPs, 2 kernels; reads g twice and the other
    // operand each time (4 x 128 B), writes both gradients (256 B).
    {"matmul1", {256, 256, 128}, {256, 256, 128}, {512, 512, 256}, 2},
    // dropout1 on [4,4] (32 elements): eval a view; train 1 / element, reads 128 B, writes y and the
    // 1-byte mask (128 + 32 B). Backward 1 / element, reads g and the mask (160 B), writes 128 B.
    {"dropout1", {0, 0, 0}, {32, 128, 160}, {32, 160, 128}, 1},
    // The input, flatten and reshape are views: nothing runs, nothing is counted, either way.
    {"input", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    {"flatten1", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
    {"reshape1", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
};

std::vector<std::string> pinned_ops() {
  std::vector<std::string> ops;
  for (const Row& row : kRows) ops.push_back(std::string(ir::op_name(layer(row.layer).op)));
  return ops;
}
const testing::RegisterPinnedOps registered{&pinned_ops};

}  // namespace

TEST_CASE("every per-op count of the cost table in engine/op_costs.cpp, worked by hand") {
  for (const Row& row : kRows) testing::check_row(report(), row);
  // Every layer of the network has a row above.
  std::size_t checked = 0;
  for (const engine::LayerRow& l : report().layers)
    for (const Row& row : kRows)
      if (l.name == row.layer) ++checked;
  CHECK(checked == std::size(kRows));
  CHECK(report().layers.size() == std::size(kRows));
}

TEST_CASE("MACs and parameters of the cost table's matmul-class layers, worked by hand") {
  CHECK(layer("conv1").macs == 36864);
  CHECK(layer("linear1").macs == 4096);
  CHECK(layer("matmul1").macs == 128);
  CHECK(layer("relu1").macs == 0);
  CHECK(layer("conv1").params == 296);
  CHECK(layer("batchnorm1").params == 16);
  CHECK(layer("layernorm1").params == 16);
  CHECK(layer("linear1").params == 2064);
}
