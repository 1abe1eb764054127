// Precisions below fp8 (issue #39): fp6 and fp4 elements, and the OCP MX formats whose blocks of 32
// share an 8-bit scale (OCP Microscaling Formats (MX) Specification v1.0, 2023, section 5: a block of
// k = 32 elements and one E8M0 scale).
#include "engine/simulate.hpp"
#include "engine/timing.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

ir::Device blackwell_like(const std::string& extra = "") {
  return lang::parse_device("device \"x\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = 80 TFLOP/s\n"
                            "  matrix.bf16 = 2250 TFLOP/s\n  matrix.fp8 = 4500 TFLOP/s\n  matrix.fp6 = 4500 TFLOP/s\n"
                            "  matrix.fp4 = 9000 TFLOP/s\n  memory.bandwidth = 8 TB/s\n" + extra + "}\n", "x.hw");
}

}  // namespace

TEST_CASE("an element of fp6 is 6 bits, of fp4 4, and an MX element carries a 32nd of its block's 8-bit scale") {
  CHECK(ir::bytes_per_element(ir::Precision::FP6) == 0.75);
  CHECK(ir::bytes_per_element(ir::Precision::FP4) == 0.5);
  CHECK(ir::bytes_per_element(ir::Precision::MXFP8) == 1.0 + 8.0 / 32 / 8);
  CHECK(ir::bytes_per_element(ir::Precision::MXFP6) == 0.75 + 1.0 / 32);
  CHECK(ir::bytes_per_element(ir::Precision::MXFP4) == 0.5 + 1.0 / 32);
  CHECK(ir::element_precision(ir::Precision::MXFP4) == ir::Precision::FP4);
  CHECK(ir::element_precision(ir::Precision::BF16) == ir::Precision::BF16);
  CHECK(ir::precision_from_name("mxfp6") == ir::Precision::MXFP6);
}

TEST_CASE("an MX format runs at its element type's peak unless the device gives one of its own") {
  const ir::Device d = blackwell_like();
  const engine::PeakUsed mx = engine::layer_peak(d, ir::OpClass::MatMul, ir::Precision::MXFP4);
  CHECK(mx.flops_per_s == 9000e12);
  CHECK(mx.precision == ir::Precision::FP4);
  CHECK(mx.matrix);
  const ir::Device own = blackwell_like("  matrix.mxfp4 = 8000 TFLOP/s\n");
  CHECK(engine::layer_peak(own, ir::OpClass::MatMul, ir::Precision::MXFP4).flops_per_s == 8000e12);
  // Elementwise ops have no fp4 vector peak: the fp32 vector peak, as for every narrower precision.
  const engine::PeakUsed vector = engine::layer_peak(d, ir::OpClass::Elementwise, ir::Precision::FP4);
  CHECK(vector.precision == ir::Precision::FP32);
  CHECK(vector.flops_per_s == 80e12);
}

TEST_CASE("a network in fp4 moves half the bytes of fp8 and its GEMMs run at twice the rate") {
  const ir::Network net = lang::parse_network("network n {\n  input x: [1024]\n  return x -> linear(4096) -> relu -> linear(1024)\n}\n", "n.net");
  const ir::Device d = blackwell_like();
  const engine::Report fp8 = engine::simulate(net, d, {.batch = 4096, .precision = ir::Precision::FP8, .kernel_model = engine::KernelModel::Flat});
  const engine::Report fp4 = engine::simulate(net, d, {.batch = 4096, .precision = ir::Precision::FP4, .kernel_model = engine::KernelModel::Flat});
  const engine::Report mx = engine::simulate(net, d, {.batch = 4096, .precision = ir::Precision::MXFP4, .kernel_model = engine::KernelModel::Flat});
  CHECK_THAT(fp4.totals.bytes_fwd, WithinRel(fp8.totals.bytes_fwd / 2, 1e-12));
  CHECK_THAT(mx.totals.bytes_fwd, WithinRel(fp4.totals.bytes_fwd * (0.5 + 1.0 / 32) / 0.5, 1e-12));
  CHECK(fp4.totals.flops_fwd == fp8.totals.flops_fwd);
  CHECK(fp4.totals.weight_bytes == fp4.totals.params * 0.5);
  const auto& fc8 = fp8.layers[1];
  const auto& fc4 = fp4.layers[1];
  CHECK_THAT(fc4.time_fwd.roofline_s, WithinRel(fc8.time_fwd.roofline_s / 2, 1e-9));
}

TEST_CASE("weight-only int8 halves what a decode GEMM reads from DRAM under the kernel model, and only there") {
  // gpt-fast's int8 weight-only linear (and torchao's): int8 weights dequantised on their way to the
  // bf16 matrix units. A batch-1 linear of 8192 x 8192 reads its weights once: 128 MiB at bf16, 64 MiB
  // at int8, both beyond an A100's 40 MB L2, so the kernel model's DRAM term carries them.
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-80gb.hw");
  const ir::Network net = lang::parse_network("network n {\n  input x: [8192]\n  return x -> linear(8192, bias: false) as fc\n}\n", "n.net");
  engine::Options bf16{.batch = 1, .precision = ir::Precision::BF16};
  engine::Options int8 = bf16;
  int8.weight_bytes = 1.0;
  const engine::LayerRow dense = engine::simulate(net, a100, bf16).layers.back();
  const engine::LayerRow quantised = engine::simulate(net, a100, int8).layers.back();
  REQUIRE(dense.time_fwd.kernel_model);
  REQUIRE(quantised.time_fwd.kernel_model);
  const double half_the_weights = 8192.0 * 8192 * 1 / a100.memory_bandwidth->value;   // the bytes saved, at the datasheet's rate
  CHECK(dense.time_fwd.paleo_s - quantised.time_fwd.paleo_s > 0.8 * half_the_weights);
  CHECK(quantised.time_fwd.paleo_s > half_the_weights);   // it still reads them once
  CHECK(quantised.fwd.flops == dense.fwd.flops);
  // A training step keeps the weights whole: its GEMMs are unchanged.
  CHECK(quantised.time_bwd.paleo_s == dense.time_bwd.paleo_s);
}
