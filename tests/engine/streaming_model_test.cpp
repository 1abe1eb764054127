// The streaming-op kernel model (engine/kernels/streaming.hpp), held to cases worked by hand: a large
// elementwise kernel at the achieved DRAM bandwidth plus the fixed time, PyTorch's softmax dispatch,
// and the row re-reads that stay in L2 until the rows in flight outgrow it.
#include "engine/kernels/streaming.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::WithinRel;
namespace kernels = ridge::engine::kernels;

namespace {

// An A100's streaming facts from its whitepaper: 108 SMs of 2048 threads, 40 MiB of L2, 1555 GB/s,
// reaching 0.87 of it, 5 us fixed per kernel (round, so the sums read plainly).
kernels::GpuFacts a100() {
  kernels::GpuFacts f;
  f.family = "ampere";
  f.sms = 108;
  f.threads_per_unit = 2048;
  f.l2_size = 40.0 * 1024 * 1024;
  f.dram_bandwidth = 1555e9;
  f.dram_efficiency = 0.87;
  f.kernel_fixed_s = 5e-6;
  return f;
}

}  // namespace

TEST_CASE("an elementwise add streams its three tensors at the achieved bandwidth, plus the fixed time") {
  // 2^24 fp32 elements: two read, one written, 201 MB; 1 FLOP each at 19.5 TFLOP/s is far below.
  const double bytes = 3.0 * 4 * (1 << 24);
  const auto p = kernels::plan_stream({double(1 << 24), bytes, 1, {}}, a100(), 19.5e12);
  CHECK(p.traffic == bytes);
  CHECK_THAT(p.dram_s, WithinRel(bytes / (0.87 * 1555e9), 1e-12));
  CHECK_THAT(p.seconds, WithinRel(p.dram_s + 5e-6, 1e-12));
  CHECK_FALSE(p.compute_limited);
  // A small tensor pays the fixed time beside its bytes: 1 MB reaches well under half the bandwidth.
  const auto small = kernels::plan_stream({0, 1e6, 1, {}}, a100(), 19.5e12);
  CHECK(1e6 / small.seconds < 0.5 * 0.87 * 1555e9);
  // A calibrated PPP divides the DRAM term.
  CHECK_THAT(kernels::plan_stream({0, bytes, 1, {}}, a100(), 19.5e12, 0.5).dram_s, WithinRel(2 * p.dram_s, 1e-12));
}

TEST_CASE("softmax rows of up to 1024 elements and 4 KB are one warp's, longer rows one block's, read three times") {
  CHECK(kernels::softmax_rows(1, 1024, 4).reads == 1);
  CHECK(kernels::softmax_rows(1, 1024, 2).reads == 1);
  // SoftMax_getBlockSize with ILP = 16 B / element: fp32 1280 -> 320 / 2 = 160 -> 256 threads; 2560 ->
  // 640 / 2 = 320 -> 512; 16384 -> min(4096, 1024) / 2 = 512. fp16 2048 -> 256 / 2 = 128.
  const auto f1280 = kernels::softmax_rows(1, 1280, 4);
  CHECK(f1280.reads == 3);
  CHECK(f1280.block_threads == 256);
  CHECK(kernels::softmax_rows(1, 2560, 4).block_threads == 512);
  CHECK(kernels::softmax_rows(1, 16384, 4).block_threads == 512);
  CHECK(kernels::softmax_rows(1, 2048, 2).block_threads == 128);
}

TEST_CASE("a layer norm's second read of each row stays in L2 until the rows in flight outgrow it") {
  // 128-thread blocks, 16 per SM, 1728 rows in flight on 108 SMs. 2 x 1728 x 2560 x 4 B = 35.4 MB fits
  // 40 MiB: the pass moves its bytes once. 2 x 1728 x 4096 x 4 B = 56.6 MB does not: one more read of
  // the input from DRAM.
  const double rows = 65536;
  for (const double h : {2560.0, 4096.0}) {
    const auto r = kernels::layer_norm_rows(rows, h, 4);
    const double bytes = 2.0 * rows * h * 4;   // read once, written once
    const auto p = kernels::plan_stream({7.0 * rows * h, bytes, 1, r}, a100(), 19.5e12);
    CHECK(p.rows_in_flight == 1728);
    INFO(h);
    CHECK(p.rereads_in_l2 == (h == 2560.0));
    CHECK(p.traffic == (h == 2560.0 ? bytes : bytes + rows * h * 4));
  }
  // A device that gives no L2 size takes every re-read from DRAM.
  auto no_l2 = a100();
  no_l2.l2_size = 0;
  CHECK_FALSE(kernels::plan_stream({0, 1, 1, kernels::layer_norm_rows(1, 8, 4)}, no_l2, 1e12).rereads_in_l2);
}

TEST_CASE("simulate times a GPU's elementwise layer with the streaming model, its layer norm with the row rule") {
  const ridge::ir::Network net = ridge::lang::parse_network(R"(
network probe {
  input x: [4096, 4096]
  return x -> relu as act -> layernorm(dims: 1) as norm
}
)", "probe.net");
  const auto device = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const auto report = ridge::engine::simulate(net, device, {.batch = 4, .precision = ridge::ir::Precision::FP32});
  const auto facts = kernels::gpu_facts(device, ridge::ir::Precision::FP32, false);
  REQUIRE(facts);
  for (const auto& row : report.layers) {
    if (row.name != "act" && row.name != "norm") continue;
    INFO(row.name);
    CHECK(row.time_fwd.kernel_model);
    // 4 x 4096 rows of 16 KB fp32: 2 x 1728 x 16 KB = 56.6 MB > 40 MiB, so the norm reads its input twice.
    const double extra = row.name == "norm" ? 4.0 * 4096 * 4096 * 4 : 0.0;
    const double dram = (row.fwd.bytes() + extra) / (facts->dram_efficiency * facts->dram_bandwidth);
    const double compute = row.fwd.flops / row.peak.flops_per_s;
    CHECK_THAT(row.time_fwd.device_s, WithinRel(std::max(dram, compute) + facts->kernel_fixed_s, 1e-9));
  }
}

TEST_CASE("a softmax over the last axis is the row kernel whether the axis is written -1 or by its index") {
  // [8, 4096] per sample at batch 2, fp32: 16 rows of 4096 elements (16 KB each): past the warp
  // kernel's 1024 elements, so one block's, read three times (SoftMax.cu). axis: 1 is the last axis
  // of the per-sample shape, as -1 is; axis: 0 softmaxes across rows and is no row kernel.
  const auto rows_of = [](const std::string& axis) {
    const ridge::ir::Network net = ridge::lang::parse_network(
        "network n {\n  input x: [8, 4096]\n  return x -> softmax(axis: " + axis + ")\n}\n", "softmax.net");
    return ridge::engine::workload(net, {.batch = 2}).cost(1).rows_forward;
  };
  for (const char* last : {"-1", "1"}) {
    CAPTURE(last);
    const kernels::RowKernel r = rows_of(last);
    CHECK(r.rows == 16);
    CHECK(r.elements == 4096);
    CHECK(r.reads == 3);
  }
  CHECK(rows_of("0").reads == 1);
}
