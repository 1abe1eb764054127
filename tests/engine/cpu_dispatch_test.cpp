// On a CPU measured on one thread, eager LibTorch runs a unit-stride 1x1 convolution below batch 16
// outside oneDNN, and the engine times it by a class of its own (ir::OpClass::PointwiseNative,
// engine/cpu_dispatch.hpp). tests/validate/conv_backend_test.cpp checks the rule against LibTorch's own
// backend choice; here, where the engine applies it and what it changes.
#include "engine/explain.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/reports.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace engine = ridge::engine;
namespace ir = ridge::ir;
using ridge::testing::layer_named;

namespace {

// A bottleneck's convolutions: a 1x1 projection, a 3x3, a 1x1 expansion, and a strided 1x1 shortcut.
ir::Network bottleneck() {
  return ridge::lang::parse_network("network b {\n  input x: [256, 56, 56]\n"
                                    "  y = x -> conv(64, kernel: 1, bias: false) as reduce\n"
                                    "        -> conv(64, kernel: 3, pad: 1, bias: false) as body\n"
                                    "        -> conv(512, kernel: 1, stride: 2, bias: false) as expand\n"
                                    "  return y\n}\n",
                                    "b.net");
}

// A CPU as calibrate writes one: measured figures, the thread count they hold for, and (optionally) a
// PPP for the native kernel a fifth of the pointwise one's.
ir::Device cpu(std::string threads_line, bool native_ppp = false) {
  return ridge::lang::parse_device(
      "device \"cpu\" {\n  kind = cpu\n  peak.fp32 = 160 GFLOP/s source \"s\"\n  memory.bandwidth = 13 GB/s source \"s\"\n"
      "  ppp.pointwise.compute = 0.9 source \"s\"\n" +
          (native_ppp ? std::string("  ppp.pointwise_native.compute = 0.18 source \"s\"\n") : std::string()) + threads_line +
          "}\n",
      "cpu.hw");
}

ir::OpClass class_of(const ir::Device& d, const std::string& layer, std::int64_t batch,
                     ir::Precision precision = ir::Precision::FP32) {
  return layer_named(engine::simulate(bottleneck(), d, {.batch = batch, .precision = precision}), layer).op_class;
}

}  // namespace

TEST_CASE("LibTorch's native 1x1: one thread, unit stride, fp32, a batch under 16") {
  const ir::Device one = cpu("  measured.threads = 1 source \"s\"\n");
  CHECK(class_of(one, "reduce", 8) == ir::OpClass::PointwiseNative);
  CHECK(class_of(one, "reduce", 15) == ir::OpClass::PointwiseNative);
  CHECK(class_of(one, "reduce", 16) == ir::OpClass::Pointwise);    // oneDNN from batch 16
  CHECK(class_of(one, "expand", 8) == ir::OpClass::Pointwise);     // strided: oneDNN
  CHECK(class_of(one, "body", 8) == ir::OpClass::MatMul);          // 3x3: oneDNN
  CHECK(class_of(one, "reduce", 8, ir::Precision::BF16) == ir::OpClass::Pointwise);
  CHECK(class_of(cpu("  measured.threads = 2 source \"s\"\n"), "reduce", 8) == ir::OpClass::Pointwise);
  CHECK(class_of(cpu(""), "reduce", 8) == ir::OpClass::Pointwise);   // no thread count: all the cores
}

TEST_CASE("the native class takes pointwise's PPP until a .hw gives its own") {
  const auto reduce_s = [](const ir::Device& d) {
    return layer_named(engine::simulate(bottleneck(), d, {.batch = 8}), "reduce").time_fwd.paleo_s;
  };
  const ir::Device all_cores = cpu("");
  const ir::Device one = cpu("  measured.threads = 1 source \"s\"\n");
  CHECK(reduce_s(one) == Approx(reduce_s(all_cores)).epsilon(1e-12));
  // 2 x 8 x 56^2 x 64 x 256 FLOPs = 822 MFLOP: 28.5 ms of compute at 0.18 of 160 GFLOP/s, where the
  // fallback's 0.9 took 5.7 ms; PALEO adds the same memory time to both.
  const ir::Device fitted = cpu("  measured.threads = 1 source \"s\"\n", true);
  const double flops = 2.0 * 8 * 56 * 56 * 64 * 256;
  CHECK(reduce_s(fitted) >= flops / (0.18 * 160e9));
  CHECK(reduce_s(fitted) - reduce_s(one) == Approx(flops / 160e9 * (1 / 0.18 - 1 / 0.9)).epsilon(1e-9));
}

TEST_CASE("simulate --explain says why a 1x1 convolution runs on LibTorch's native kernel") {
  const std::string text = engine::render::explain(
      engine::explain_layer(bottleneck(), cpu("  measured.threads = 1 source \"s\"\n"), {.batch = 8}, "reduce"));
  CHECK_THAT(text, Catch::Matchers::Contains("(conv, pointwise_native class)"));
  CHECK_THAT(text, Catch::Matchers::Contains("LibTorch runs it as a BLAS GEMM, not oneDNN"));
}
