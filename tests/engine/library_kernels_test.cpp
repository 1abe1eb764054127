// What PyTorch's GPU libraries run beside a layer's own kernel, worked by hand. A convolution's bias
// (OpCost::bias_forward): PyTorch adds it after cuDNN's call in a kernel of its own, and reduces dY for
// its gradient in another (aten/src/ATen/native/Convolution.cpp); a runtime that fuses, a CPU, a
// convolution without a bias and a depthwise one run no such kernel. A max pool's inference forward
// (OpCost::indices_forward) writes its argmax on a GPU, not on a CPU (MaxPooling.cpp).
#include "engine/explain.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/reports.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace engine = ridge::engine;
namespace ir = ridge::ir;
using ridge::testing::catalogue_device;
using ridge::testing::layer_named;

namespace {

// a has a bias, n has none, d is depthwise with a bias; a's input needs no gradient, n's does.
ir::Network convs() {
  return ridge::lang::parse_network(
      "network convs {\n"
      "  input x: [16, 28, 28]\n"
      "  return x -> conv(32, kernel: 3, pad: 1) as a -> conv(64, kernel: 3, pad: 1, bias: false) as n\n"
      "           -> conv(64, kernel: 3, pad: 1, groups: 64) as d\n"
      "}\n",
      "convs.net");
}

}  // namespace

TEST_CASE("a GPU convolution's bias is a kernel of its own in eager PyTorch, folded away where the runtime fuses") {
  const ir::Network net = convs();
  const ir::Device a100 = catalogue_device("a100-sxm4-40gb");
  const engine::Options eager{.batch = 8, .precision = ir::Precision::FP16};
  engine::Options fused = eager;
  fused.runtime = std::make_shared<const ir::Runtime>(ridge::lang::load_runtime(std::string(RIDGE_RUNTIMES_DIR) + "/tensorrt.rt"));
  const engine::Report separate = engine::simulate(net, a100, eager), folded = engine::simulate(net, a100, fused);
  // fp16, batch 8: a writes 8·32·28·28 elements; its bias is 32 values.
  const double y = 8.0 * 32 * 784 * 2, bias = 32.0 * 2;
  // Forward: one kernel reads y and the bias and writes y.
  CHECK(layer_named(separate, "a").fwd.kernels - layer_named(folded, "a").fwd.kernels == 1);
  CHECK(layer_named(separate, "a").fwd.bytes() - layer_named(folded, "a").fwd.bytes() == 2 * y + bias);
  CHECK(layer_named(separate, "a").time_fwd.paleo_s - layer_named(folded, "a").time_fwd.paleo_s >= 2 * y / 1.555e12);
  // Backward: one kernel reads dY and writes the bias gradient.
  CHECK(layer_named(separate, "a").bwd.kernels - layer_named(folded, "a").bwd.kernels == 1);
  CHECK(layer_named(separate, "a").bwd.bytes() - layer_named(folded, "a").bwd.bytes() == y + bias);
  CHECK(layer_named(separate, "a").time_bwd.paleo_s > layer_named(folded, "a").time_bwd.paleo_s);
  // No bias, or a depthwise convolution (its kernel adds the bias): nothing.
  for (const char* name : {"n", "d"}) {
    INFO(name);
    CHECK(layer_named(separate, name).fwd == layer_named(folded, name).fwd);
    CHECK(layer_named(separate, name).bwd == layer_named(folded, name).bwd);
  }
  // --explain describes the forward simulate timed, the bias kernel in it.
  const engine::LayerExplanation e = engine::explain_layer(net, a100, eager, "a");
  CHECK(e.passes[0].cost.kernels == 2);
  CHECK(e.passes[0].cost.bytes() == layer_named(separate, "a").fwd.bytes());
  CHECK(separate.totals.kernels_fwd == folded.totals.kernels_fwd + 1);
  CHECK(separate.totals.kernels_bwd == folded.totals.kernels_bwd + 1);
  CHECK(separate.totals.bytes_fwd == folded.totals.bytes_fwd + 2 * y + bias);
}

TEST_CASE("a CPU's convolution adds its bias in the same kernel") {
  const ir::Network net = convs();
  const engine::Report cpu = engine::simulate(net, catalogue_device("xeon-8480"), {.batch = 8, .precision = ir::Precision::FP32});
  CHECK(layer_named(cpu, "a").fwd.kernels == 1);
  CHECK(layer_named(cpu, "a").fwd.kernels == layer_named(cpu, "n").fwd.kernels);
  CHECK(layer_named(cpu, "a").bwd.kernels == 1);   // the weight gradient alone: x needs none
}

TEST_CASE("a max pool's inference forward writes its int64 indices on a GPU, not on a CPU") {
  const ir::Network net = ridge::lang::parse_network(
      "network pool {\n"
      "  input x: [8, 16, 16]\n"
      "  return x -> conv(8, kernel: 3, pad: 1, bias: false) -> maxpool(2) as p\n"
      "}\n",
      "pool.net");
  const engine::Options options{.batch = 4, .precision = ir::Precision::FP32};
  // 4 samples of [8, 8, 8]: 2048 outputs, 8 KiB of them at fp32, 16 KiB of indices.
  const double outputs = 4.0 * 8 * 8 * 8;
  const engine::Report gpu = engine::simulate(net, catalogue_device("a100-sxm4-40gb"), options);
  CHECK(layer_named(gpu, "p").fwd.bytes_written == outputs * (4 + 8));
  CHECK(layer_named(gpu, "p").fwd.kernels == 1);
  CHECK(layer_named(gpu, "p").fwd_train.bytes_written == outputs * (4 + 8));
  const engine::Report cpu = engine::simulate(net, catalogue_device("xeon-8480"), options);
  CHECK(layer_named(cpu, "p").fwd.bytes_written == outputs * 4);
  CHECK(layer_named(cpu, "p").fwd_train.bytes_written == outputs * (4 + 8));
  // The totals count them.
  CHECK(gpu.totals.bytes_fwd - cpu.totals.bytes_fwd == outputs * 8);
}
