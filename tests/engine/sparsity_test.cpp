// 2:4 structured sparsity at inference (issue #39, engine/sparsity.hpp): NVIDIA's A100 whitepaper,
// "Fine-Grained Structured Sparsity": 2 of every 4 weights kept, each with a 2-bit index, the Sparse
// Tensor Cores at twice the dense rate.
#include "engine/kernels/gemm.hpp"
#include "engine/simulate.hpp"
#include "engine/sparsity.hpp"
#include "lang/diagnostics.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

ir::Device device(bool sparse) {
  return lang::parse_device(std::string("device \"x\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = 20 TFLOP/s\n"
                                        "  matrix.fp16 = 300 TFLOP/s\n  memory.bandwidth = 2 TB/s\n") +
                                (sparse ? "  sparsity = \"2:4\"\n" : "") + "}\n",
                            "x.hw");
}

const ir::Network& network() {
  static const ir::Network n = lang::parse_network(
      "network n {\n  input x: [64, 4096]\n  y = x -> linear(4096) as fc\n  return matmul(y, transpose(y, 0, 1)) as scores\n}\n", "n.net");
  return n;
}

const engine::LayerRow& row(const engine::Report& r, const std::string& name) {
  for (const auto& l : r.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  return r.layers.front();
}

}  // namespace

TEST_CASE("2:4-sparse weights are 9/16 of fp16 dense: half the values and a 2-bit index for each kept one") {
  CHECK(engine::sparsity::weight_fraction(2.0) == 0.5625);
  CHECK(engine::sparsity::weight_fraction(1.0) == 0.625);
}

TEST_CASE("a sparse linear layer reads 7/16 fewer weight bytes and computes at twice the matrix peak, the rest stays dense") {
  const engine::Options dense{.batch = 512, .precision = ir::Precision::FP16, .kernel_model = engine::KernelModel::Flat};
  engine::Options sparse = dense;
  sparse.sparsity = true;
  const engine::Report d = engine::simulate(network(), device(true), dense);
  const engine::Report s = engine::simulate(network(), device(true), sparse);
  const double weights = 4096.0 * 4096 * 2;
  CHECK_THAT(row(s, "fc").fwd.bytes_read, WithinRel(row(d, "fc").fwd.bytes_read - weights * (1 - 0.5625), 1e-12));
  CHECK(row(s, "fc").fwd.flops == row(d, "fc").fwd.flops);   // FLOPs stay counted dense
  CHECK(row(s, "fc").peak.flops_per_s == 600e12);
  CHECK(row(s, "scores").peak.flops_per_s == 300e12);        // two activations: no weights to prune
  CHECK(row(s, "scores").fwd == row(d, "scores").fwd);
  CHECK(row(s, "fc").bwd == row(d, "fc").bwd);               // training keeps dense weights
  CHECK(row(s, "fc").time_fwd.roofline_s < row(d, "fc").time_fwd.roofline_s);
}

TEST_CASE("the kernel model runs a sparse GEMM's main loop at twice the rate") {
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-80gb.hw");
  const auto facts = engine::kernels::gpu_facts(a100, ir::Precision::FP16, true);
  REQUIRE(facts);
  engine::kernels::Gemm g{8192, 8192, 8192, 1};
  const engine::kernels::GemmPlan dense = engine::kernels::plan_gemm(g, *facts);
  g.sparse = true;
  const engine::kernels::GemmPlan sparse = engine::kernels::plan_gemm(g, *facts);
  CHECK(sparse.sm_flops == 2 * dense.sm_flops);
  CHECK(sparse.compute_s < 0.55 * dense.compute_s);
}

TEST_CASE("a device that declares no sparse matrix units refuses --sparsity, and a .hw states only 2:4") {
  engine::Options o{.batch = 8, .precision = ir::Precision::FP16};
  o.sparsity = true;
  CHECK_THROWS_WITH(engine::simulate(network(), device(false), o), Catch::Contains("declares no 2:4 sparse matrix units"));
  try {
    (void)lang::parse_device("device \"x\" {\n  kind = gpu\n  sparsity = \"2:8\" source \"s\"\n}\n", "y.hw");
    FAIL("accepted 2:8");
  } catch (const lang::Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("y.hw:3:14") && Catch::Contains("'sparsity' takes \"2:4\""));
  }
}
