// The GPU kernel model (engine/kernels/gemm.hpp), held to cases worked by hand in the comments: tiles,
// waves and wave efficiency on 108 (A100) and 132 (H100) SMs, the main loop's fill, split-K, and the
// GEMMs the cost rows hand it.
#include "engine/kernels/gemm.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include <unistd.h>

using Catch::Matchers::WithinRel;
using ridge::engine::kernels::Gemm;
using ridge::engine::kernels::GpuFacts;
using ridge::engine::kernels::Tile;
namespace kernels = ridge::engine::kernels;

namespace {

// An A100 SXM4's facts at bf16, written out from its whitepaper (108 SMs, 2048 FLOP/clk/SM at 1.41 GHz,
// 1555 GB/s, L2 5120 B/clk x 1.41 GHz), with a sustained fraction of 1 so the arithmetic below is the
// model's alone, not the fitted constant's.
GpuFacts a100() {
  GpuFacts f;
  f.family = "ampere";
  f.sms = 108;
  f.sm_flops = 2048 * 1.41e9;
  f.matrix = true;
  f.shared_memory = 164 * 1024;
  f.l2_bandwidth = 5120 * 1.41e9;
  f.dram_bandwidth = 1555e9;
  f.dram_efficiency = 1.0;
  f.sustained = 1.0;
  f.kernel_fixed_s = 5e-6;   // a round figure, so the sums below read plainly
  f.in_bytes = 2;
  f.out_bytes = 2;
  return f;
}

// An H100 SXM5's at bf16: 132 SMs, 4096 FLOP/clk/SM at 1.83 GHz, 3350 GB/s.
GpuFacts h100() {
  GpuFacts f = a100();
  f.family = "hopper";
  f.sms = 132;
  f.sm_flops = 4096 * 1.83e9;
  f.shared_memory = 228 * 1024;
  f.l2_bandwidth = 0;   // no L2 term
  f.dram_bandwidth = 3350e9;
  return f;
}

}  // namespace

TEST_CASE("a 4096 x 4096 GEMM's 128x128 tiles fill 10 waves on 108 SMs and 8 on 132") {
  const Gemm g{4096, 4096, 4096, 1};
  const Tile t{128, 128, 32, 4};
  // 4096 / 128 = 32 tiles a side: 1024 tiles.
  // 108 SMs: 9 waves hold 972, so 10 waves; the last holds 52 of 108. Efficiency 1024 / 1080.
  const auto on_a100 = kernels::plan_tile(g, a100(), t);
  CHECK(on_a100.tiles == 1024);
  CHECK(on_a100.waves == 10);
  CHECK_THAT(on_a100.wave_efficiency, WithinRel(1024.0 / 1080.0, 1e-12));
  // 132 SMs: 7 waves hold 924, so 8; efficiency 1024 / 1056.
  const auto on_h100 = kernels::plan_tile(g, h100(), t);
  CHECK(on_h100.waves == 8);
  CHECK_THAT(on_h100.wave_efficiency, WithinRel(1024.0 / 1056.0, 1e-12));
}

TEST_CASE("a GEMM that does not divide into tiles pays for whole tiles") {
  // m = 200 needs two 128-row tiles (the second 72 rows full of padding); n = 100 one 128-column tile.
  const auto p = kernels::plan_tile({200, 100, 64, 1}, a100(), {128, 128, 32, 4});
  CHECK(p.tiles == 2);
  CHECK(p.waves == 1);
  CHECK_THAT(p.wave_efficiency, WithinRel(2.0 / 108.0, 1e-12));
}

TEST_CASE("the main loop's efficiency is iterations over iterations plus the fill, worked by hand") {
  // 128x128x32 tile, 4 stages, bf16 in and out: fill = 4 + 128*128*2 / ((128 + 128) * 32 * 2) = 4 + 2 = 6.
  // k = 1024: 32 iterations, 32 / 38.
  const auto p = kernels::plan_tile({4096, 4096, 1024, 1}, a100(), {128, 128, 32, 4});
  CHECK_THAT(p.mainloop_efficiency, WithinRel(32.0 / 38.0, 1e-12));
  // Compute = waves * 2*128*128*32 FLOP * (32 + 6) steps / SM peak = 10 * 1048576 * 38 / 2.88768e12 s.
  CHECK_THAT(p.compute_s, WithinRel(10.0 * 1048576.0 * 38.0 / (2048 * 1.41e9), 1e-12));
  // L2: 1024 tiles * (128 + 128) * 32 * 32 iterations * 2 B / 7.2192e12 B/s.
  CHECK_THAT(p.l2_s, WithinRel(1024.0 * 256 * 32 * 32 * 2 / (5120 * 1.41e9), 1e-12));
  // DRAM: (4096*1024 * 2 operands + 4096*4096 out) * 2 B / 1555 GB/s.
  CHECK_THAT(p.dram_s, WithinRel((2.0 * 4096 * 1024 + 4096.0 * 4096) * 2 / 1555e9, 1e-12));
  CHECK(p.limit == kernels::Limit::Compute);
  // The kernel's time: the largest term, plus one kernel's fixed time (no split, so no reduction).
  CHECK(p.fixed_s == 5e-6);
  CHECK_THAT(p.seconds, WithinRel(p.compute_s + 5e-6, 1e-12));
}

TEST_CASE("a larger K never lowers a tile's main-loop efficiency") {
  for (const GpuFacts& f : {a100(), h100()})
    for (const Tile& t : kernels::candidate_tiles(f.family, true, 2)) {
      double last = 0;
      for (double k = 16; k <= 65536; k *= 1.5) {
        const double e = kernels::plan_tile({4096, 4096, std::floor(k), 1}, f, t).mainloop_efficiency;
        CHECK(e >= last);
        last = e;
      }
    }
}

TEST_CASE("an H100 bf16 8192-cube GEMM, worked by hand on the 128x256x64 tile") {
  // Hopper's tile set starts with 128x256x64 (K step 128 B = 64 bf16), 4 stages.
  const auto tiles = kernels::candidate_tiles("hopper", true, 2);
  REQUIRE(tiles.front() == Tile{128, 256, 64, 4});
  // 64 x 32 = 2048 tiles; 15 waves of 132 hold 1980, so 16 waves. 128 iterations;
  // fill = 4 + 128*256*2 / (384 * 64 * 2) = 4 + 4/3. A persistent Hopper kernel pays the fill once per
  // SM: compute = (16 * 128 + 16/3) steps of 2*128*256*64 FLOPs at 4096 FLOP/clk x 1.83 GHz.
  const auto p = kernels::plan_tile({8192, 8192, 8192, 1}, h100(), tiles.front());
  CHECK(p.waves == 16);
  CHECK_THAT(p.mainloop_efficiency, WithinRel(2048.0 / (2048.0 + 16.0 / 3.0), 1e-12));
  CHECK_THAT(p.compute_s, WithinRel((16.0 * 128 + 16.0 / 3.0) * 2 * 128 * 256 * 64 / (4096 * 1.83e9), 1e-12));
  // The best plan is no slower than this one, and no plan beats the device's peak.
  const auto best = kernels::plan_gemm({8192, 8192, 8192, 1}, h100());
  CHECK(best.seconds <= p.seconds);
  CHECK(best.fraction_of_peak <= 1.0);
}

TEST_CASE("Hopper pays a tile's fill once per SM at 16 bits, once per tile at tf32 and on Ampere") {
  // 8192 x 8192 x 64 on 128x256x64 tiles: 2048 tiles, 16 waves on 132 SMs, 1 main-loop step each,
  // fill 4 + 4/3. bf16 on Hopper (persistent): 16 x 1 + 16/3 steps. tf32 (4-byte inputs: K step 32,
  // 2 steps; fill 4 + 128*256*4 / (384 * 32 * 4) = 4 + 8/3) and Ampere: waves x (steps + fill).
  const Tile t{128, 256, 64, 4};
  const double step = 2.0 * 128 * 256 * 64 / (4096 * 1.83e9);
  CHECK_THAT(kernels::plan_tile({8192, 8192, 64, 1}, h100(), t).compute_s, WithinRel((16.0 + 16.0 / 3.0) * step, 1e-12));
  GpuFacts tf32 = h100();
  tf32.in_bytes = tf32.out_bytes = 4;
  const Tile t32{128, 256, 32, 4};
  const double step32 = 2.0 * 128 * 256 * 32 / (4096 * 1.83e9);
  CHECK_THAT(kernels::plan_tile({8192, 8192, 64, 1}, tf32, t32).compute_s, WithinRel(16.0 * (2.0 + 4.0 + 8.0 / 3.0) * step32, 1e-12));
  GpuFacts ampere = h100();
  ampere.family = "ampere";
  CHECK_THAT(kernels::plan_tile({8192, 8192, 64, 1}, ampere, t).compute_s, WithinRel(16.0 * (1.0 + 16.0 / 3.0) * step, 1e-12));
}

TEST_CASE("split-K is taken where a GEMM has fewer tiles than SMs and a long K") {
  // 256 x 256 x 16384: four 128x128 tiles on 108 SMs; split 16 ways they keep 64 SMs busy.
  const auto p = kernels::plan_gemm({256, 256, 16384, 1}, a100());
  CHECK(p.split_k > 1);
  const auto unsplit = kernels::plan_tile({256, 256, 16384, 1}, a100(), p.tile, 1);
  CHECK(p.seconds < unsplit.seconds);
  CHECK(p.reduction_s > 0);
  // A GEMM with tiles for every SM is never split.
  CHECK(kernels::plan_gemm({8192, 8192, 8192, 1}, a100()).split_k == 1);
}

TEST_CASE("a matrix-vector product is limited by DRAM, at the weights' bytes over the bandwidth") {
  // m = 1 (one token's decode): 4096 x 4096 bf16 weights, 33.5 MB, at 1555 GB/s: ~21.6 us, and the
  // kernel's fixed time beside it.
  const auto p = kernels::plan_gemm({1, 4096, 4096, 1}, a100());
  CHECK(p.limit == kernels::Limit::Dram);
  CHECK_THAT(p.dram_s, WithinRel((4096.0 * 4096 + 4096 + 4096) * 2 / 1555e9, 1e-9));
  CHECK_THAT(p.seconds, WithinRel(p.dram_s + p.fixed_s, 1e-12));
  // Split-K's reduction is a second kernel, with a fixed time of its own.
  const auto split = kernels::plan_tile({256, 256, 16384, 1}, a100(), {64, 64, 32, 10}, 4);
  CHECK_THAT(split.fixed_s, WithinRel(2 * 5e-6, 1e-12));
}

TEST_CASE("a tile whose pipeline overflows shared memory is no candidate") {
  GpuFacts small = a100();
  small.shared_memory = 48 * 1024;   // a Kepler SM's 48 KiB per block
  // 256x128x32 with 3 stages needs 3 * 384 * 32 * 2 = 73,728 B.
  const auto p = kernels::plan_gemm({8192, 8192, 8192, 1}, small);
  CHECK(static_cast<double>(p.tile.stages) * (p.tile.m + p.tile.n) * p.tile.k * 2 <= 48 * 1024);
}

TEST_CASE("the cost rows hand the kernel model GEMMs with exactly their matmul FLOPs") {
  // A linear layer, a convolution (implicit GEMM) and a batched matmul; forward and backward.
  const ridge::ir::Network net = ridge::lang::parse_network(R"(
network probe {
  input x: [64, 56, 56]
  w = parameter([56, 7])
  y = matmul(x, w) as mm
  return y -> conv(128, 3, stride: 2, pad: 1, bias: false) as conv -> flatten -> linear(100) as fc
}
)", "probe.net");
  const auto workload = ridge::engine::workload(net, {.batch = 8, .precision = ridge::ir::Precision::BF16});
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& c = workload.cost(i);
    const std::string& name = net.layers[i].name;
    if (name != "conv" && name != "fc" && name != "mm") continue;
    INFO(name);
    REQUIRE(c.gemm_forward.count == 1);
    CHECK_THAT(c.gemm_forward.flops(), WithinRel(2.0 * c.macs, 1e-12));
    CHECK_THAT(c.gemm_backward.flops(), WithinRel(c.backward.flops, 1e-12));
  }
}


TEST_CASE("a 3x3 convolution's implicit GEMM reads its input tensor from DRAM once, not its im2col") {
  // 64 -> 64 channels, 3x3, stride 1, pad 1, on 56x56 maps, batch 256, int8: the forward GEMM is
  // m = 256 * 56 * 56 = 802,816 positions, n = 64, k = 64 * 9 = 576. Its im2col operand would be
  // m k = 462 M elements; DRAM holds the input once, 256 * 64 * 56 * 56 = 51.4 M, beside the 36,864
  // weights and the m n outputs. (The windows' reuse is what the L2 and shared-memory terms carry.)
  const ridge::ir::Network net = ridge::lang::parse_network(R"(
network probe {
  input x: [64, 56, 56]
  return x -> conv(64, 3, pad: 1, bias: false) as first -> conv(64, 3, pad: 1, bias: false) as conv
}
)", "probe.net");
  const auto workload = ridge::engine::workload(net, {.batch = 256, .precision = ridge::ir::Precision::INT8});
  const auto& c = workload.cost(workload.cost_of.size() - 1);
  REQUIRE(c.gemm_forward.count == 1);
  const Gemm& g = c.gemm_forward.gemms[0];
  CHECK(g.m == 802816);
  CHECK(g.k == 576);
  const double input = 256.0 * 64 * 56 * 56, weights = 64.0 * 576, outputs = 802816.0 * 64;
  CHECK(g.operand_elements() == input + weights);
  GpuFacts f = a100();
  f.in_bytes = f.out_bytes = 1;
  CHECK_THAT(kernels::plan_tile(g, f, {128, 64, 64, 4}).dram_s, WithinRel((input + weights + outputs) / 1555e9, 1e-12));
  // Backward (its input comes from a layer with weights, so it needs a gradient): the input gradient's
  // windows run over dY, the weight gradient's over x; both stored once.
  REQUIRE(c.gemm_backward.count == 2);
  CHECK(c.gemm_backward.gemms[0].operand_elements() == outputs + weights);
  CHECK(c.gemm_backward.gemms[1].operand_elements() == outputs + input);
}

// `simulate --explain LAYER`, run as a user would: the derivation it prints is arithmetic a reader can
// redo. Whatever tile the model picks for a 4096 x 2048 x 1024 bf16 GEMM on an A100 (108 SMs), the
// printed tile count is ceil(4096 / tile.m) * ceil(2048 / tile.n), the waves ceil(tiles / 108) and the
// wave efficiency tiles / (waves * 108).

namespace {

ridge::testing::ProgramRun simulate_cli(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / ("ridge-explain-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return ridge::testing::run_program(RIDGE_SIMULATE, args, dir);
}

const std::string kGemmNet = std::string(RIDGE_SOURCE_DIR) + "/validate/nets/gemm.net";

}  // namespace

TEST_CASE("simulate --explain prints a GEMM's tile, tiles and waves, which multiply out by hand") {
  const auto r = simulate_cli(kGemmNet + " " + RIDGE_HW_DIR + "/a100-sxm4-40gb.hw -d bf16 --explain gemm --set m=4096 --set n=2048 --set k=1024");
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("kernel model: ampere, 108 SMs"));
  // "tile 128x256x64, 3 stages: 64 tiles over 108 SMs = 1 wave, wave efficiency 0.593" (read without
  // std::regex, whose GCC 12 headers warn -Wmaybe-uninitialized in the ASan build).
  const auto at = r.out.find("tile ");
  REQUIRE(at != std::string::npos);
  std::istringstream line(r.out.substr(at + 5, r.out.find('\n', at) - at - 5));
  double tm = 0, tn = 0, tk = 0, stages = 0, shown_tiles = 0, shown_waves = 0, efficiency = 0;
  char x1 = 0, x2 = 0;
  std::string w_stages, w_tiles, w_over, w_108, w_sms, w_eq, w_waves, w_wave, w_efficiency;
  line >> tm >> x1 >> tn >> x2 >> tk;
  line.ignore(1);   // ','
  line >> stages >> w_stages >> shown_tiles >> w_tiles >> w_over >> w_108 >> w_sms >> w_eq >> shown_waves >> w_waves >> w_wave >>
      w_efficiency >> efficiency;
  REQUIRE(line);
  CHECK((x1 == 'x' && x2 == 'x' && w_stages == "stages:" && w_over == "over" && w_108 == "108" && w_eq == "="));
  const double tiles = std::ceil(4096 / tm) * std::ceil(2048 / tn);
  CHECK(shown_tiles == tiles);
  const double waves = std::ceil(tiles / 108);
  CHECK(shown_waves == waves);
  CHECK_THAT(efficiency, WithinRel(tiles / (waves * 108), 0.001));   // printed to 3 decimals
  CHECK_THAT(r.out, Catch::Contains("compute-limited"));
}

TEST_CASE("simulate --explain with the flat model prints PALEO's terms with the default PPP") {
  const auto r = simulate_cli(kGemmNet + " " + RIDGE_HW_DIR + "/a100-sxm4-40gb.hw -d bf16 --explain gemm --kernel-model flat");
  REQUIRE(r.status == 0);
  // 2 * 4096^3 = 137 GFLOP at half of 312 TFLOP/s: 881 us (engine/timing.hpp's default PPP).
  CHECK_THAT(r.out, Catch::Contains("137 GFLOP / (0.50 x 312 TFLOP/s) = 881 us (default PPP)"));
}

TEST_CASE("simulate --explain prints a streaming layer's traffic and terms, which add up by hand") {
  // relu over 65,536 x 4,096 fp32 on the A100 80GB PCIe: read and write 2^28 elements, 2.15 GB, at the
  // card's measured 1,697 GB/s (its .hw): 1.27 ms; 1 FLOP each, 268 MFLOP at 19.5 TFLOP/s: 13.8 us.
  const std::string net = std::string(RIDGE_SOURCE_DIR) + "/validate/nets/streaming.net " + RIDGE_HW_DIR + "/a100-pcie-80gb.hw --set rows=65536 --set cols=4096";
  const auto relu = simulate_cli(net + " --explain relu");
  REQUIRE(relu.status == 0);
  CHECK_THAT(relu.out, Catch::Contains("streaming: 2.15 GB through DRAM at 1.70 TB/s = 1.27 ms"));
  CHECK_THAT(relu.out, Catch::Contains("compute 268 MFLOP / 19.5 TFLOP/s = 13.8 us"));
  // Layer norm over rows of 16 KB: 108 SMs x 16 blocks of 128 threads = 1,728 rows in flight, twice
  // 28 MB > 40 MiB of L2, so the second read of each row (1.07 GB) comes from DRAM: 3.22 GB in all.
  const auto ln = simulate_cli(net + " --explain ln");
  REQUIRE(ln.status == 0);
  CHECK_THAT(ln.out, Catch::Contains("3.22 GB through DRAM (each row re-read from DRAM: 2 x 1728 rows in flight"));
}

TEST_CASE("simulate --explain names a layer the network lacks, and suggests the nearest") {
  const auto r = simulate_cli(kGemmNet + " " + RIDGE_HW_DIR + "/a100-sxm4-40gb.hw --explain gem");
  REQUIRE(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("has no layer named 'gem' (did you mean 'gemm'?)"));
  CHECK(r.out.empty());
  const auto json = simulate_cli(kGemmNet + " " + RIDGE_HW_DIR + "/a100-sxm4-40gb.hw --explain gemm --format json");
  CHECK(json.status == 1);
  CHECK_THAT(json.err, Catch::Contains("--explain prints one layer's derivation as text"));
}

TEST_CASE("the plan cache answers as a fresh search, once per device facts, and outlives the facts' strings") {
  kernels::PlanCache cache;
  const Gemm square{4096, 4096, 4096, 1}, skinny{1, 4096, 4096, 1};
  kernels::PlanCache::Device* first = nullptr;
  {
    std::string family = "ampere";   // a device file's string, gone before the cache is used again
    GpuFacts f = a100();
    f.family = family;
    first = &cache.device(f);
    CHECK(first->plan(square) == kernels::plan_gemm(square, a100()));
  }
  CHECK(&cache.device(a100()) == first);            // equal facts: the same plans
  CHECK(first->facts().family == "ampere");
  CHECK(&cache.device(h100()) != first);            // other facts: plans of their own
  CHECK(cache.device(h100()).plan(skinny) == kernels::plan_gemm(skinny, h100()));
  CHECK(first->plan(skinny) == kernels::plan_gemm(skinny, a100()));
}

TEST_CASE("a depthwise convolution on a GPU is PALEO's terms plus the fixed time of each of its kernels") {
  // The kernel model leaves depthwise convolutions to PALEO, each kernel paying the GPU's fixed time
  // beside it (engine/timing.cpp). The backward of a depthwise conv whose input needs a gradient runs
  // two kernels (input and weight gradients), so it pays the fixed time twice:
  //   device_s = bytes / (ppp_m bw) + FLOPs / (ppp_c peak) + kernels x fixed.
  const ridge::ir::Network net = ridge::lang::parse_network(R"(network dw {
  input x: [32, 56, 56]
  x = x -> conv(32, 1)
  return x -> conv(32, 3, pad: 1, groups: 32) as depthwise
}
)", "dw.net");
  const ridge::ir::Device a100_file = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const auto r = ridge::engine::simulate(net, a100_file, {.batch = 8, .precision = ridge::ir::Precision::FP16});
  const auto& dw = r.layers.back();
  REQUIRE(dw.name == "depthwise");
  REQUIRE(dw.bwd.kernels == 2);
  const auto facts = kernels::gpu_facts(a100_file, ridge::ir::Precision::FP16, true);
  REQUIRE(facts);
  const double fixed = facts->kernel_fixed_s;
  REQUIRE(fixed > 0);
  const double bw = a100_file.memory_bandwidth->value;
  const double peak = dw.peak.flops_per_s;
  const auto paleo = [&](const ridge::engine::PassCost& c, const ridge::engine::Ppp& p) {
    return c.bytes() / (p.memory * bw) + c.flops / (p.compute * peak);
  };
  CHECK_THAT(dw.time_fwd.device_s, WithinRel(paleo(dw.fwd, dw.ppp_fwd) + 1 * fixed, 1e-12));
  CHECK_THAT(dw.time_bwd.device_s, WithinRel(paleo(dw.bwd, dw.ppp_bwd) + 2 * fixed, 1e-12));
}

TEST_CASE("a row that is not a whole number of 16-byte vectors marks a GEMM unaligned, the token dimension never does") {
  // GPT-2's lm_head (vocabulary 50,257) against nanoGPT's padded 50,304, and 50,260, which is whole
  // 16-byte vectors at 4 bytes an element but not at 2; 7 tokens (M) is never a row.
  const ridge::ir::Network net = ridge::lang::parse_network(R"(
network heads {
  input x: [7, 768]
  a = x -> linear(50257, bias: false) as odd
  b = x -> linear(50304, bias: false) as padded
  c = x -> linear(50260, bias: false) as four_byte_rows
  return concat(a, b, c, axis: 1)
}
)", "heads.net");
  const auto unaligned = [&](ridge::ir::Precision p, const std::string& layer) {
    const auto workload = ridge::engine::workload(net, {.batch = 1, .precision = p});
    for (std::size_t i = 0; i < net.layers.size(); ++i)
      if (net.layers[i].name == layer) {
        const auto& c = workload.cost(i);
        bool all = c.gemm_forward.gemms[0].unaligned;
        for (int g = 0; g < c.gemm_backward.count; ++g) CHECK(c.gemm_backward.gemms[static_cast<std::size_t>(g)].unaligned == all);
        return all;
      }
    FAIL("no layer " << layer);
    return false;
  };
  CHECK(unaligned(ridge::ir::Precision::BF16, "odd"));
  CHECK_FALSE(unaligned(ridge::ir::Precision::BF16, "padded"));
  CHECK(unaligned(ridge::ir::Precision::BF16, "four_byte_rows"));
  CHECK_FALSE(unaligned(ridge::ir::Precision::FP32, "four_byte_rows"));
  CHECK(unaligned(ridge::ir::Precision::FP32, "odd"));
}

TEST_CASE("an unaligned tensor-core GEMM runs the alignment-1 fallback, near the H100 measured here") {
  GpuFacts f = h100();
  f.clock = 1.98e9;
  Gemm odd{8192, 50257, 768, 1};
  odd.unaligned = true;
  const auto p = kernels::plan_gemm(odd, f);
  CHECK(p.alignment_one);
  CHECK((p.tile == Tile{128, 128, 32, 2}));
  // validate/measured/h100-sxm5-2026-11-26/kernels.csv: bf16 8192 x 50257 x 768, the median of three
  // runs' medians 5.51 ms (5.25, 5.51, 5.52). The fallback's one rate was fitted on the H200's GPT-2
  // lm_head layers, not on this row.
  CHECK_THAT(p.seconds, WithinRel(5.511e-3, 0.2));
  // The padded vocabulary keeps the Hopper kernels: five to seven times faster, as measured (0.93 ms).
  const auto padded = kernels::plan_gemm({8192, 50304, 768, 1}, f);
  CHECK_FALSE(padded.alignment_one);
  CHECK(p.seconds > 4 * padded.seconds);
  // A matrix-vector product keeps the DRAM-bound model, and SIMT lanes have no vector loads to lose.
  Gemm one_token{1, 50257, 768, 1};
  one_token.unaligned = true;
  CHECK_FALSE(kernels::plan_gemm(one_token, f).alignment_one);
  GpuFacts simt = f;
  simt.matrix = false;
  simt.sm_flops = 256 * 1.98e9;
  CHECK_FALSE(kernels::plan_gemm(odd, simt).alignment_one);
}
