// Activations that stay in a GPU's L2 between layers (Workload::l2_span, LayerTimer's forward_in_l2),
// held to cases worked by hand: the span of each value in a chain of elementwise layers, the layers
// whose span fits an A100's 40 MiB and so move no DRAM bytes at inference, and a linear layer that
// runs from L2 at its GEMM's compute and L2 terms with its weights streamed from DRAM.
#include "engine/kernels/gemm.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <string>

using Catch::Matchers::WithinRel;
namespace kernels = ridge::engine::kernels;
namespace engine = ridge::engine;
namespace ir = ridge::ir;

namespace {

// Four ReLUs in a row over `elements` fp32 values per sample.
ir::Network relu_chain(long elements) {
  return ridge::lang::parse_network("network chain {\n  input x: [" + std::to_string(elements) +
                                        "]\n  return x -> relu as a -> relu as b -> relu as c -> relu as d\n}\n",
                                    "chain.net");
}

const engine::LayerRow& row(const engine::Report& r, const std::string& name) {
  return *std::find_if(r.layers.begin(), r.layers.end(), [&](const engine::LayerRow& l) { return l.name == name; });
}

}  // namespace

TEST_CASE("a value's L2 span is the bytes written from its layer to its last reader, the input and result never fit") {
  // Each ReLU writes E = 1024 x 4 B x batch 8 = 32 KiB and reads no weights.
  const ir::Network net = relu_chain(1024);
  const engine::Workload w = engine::workload(net, {.batch = 8});
  const double E = 1024.0 * 4 * 8;
  const double inf = std::numeric_limits<double>::infinity();
  // Layers: x, a, b, c, d. a reads the input (from the host: DRAM); a's value lives from a's write to
  // b's read (a's and b's writes: 2E); b's until c's; d's value is the result.
  CHECK(w.l2_span[1] == inf);
  CHECK(w.l2_span[2] == 2 * E);
  CHECK(w.l2_span[3] == 2 * E);
  CHECK(w.l2_span[4] == inf);
}

TEST_CASE("at inference a layer whose span fits the L2 moves no DRAM bytes, training, the flat model and a larger span do") {
  const auto device = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const auto facts = kernels::gpu_facts(device, ir::Precision::FP32, false);
  REQUIRE(facts);
  REQUIRE(facts->l2_size == 40.0 * 1024 * 1024);
  const double stream = 1.0 / (facts->dram_efficiency * facts->dram_bandwidth);
  // 2 Mi fp32 elements per sample at batch 2: E = 16 MiB, span 2E = 32 MiB <= 40 MiB.
  const engine::Report fits = engine::simulate(relu_chain(2 * 1024 * 1024), device, {.batch = 2});
  for (const char* name : {"b", "c"}) {
    INFO(name);
    const engine::LayerRow& l = row(fits, name);
    CHECK(l.time_fwd.in_l2);
    // Nothing through DRAM: the kernel's arithmetic (one FLOP an element) and its fixed time.
    CHECK_THAT(l.time_fwd.device_s, WithinRel(l.fwd.flops / l.peak.flops_per_s + facts->kernel_fixed_s, 1e-9));
    // The training forward keeps its values for the backward: they go to DRAM.
    CHECK_FALSE(l.time_fwd_train.in_l2);
    CHECK_THAT(l.time_fwd_train.device_s, WithinRel(l.fwd_train.bytes() * stream + facts->kernel_fixed_s, 1e-9));
  }
  CHECK_FALSE(row(fits, "a").time_fwd.in_l2);   // reads the network's input
  CHECK_FALSE(row(fits, "d").time_fwd.in_l2);   // writes its result
  // Batch 3: span 48 MiB > 40 MiB, every byte through DRAM.
  const engine::Report spills = engine::simulate(relu_chain(2 * 1024 * 1024), device, {.batch = 3});
  const engine::LayerRow& b = row(spills, "b");
  CHECK_FALSE(b.time_fwd.in_l2);
  CHECK_THAT(b.time_fwd.device_s, WithinRel(b.fwd.bytes() * stream + facts->kernel_fixed_s, 1e-9));
  // The flat model knows no L2.
  const engine::Report flat = engine::simulate(relu_chain(2 * 1024 * 1024), device,
                                               {.batch = 2, .kernel_model = engine::KernelModel::Flat});
  CHECK_FALSE(row(flat, "b").time_fwd.in_l2);
}

TEST_CASE("a linear layer in L2 runs its GEMM at the longer of compute and L2, its weights streamed from DRAM beside") {
  const ir::Network net = ridge::lang::parse_network(R"(
network mlp {
  input x: [1024]
  return x -> relu as a -> linear(out: 1024) as fc -> relu as r -> relu as out
}
)", "mlp.net");
  const auto device = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const engine::Options options{.batch = 512, .precision = ir::Precision::BF16};
  const engine::Workload w = engine::workload(net, options);
  const engine::Report report = engine::simulate(w, device);
  const engine::LayerRow& fc = row(report, "fc");
  REQUIRE(fc.time_fwd.in_l2);   // a's 1 MiB, fc's weights (2 MiB) and output (1 MiB), r's 1 MiB: far below 50 MiB
  const auto facts = kernels::gpu_facts(device, ir::Precision::BF16, true);
  REQUIRE(facts);
  const engine::OpCost& cost = w.cost(2);
  REQUIRE(cost.gemm_forward.count == 1);
  const kernels::GemmPlan plan = kernels::plan_gemm(cost.gemm_forward.gemms[0], *facts);
  const double weights = (1024.0 * 1024 + 1024) * 2;   // bf16 weight and bias
  const double stream = 1.0 / (facts->dram_efficiency * facts->dram_bandwidth);
  const double kernel = std::max(plan.compute_s, plan.l2_s) + plan.reduction_s + plan.fixed_s +
                        std::max(0, cost.forward.kernels - 1) * facts->kernel_fixed_s;
  const double roofline = std::max(fc.fwd.flops / fc.peak.flops_per_s, weights / report.device.bandwidth);
  CHECK_THAT(fc.time_fwd.device_s, WithinRel(std::max({kernel, weights * stream, roofline}), 1e-9));
  CHECK_THAT(fc.time_fwd.roofline_s, WithinRel(roofline, 1e-9));
  // From DRAM (a training forward) the same GEMM takes its plan's whole time, DRAM term included.
  CHECK(fc.time_fwd_train.device_s >= plan.seconds);
  CHECK(fc.time_fwd.device_s <= fc.time_fwd_train.device_s);
}
