// The per-element counts of the arithmetic, math and activation ops documented at the top of
// engine/costs/pointwise.cpp, pinned: forward, training-mode forward and backward FLOPs, bytes read and
// bytes written, and backward kernels, for one layer of each of sub, div, pow (a number exponent and a
// tensor exponent), exp, sqrt, rsqrt, leaky_relu, elu, prelu, mish and softplus (op_table_test.cpp
// pins the others). The expected numbers are worked by hand from those documented counts and the
// docs/counting.md's byte convention (read inputs + weights, write outputs; backward reads the output gradient,
// the saved tensors the gradient's formula uses and the weights, writes the input and weight
// gradients), never from the code under test.
//
// The network is built from .net text and read back through simulate(), layers looked up by name.
#include "engine/simulate.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"
#include "tests/engine/op_table.hpp"
#include "tests/support/fixed_device.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ridge;

namespace {

// Batch 2, fp32 (4 B per element). Per-sample shapes in the comments; counts below are per batch:
//   [4,8,8]: 256 per sample, 512 per batch, 2048 B;
//   [8,8,8]: 512 per sample, 1024 per batch, 4096 B;
//   [8,1,1]: 8 per sample, 16 per batch, 64 B (the broadcast operand of the binary ops).
// conv2 makes every layer after it need its input gradient; conv1 makes div1's divisor need one while
// its dividend (the network input) needs none.
constexpr const char* kPointwiseNet = R"(network pointwise_ops {
  input x: [4, 8, 8]
  k = x -> conv(4, 3, pad: 1)
  v = div(x, k)
  u = v -> conv(8, 3, pad: 1)
  u = u -> exp -> sqrt -> rsqrt -> leaky_relu -> elu -> prelu(num: 8) -> prelu -> mish -> softplus
  s = u -> adaptive_avgpool(1)
  d = sub(s, u)
  e = sub(d, s)
  q = div(e, s)
  p = pow(q, 2)
  return pow(p, s)
}
)";

const engine::Report& report() {
  static const engine::Report r = testing::simulate_on_fixed_device(kPointwiseNet, "pointwise_ops.net");
  return r;
}

const engine::LayerRow& layer(const std::string& name) { return testing::layer_named(report(), name); }

using Pass = testing::PassCount;

using Row = testing::OpRow;

// Unary elementwise ops on [8, 8, 8] = 1024 elements per batch, 4096 B:
//   forward  Fwd x 1024 FLOPs, reads x (4096 B), writes y (4096 B);
//   backward Bwd x 1024 FLOPs, reads g and the saved input or output (8192 B), writes the input
//   gradient (4096 B).
constexpr Pass unary_fwd(double per_element) { return {per_element * 1024, 4096, 4096}; }
constexpr Pass unary_bwd(double per_element) { return {per_element * 1024, 8192, 4096}; }

// A binary op of [8,8,8] with [8,1,1] (either order), forward: 1 per output = 1024 FLOPs; reads both
// operands (1024 + 16) x 4 = 4160 B; writes 4096 B.
constexpr Pass kBroadcastBinaryFwd{1024, 4160, 4096};

const Row kRows[] = {
    // conv1: [4,8,8] -> [4,8,8], 3x3, 148 parameters (4*4*9 weights + 4 bias). MACs per output 4*9 = 36,
    // outputs 512, MACs 18,432, FLOPs 36,864. Reads (512 + 148) x 4 = 2640 B, writes 2048 B.
    // Backward: its input (the network input) needs no gradient, so only the weight gradient
    // (36,864 FLOPs): reads g and the saved input (512 + 512) x 4 = 4096 B, writes 148 x 4 = 592 B.
    // And PyTorch's separate bias kernel on this GPU (as op_table_test.cpp's conv1): +2048 + 16 read and
    // +2048 written forward; backward +2048 read, +16 written, one more kernel.
    {"conv1", {36864, 2640 + 2064, 2048 + 2048}, {36864, 2640 + 2064, 2048 + 2048}, {36864, 4096 + 2048, 592 + 16}, 2},
    // div1 = div(x, k) on [4,8,8], only the divisor k needs a gradient (x is the network input).
    // Forward 1 / output = 512 FLOPs, reads both operands 2 x 2048 B, writes 2048 B. Backward: k's
    // gradient -g*a/b^2, 3 / output = 1536 FLOPs; its formula uses both a (x) and b (k), so it reads g,
    // x and k: 3 x 2048 = 6144 B; writes 2048 B.
    {"div1", {512, 4096, 2048}, {512, 4096, 2048}, {1536, 6144, 2048}, 1},
    // conv2: [4,8,8] -> [8,8,8], 3x3, 296 parameters (8*4*9 + 8). MACs per output 36, outputs 1024,
    // MACs 36,864, FLOPs 73,728. Reads (512 + 296) x 4 = 3232 B, writes 4096 B. Backward: its input
    // depends on conv1's parameters, so input and weight gradients, 2 x 73,728 FLOPs in 2 kernels;
    // reads g, the saved input and the weights (1024 + 512 + 296) x 4 = 7328 B; writes the input and
    // weight gradients (512 + 296) x 4 = 3232 B.
    // And the separate bias kernel: +4096 + 32 read and +4096 written forward; backward +4096 read, +32 written.
    {"conv2", {73728, 3232 + 4128, 4096 + 4096}, {73728, 3232 + 4128, 4096 + 4096}, {147456, 7328 + 4096, 3232 + 32}, 3},
    // The documented per-element counts, forward / backward: exp 1 / 1 (g*y), sqrt 1 / 2 (g / (2y)),
    // rsqrt 1 / 3 (-g y^3 / 2), leaky_relu 2 / 2, elu 4 / 3, mish 9 / 15, softplus 5 / 5.
    {"exp1", unary_fwd(1), unary_fwd(1), unary_bwd(1), 1},
    {"sqrt1", unary_fwd(1), unary_fwd(1), unary_bwd(2), 1},
    {"rsqrt1", unary_fwd(1), unary_fwd(1), unary_bwd(3), 1},
    {"leaky_relu1", unary_fwd(2), unary_fwd(2), unary_bwd(2), 1},
    {"elu1", unary_fwd(4), unary_fwd(4), unary_bwd(3), 1},
    // prelu1, one slope per channel: 8 parameters. Forward 2 / element = 2048 FLOPs; reads x and the
    // slopes (1024 + 8) x 4 = 4128 B; writes 4096 B. Backward: 2 / element for the input gradient and
    // 2 / element for the slope's (mul, sum) = 4096 FLOPs, in 2 kernels (the input gradient and the
    // slope's reduction, as linear's input and weight gradients); reads g, the saved input and the
    // slopes (1024 + 1024 + 8) x 4 = 8224 B; writes the input and slope gradients (1024 + 8) x 4 = 4128 B.
    {"prelu1", {2048, 4128, 4096}, {2048, 4128, 4096}, {4096, 8224, 4128}, 2},
    // prelu2, one shared slope (1 parameter): the same with 1 in place of 8:
    // reads (1024 + 1) x 4 = 4100 B forward, (1024 + 1024 + 1) x 4 = 8196 B backward; writes 4100 B.
    {"prelu2", {2048, 4100, 4096}, {2048, 4100, 4096}, {4096, 8196, 4100}, 2},
    {"mish1", unary_fwd(9), unary_fwd(9), unary_bwd(15), 1},
    {"softplus1", unary_fwd(5), unary_fwd(5), unary_bwd(5), 1},
    // adaptive_avgpool1 [8,8,8] -> [8,1,1] (engine/costs/conv.cpp): per axis the windows add up to
    // 8 + 1 - gcd(8, 1) = 8, so 64 per output; 16 outputs: 1024 FLOPs both ways. Reads 4096 B, writes
    // 64 B; backward reads g (64 B), writes 4096 B.
    {"adaptive_avgpool1", {1024, 4096, 64}, {1024, 4096, 64}, {1024, 64, 4096}, 1},
    // sub1 = sub(s, u), s the broadcast [8,1,1], both need a gradient. Backward: s's gradient passes g
    // (0) and is reduced over the broadcast axes (1 / output = 1024); u's is negated (1 / output =
    // 1024): 2048 FLOPs. Neither gradient needs a saved tensor: reads g (4096 B); writes both
    // gradients (16 + 1024) x 4 = 4160 B.
    {"sub1", kBroadcastBinaryFwd, kBroadcastBinaryFwd, {2048, 4096, 4160}, 1},
    // sub2 = sub(d, s), the broadcast operand second: d's gradient passes g (0); s's is negated (1024)
    // and reduced (1024): 2048 FLOPs; the same bytes as sub1.
    {"sub2", kBroadcastBinaryFwd, kBroadcastBinaryFwd, {2048, 4096, 4160}, 1},
    // div2 = div(e, s), s broadcast, both need a gradient. Backward: e's g/b 1 / output (1024); s's
    // -g*a/b^2 3 / output (3072) + the reduction (1024): 5120 FLOPs. Reads g, a and b
    // (1024 + 1024 + 16) x 4 = 8256 B; writes both gradients (1024 + 16) x 4 = 4160 B.
    {"div2", kBroadcastBinaryFwd, kBroadcastBinaryFwd, {5120, 8256, 4160}, 1},
    // pow1 = pow(q, 2): the number exponent is folded into the kernel, one input tensor. Forward
    // 1 / element: reads 4096 B, writes 4096 B. Backward g * e * x^(e-1), 3 / element = 3072 FLOPs;
    // reads g and the saved input (8192 B); writes the input gradient (4096 B).
    {"pow1", unary_fwd(1), unary_fwd(1), unary_bwd(3), 1},
    // pow2 = pow(p, s), a tensor exponent broadcast from [8,1,1], both need a gradient. Backward: the
    // base's g * e * x^(e-1) 3 / output (3072); the exponent's g * y * ln x 3 / output (3072) + the
    // reduction of a broadcast operand's gradient (1024): 7168 FLOPs. Reads g, x, e and y
    // (1024 + 1024 + 16 + 1024) x 4 = 12,352 B; writes both gradients (1024 + 16) x 4 = 4160 B.
    {"pow2", kBroadcastBinaryFwd, kBroadcastBinaryFwd, {7168, 12352, 4160}, 1},
    // The input is a view: nothing runs, nothing is counted, either way.
    {"input", {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0},
};

std::vector<std::string> pinned_ops() {
  std::vector<std::string> ops;
  for (const Row& row : kRows) ops.push_back(std::string(ir::op_name(layer(row.layer).op)));
  return ops;
}
const testing::RegisterPinnedOps registered{&pinned_ops};

}  // namespace

TEST_CASE("the pointwise per-op counts of engine/costs/pointwise.cpp, worked by hand") {
  for (const Row& row : kRows) testing::check_row(report(), row);
}

TEST_CASE("every layer of the pointwise network has a row") {
  std::size_t accounted = 0;
  for (const engine::LayerRow& l : report().layers)
    for (const Row& row : kRows)
      if (l.name == row.layer) ++accounted;
  CHECK(accounted == std::size(kRows));
  CHECK(report().layers.size() == std::size(kRows));
}

TEST_CASE("parameters and MACs of the pointwise network's layers, worked by hand") {
  CHECK(layer("conv1").params == 148);
  CHECK(layer("conv2").params == 296);
  CHECK(layer("prelu1").params == 8);   // one slope per channel
  CHECK(layer("prelu2").params == 1);   // one shared slope
  CHECK(layer("conv1").macs == 18432);
  CHECK(layer("conv2").macs == 36864);
  for (const char* pointwise : {"exp1", "sqrt1", "rsqrt1", "leaky_relu1", "elu1", "prelu1", "prelu2", "mish1",
                                "softplus1", "sub1", "sub2", "div2", "pow1", "pow2"}) {
    CAPTURE(pointwise);
    CHECK(layer(pointwise).macs == 0);
    if (std::string(pointwise).rfind("prelu", 0) != 0) CHECK(layer(pointwise).params == 0);
  }
}
