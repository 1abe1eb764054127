// The flash-attention kernel model (engine/kernels/attention.hpp), held to cases worked by hand in the
// comments: blocks, the steps a causal mask skips (with and without a KV cache), the busiest SM's steps,
// and what simulate does with it: the layer's FLOPs stay counted in full while its time follows the
// steps that run; a family without a fitted efficiency keeps PALEO.
#include "engine/explain.hpp"
#include "engine/kernels/attention.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>

using Catch::Matchers::WithinRel;
namespace kernels = ridge::engine::kernels;

namespace {

// An H100-like GPU at bf16 (132 SMs, 4096 FLOP/clk/SM at 1.83 GHz, 3350 GB/s at full efficiency) with
// a round fixed time, so the sums below read plainly.
kernels::GpuFacts hopper() {
  kernels::GpuFacts f;
  f.family = "hopper";
  f.sms = 132;
  f.sm_flops = 4096 * 1.83e9;
  f.matrix = true;
  f.dram_bandwidth = 3350e9;
  f.dram_efficiency = 1.0;
  f.kernel_fixed_s = 5e-6;
  f.in_bytes = f.out_bytes = 2;
  return f;
}

// The forward's and the backward's plans of one attention, both given (a fitted family).
std::pair<kernels::AttentionPlan, kernels::AttentionPlan> both_passes(const kernels::Attention& a) {
  const auto fwd = kernels::plan_attention(a, false, 0.0, hopper());
  const auto bwd = kernels::plan_attention(a, true, 0.0, hopper());
  REQUIRE(fwd);
  REQUIRE(bwd);
  return {*fwd, *bwd};
}

// The step FLOPs of a 128 x 128 block at key and value width 128: Q K^T and P V, 2 x 128 x 128 x 256.
constexpr double kStepFlops = 2.0 * 128 * 128 * 256;

}  // namespace

TEST_CASE("attention without a mask: every block runs every key step, in whole waves of blocks") {
  // 128 (sample, head) pairs, T = S = 2048: 16 query blocks each, 2048 blocks, 16 key steps each.
  // 2048 blocks on 132 SMs take ceil(2048 / 132) = 16 waves: the busiest SM runs 16 x 16 = 256 steps.
  const kernels::Attention a{128, 2048, 2048, 0, 128, 128, false};
  const auto fwd = kernels::plan_attention(a, false, 0.0, hopper());
  REQUIRE(fwd);
  CHECK(fwd->blocks == 2048);
  CHECK(fwd->steps_per_sm == 256);
  CHECK(fwd->executed_fraction == 1.0);
  const double eff_fwd = 256 * kStepFlops / hopper().sm_flops / fwd->compute_s;   // the family's fitted figure
  CHECK(eff_fwd > 0.3);
  CHECK(eff_fwd < 1.0);
  CHECK_THAT(fwd->seconds, WithinRel(fwd->compute_s + 5e-6, 1e-12));
  // The backward walks the queries from key blocks: the same counts here, 2.5 times the FLOPs a step.
  const auto bwd = kernels::plan_attention(a, true, 0.0, hopper());
  REQUIRE(bwd);
  CHECK(bwd->steps_per_sm == 256);
  const double eff_bwd = 2.5 * 256 * kStepFlops / hopper().sm_flops / bwd->compute_s;
  CHECK(eff_bwd > 0.3);
  CHECK(eff_bwd < eff_fwd);
}

TEST_CASE("a causal mask skips the key steps above the diagonal, the busiest SM runs a share of the rest") {
  // T = S = 2048, causal: query block i (0..15) runs i + 1 key steps, 136 of 256 per pair.
  // 128 pairs: 17,408 steps; ceil(17,408 / 132) = 132 steps on the busiest SM (the longest block runs 16).
  // Both masks launch the same 2,048 blocks in 16 waves, so both pay the same fill steps on top.
  const kernels::Attention a{128, 2048, 2048, 0, 128, 128, true};
  const auto fwd = kernels::plan_attention(a, false, 0.0, hopper());
  REQUIRE(fwd);
  CHECK(fwd->executed_fraction == 136.0 / 256.0);
  CHECK(fwd->steps_per_sm == 132);
  const auto full = kernels::plan_attention({128, 2048, 2048, 0, 128, 128, false}, false, 0.0, hopper());
  REQUIRE(full);
  CHECK(full->steps_per_sm == 256);
  CHECK(fwd->fill_steps == full->fill_steps);
  CHECK_THAT(fwd->compute_s, WithinRel(full->compute_s * (132.0 + full->fill_steps) / (256.0 + full->fill_steps), 1e-12));
}

TEST_CASE("with a KV cache, a causal query sees every cached key: worked by hand for 256 new tokens over 128 cached") {
  // T = 256 queries, past = 128, S = 384 keys: 2 query blocks, 3 key steps at most.
  // Forward: block 0's last query (127) sees keys up to 128 + 127 = 255: 2 steps; block 1's (255) sees
  // all 384: 3 steps. 5 of 6.
  // Backward: key block 0 (keys 0-127) and 1 (128-255) are seen by query 0 on: 2 query steps each; key
  // block 2 (256-383) first by query 256 - 128 = 128: query steps 1 and on, 1 step. 5 of 6.
  const auto [fwd, bwd] = both_passes({1, 256, 384, 128, 128, 128, true});
  CHECK(fwd.executed_fraction == 5.0 / 6.0);
  CHECK(bwd.executed_fraction == 5.0 / 6.0);
  CHECK(fwd.blocks == 2);
  CHECK(bwd.blocks == 3);
  // One pair: the busiest SM runs the longest block, 3 query-side steps forward, 2 backward.
  CHECK(fwd.steps_per_sm == 3);
  CHECK(bwd.steps_per_sm == 2);
}

TEST_CASE("a cache that does not fill whole blocks: 256 new tokens over 64 cached, worked by hand") {
  // T = 256, past = 64, S = 320: 3 key steps at most (the last one half full).
  // Forward: block 0's last query (127) sees keys up to 64 + 127 = 191: ceil(192 / 128) = 2 steps;
  // block 1's (255) up to 319: 3 steps. Backward: key block 0 from query 0 (2 query steps), block 1
  // (keys 128-255) from query 128 - 64 = 64 (query steps 0 and 1: 2), block 2 (256-319) from query
  // 192 (step 1 only: 1). 5 of 6 either way.
  const auto [fwd, bwd] = both_passes({1, 256, 320, 64, 128, 128, true});
  CHECK(fwd.executed_fraction == 5.0 / 6.0);
  CHECK(bwd.executed_fraction == 5.0 / 6.0);
}

TEST_CASE("an attention moving more bytes than its steps' compute is limited by DRAM") {
  // One pair, 128 queries over 128 keys: one step, ~2 ns of compute at 7.5 TFLOP/s; 1 GB takes 0.3 ms.
  const auto p = kernels::plan_attention({1, 128, 128, 0, 128, 128, false}, false, 1e9, hopper());
  REQUIRE(p);
  CHECK_THAT(p->dram_s, WithinRel(1e9 / 3350e9, 1e-12));
  CHECK_THAT(p->seconds, WithinRel(p->dram_s + 5e-6, 1e-12));
}

TEST_CASE("a family without a fitted attention efficiency gets no plan (PALEO times it)") {
  kernels::GpuFacts ampere = hopper();
  ampere.family = "ampere";
  CHECK_FALSE(kernels::plan_attention({128, 2048, 2048, 0, 128, 128, false}, false, 0.0, ampere));
}

TEST_CASE("simulate: a causal flash attention counts its FLOPs in full, but takes the time of the steps that run") {
  const auto net = [](bool causal) {
    return ridge::lang::parse_network(std::string(R"(network a {
  input x: [8192, 12288]
  q, k, v = add(x, parameter([8192, 12288])) -> split(3, axis: 1)
  return attention(q, k, v, heads: 32, causal: )") + (causal ? "true" : "false") + R"(, kernel: "flash") as sdpa
}
)", "a.net");
  };
  const ridge::ir::Device h200 = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h200-sxm.hw");
  const ridge::engine::Options o{.batch = 4, .precision = ridge::ir::Precision::BF16};
  const auto causal = ridge::engine::simulate(net(true), h200, o).layers.back();
  const auto full = ridge::engine::simulate(net(false), h200, o).layers.back();
  REQUIRE(causal.name == "sdpa");
  CHECK(causal.fwd.flops >= full.fwd.flops);   // the mask's pointwise besides: never fewer counted
  // 64 query blocks: 2,080 of 4,096 steps run; 128 pairs x 2,080 / 132 SMs = 2,017.0 steps on the
  // busiest SM against ceil(8192 / 132) x 64 = 4,032 without the mask; either way its 63 blocks add
  // their fill, the same steps' worth.
  const auto facts = kernels::gpu_facts(h200, ridge::ir::Precision::BF16, true);
  REQUIRE(facts);
  const auto plan = kernels::plan_attention({128, 8192, 8192, 0, 128, 128, true}, false, 0.0, *facts);
  REQUIRE(plan);
  CHECK(plan->waves == 63);
  const double ratio = (std::ceil(128.0 * 2080 / 132) + plan->fill_steps) / (4032.0 + plan->fill_steps);
  const auto compute = [](const ridge::engine::LayerRow& l) { return l.time_fwd.device_s; };
  CHECK_THAT(compute(causal) - 5.43e-6, WithinRel((compute(full) - 5.43e-6) * ratio, 1e-3));
  // The roofline is the work that runs: never above the modelled time.
  CHECK(causal.time_fwd.roofline_s <= causal.time_fwd.device_s);
  CHECK(causal.time_bwd.roofline_s <= causal.time_bwd.device_s);
  CHECK_THAT(causal.time_fwd.roofline_s, WithinRel(causal.fwd.flops * 2080.0 / 4096.0 / causal.peak.flops_per_s, 1e-9));
  // On the flat model the mask changes nothing but its pointwise work.
  const auto flat = ridge::engine::Options{.batch = 4, .precision = ridge::ir::Precision::BF16,
                                                   .kernel_model = ridge::engine::KernelModel::Flat};
  CHECK_THAT(ridge::engine::simulate(net(true), h200, flat).layers.back().time_fwd.paleo_s,
             WithinRel(ridge::engine::simulate(net(false), h200, flat).layers.back().time_fwd.paleo_s, 1e-2));
}

TEST_CASE("simulate --explain prints a fused attention's blocks, the share of steps that run and the busiest SM's") {
  // T = S = 2048, causal, 32 heads, batch 4: 128 pairs x 16 query blocks = 2048 blocks; 136 of 256
  // steps per pair run (53.1 %); ceil(128 x 136 / 132) = 132 steps on the busiest SM.
  const auto net = ridge::lang::parse_network(R"(network a {
  input x: [2048, 12288]
  q, k, v = add(x, parameter([2048, 12288])) -> split(3, axis: 1)
  return attention(q, k, v, heads: 32, causal: true, kernel: "flash") as sdpa
}
)", "a.net");
  const ridge::ir::Device h200 = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h200-sxm.hw");
  const auto e = ridge::engine::explain_layer(net, h200, {.batch = 4, .precision = ridge::ir::Precision::BF16}, "sdpa");
  const std::string text = ridge::engine::render::explain(e);
  CHECK_THAT(text, Catch::Matchers::Contains("fused attention: 2048 blocks of 128 queries; 53.1 % of the score matrix's "
                                             "128x128 steps run; the busiest of 132 SMs runs 132 steps"));
  CHECK_THAT(text, Catch::Matchers::Contains("fused attention: 2048 blocks of 128 keys"));
}

TEST_CASE("each block pays its fill, so a short attention reaches less of the peak than a long one") {
  // 128 pairs, T = S = 512: 4 query blocks a pair, 512 blocks; ceil(512 / 132) = 4 on the busiest SM,
  // each running 4 key steps: 16 steps and 4 x fill. At T = S = 8192: 8,192 blocks, 63 on the busiest
  // SM (ceil(8192 / 132)), 64 steps each: 4,032 steps and 63 x fill.
  const auto short_one = kernels::plan_attention({128, 512, 512, 0, 128, 128, false}, false, 0.0, hopper());
  const auto long_one = kernels::plan_attention({128, 8192, 8192, 0, 128, 128, false}, false, 0.0, hopper());
  REQUIRE(short_one);
  REQUIRE(long_one);
  CHECK(short_one->steps_per_sm == 16);
  CHECK(short_one->waves == 4);
  CHECK(long_one->steps_per_sm == 4032);
  CHECK(long_one->waves == 63);
  const double fill = short_one->fill_steps / 4;   // the family's fill, per block
  CHECK(fill > 0);
  CHECK_THAT(long_one->fill_steps, WithinRel(63 * fill, 1e-12));
  CHECK_THAT(short_one->compute_s, WithinRel((16 + 4 * fill) * short_one->step_s, 1e-12));
  // The same step either way: the long attention's time per step of work is the shorter.
  CHECK(short_one->step_s == long_one->step_s);
  CHECK(short_one->compute_s / 16 > long_one->compute_s / 4032);
}

TEST_CASE("a step's exponentials do not shrink with the head width, its products do") {
  // At 1.98 GHz and 16 exponentials a clock per SM, a 128 x 128 step's 16,384 scores take
  // 16,384 / (16 x 1.98e9) = 517.2 ns; its products at head width 64 take half those at 128.
  kernels::GpuFacts f = hopper();
  f.clock = 1.98e9;
  const auto wide = kernels::plan_attention({128, 2048, 2048, 0, 128, 128, false}, false, 0.0, f);
  const auto narrow = kernels::plan_attention({128, 2048, 2048, 0, 64, 64, false}, false, 0.0, f);
  REQUIRE(wide);
  REQUIRE(narrow);
  CHECK_THAT(wide->step_exp_s, WithinRel(16384.0 / (16 * 1.98e9), 1e-12));
  CHECK(narrow->step_exp_s == wide->step_exp_s);
  CHECK_THAT(narrow->step_s - narrow->step_exp_s, WithinRel((wide->step_s - wide->step_exp_s) / 2, 1e-12));
  // Without a clock (a .hw with no arch.clock) no exponential term: the products alone.
  CHECK(kernels::plan_attention({128, 2048, 2048, 0, 128, 128, false}, false, 0.0, hopper())->step_exp_s == 0);
}

TEST_CASE("on an H100 the model predicts PyTorch's attention at head width 64, which no constant saw") {
  // Measured (validate/measured/h100-sxm5-2026-11-27/kernels.csv, sdpa_forward, bf16, PyTorch's
  // default backend): 384 (sample, head) pairs, T = S = 1024, head width 64, no mask: 241.3 us (the
  // median of three runs' medians); causal: 158.1 us. One efficiency and no fill said 162 and 91 us.
  const auto net = [](bool causal) {
    return ridge::lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/validate/nets/attention.net",
                                     {{"seq", "1024"}, {"heads", "12"}, {"d", "64"}, {"causal", causal ? "1" : "0"}});
  };
  const ridge::ir::Device h100 = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const ridge::engine::Options o{.batch = 32, .precision = ridge::ir::Precision::BF16};
  for (const auto& [causal, measured] : {std::pair{false, 241.3e-6}, std::pair{true, 158.1e-6}}) {
    INFO("causal " << causal);
    const ridge::engine::Report report = ridge::engine::simulate(net(causal), h100, o);
    const auto& row = report.layers.back();
    REQUIRE(row.name == "sdpa");
    CHECK_THAT(row.time_fwd.device_s, WithinRel(measured, 0.15));
  }
}

TEST_CASE("FlashAttention-2 on Hopper runs the same steps at its own, lower rate, as the H100 measured it") {
  // The same blocks and steps as the fused kernel; its products at FlashAttention-2's efficiency
  // (Ampere's mma.sync instructions on Hopper), so the step takes longer.
  kernels::Attention a{128, 2048, 2048, 0, 128, 128, false};
  const auto fused = kernels::plan_attention(a, false, 0.0, hopper());
  a.flash2 = true;
  const auto fa2 = kernels::plan_attention(a, false, 0.0, hopper());
  REQUIRE(fused);
  REQUIRE(fa2);
  CHECK(fa2->steps_per_sm == fused->steps_per_sm);
  CHECK(fa2->blocks == fused->blocks);
  CHECK(fa2->step_s > 1.5 * fused->step_s);
  // Measured on an H100 (validate/measured/h100-sxm5-2026-11-27/kernels.csv, PyTorch's `flash` backend,
  // bf16, 128 (sample, head) pairs, T = S = 1024, head width 128, no mask; no constant saw an H100
  // row): forward 215 us, backward 792 us, the median of three runs' medians each.
  const ridge::ir::Network net = ridge::lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/validate/nets/attention_flash2.net",
                                                           {{"seq", "1024"}, {"heads", "32"}, {"d", "128"}, {"causal", "0"}});
  const ridge::ir::Device h100 = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const ridge::engine::Report report = ridge::engine::simulate(net, h100, {.batch = 4, .precision = ridge::ir::Precision::BF16});
  const auto& row = report.layers.back();
  REQUIRE(row.name == "sdpa");
  CHECK_THAT(row.time_fwd.device_s, WithinRel(215e-6, 0.10));
  CHECK_THAT(row.time_bwd.device_s, WithinRel(792e-6, 0.10));
}

TEST_CASE("kernel: \"sdpa\" runs as FlashAttention-2 at 16 bits and heads up to 256 wide, else materialized") {
  // PyTorch 2.x's scaled_dot_product_attention: its flash backend takes fp16 and bf16 with head widths
  // up to 256 (sdp_utils.cpp); at fp32 and tf32 it falls to a kernel that Ridge models as the math path.
  const auto net = [](const std::string& kernel, int heads) {
    return ridge::lang::parse_network(R"(network a {
  input x: [512, 3072]
  q, k, v = x -> split(3, axis: 1)
  return attention(q, k, v, heads: )" + std::to_string(heads) + R"(, kernel: ")" + kernel + R"(") as att
}
)", "a.net");
  };
  const ridge::ir::Device h100 = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const auto layer = [&](const std::string& kernel, ridge::ir::Precision p, int heads) {
    return ridge::engine::simulate(net(kernel, heads), h100, {.batch = 8, .precision = p}).layers.back();
  };
  using ridge::ir::Precision;
  const auto same = [](const ridge::engine::LayerRow& a, const ridge::engine::LayerRow& b) {
    return a.fwd == b.fwd && a.bwd == b.bwd && a.saved_bytes == b.saved_bytes && a.time_fwd.device_s == b.time_fwd.device_s &&
           a.time_bwd.device_s == b.time_bwd.device_s;
  };
  // 8 heads of 128: flash2 at bf16 and fp16, materialized at fp32 and tf32.
  CHECK(same(layer("sdpa", Precision::BF16, 8), layer("flash2", Precision::BF16, 8)));
  CHECK(same(layer("sdpa", Precision::FP16, 8), layer("flash2", Precision::FP16, 8)));
  CHECK(same(layer("sdpa", Precision::FP32, 8), layer("materialized", Precision::FP32, 8)));
  CHECK(same(layer("sdpa", Precision::TF32, 8), layer("materialized", Precision::TF32, 8)));
  // 2 heads of 512: past flash's 256, materialized even at bf16.
  CHECK(same(layer("sdpa", Precision::BF16, 2), layer("materialized", Precision::BF16, 2)));
  // And the difference is real: flash writes no scores.
  CHECK(layer("sdpa", Precision::BF16, 8).fwd.bytes() < layer("sdpa", Precision::FP32, 8).fwd.bytes() / 2);
}
