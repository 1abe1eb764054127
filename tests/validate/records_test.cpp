// CUPTI's record handling on synthetic records: the join on correlation id, per-layer sums and the
// kernel-family breakdown. Runs everywhere; no GPU or CUDA toolkit needed.
#include "validate/cupti/records.hpp"

#include <catch2/catch.hpp>

using namespace ridge::validate::cupti;
using Catch::Matchers::WithinRel;

TEST_CASE("records are joined to layers through the external correlation records") {
  const std::vector<ActivityRecord> records{
      {ActivityKind::Kernel, "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", 1000, 4000, 11, 0},
      {ActivityKind::Kernel, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", 4000, 5000, 12, 0},
      {ActivityKind::Memset, "memset", 5000, 5500, 13, 4096},
      {ActivityKind::Kernel, "void cudnn::winograd_nonfused::winogradForwardData4x4", 6000, 9000, 21, 0},
      {ActivityKind::Memcpy, "memcpy HtoD", 9000, 9100, 99, 1 << 20},   // no external id: unattributed
  };
  const std::vector<ExternalCorrelation> correlations{{1, 11}, {1, 12}, {1, 13}, {2, 21}};
  const JoinResult r = join(records, correlations);
  REQUIRE(r.layers.size() == 2);
  const LayerActivity& l1 = r.layers.at(1);
  CHECK_THAT(l1.busy_s, WithinRel(4.5e-6, 1e-12));
  CHECK(l1.kernels == 2);
  CHECK(l1.copies == 1);
  CHECK_THAT(l1.by_family.at(KernelFamily::Gemm), WithinRel(3e-6, 1e-12));
  CHECK_THAT(l1.by_family.at(KernelFamily::Elementwise), WithinRel(1e-6, 1e-12));
  CHECK_THAT(l1.by_family.at(KernelFamily::Copy), WithinRel(0.5e-6, 1e-12));
  CHECK(r.layers.at(2).by_family.count(KernelFamily::Conv) == 1);
  CHECK(r.unattributed.copies == 1);
  CHECK_THAT(r.unattributed.busy_s, WithinRel(1e-7, 1e-12));
}

TEST_CASE("work launched on another thread is attributed to the window it ran in") {
  // LibTorch runs a CUDA backward on its autograd device thread, where the caller's pushed id is not
  // seen: those kernels come with no external correlation, inside the run's push/pop window.
  const std::vector<ActivityRecord> records{
      {ActivityKind::Kernel, "void cudnn::engines_precompiled::dgrad_kernel", 1200, 1900, 31, 0},   // run 7
      {ActivityKind::Kernel, "void cudnn::engines_precompiled::wgrad_kernel", 1900, 2400, 32, 0},   // run 7
      {ActivityKind::Kernel, "sm90_xmma_gemm_f32f32", 3100, 3600, 41, 0},                             // run 8
      {ActivityKind::Kernel, "void at::native::vectorized_elementwise_kernel", 2600, 2700, 51, 0},   // between runs
      {ActivityKind::Kernel, "void at::native::reduce_kernel", 3900, 4200, 61, 0},   // starts in run 8, ends after it
  };
  const std::vector<Window> windows{{8, 3000, 4000}, {7, 1000, 2500}};   // any order
  const JoinResult r = join(records, {}, windows);
  REQUIRE(r.layers.size() == 2);
  CHECK(r.layers.at(7).kernels == 2);
  CHECK_THAT(r.layers.at(7).busy_s, WithinRel(1.2e-6, 1e-12));
  CHECK(r.layers.at(8).kernels == 1);
  CHECK_THAT(r.layers.at(8).busy_s, WithinRel(0.5e-6, 1e-12));
  CHECK(r.by_window == 3);
  CHECK(r.unattributed.kernels == 2);
}

TEST_CASE("an external correlation outranks the window a record lies in") {
  const std::vector<ActivityRecord> records{{ActivityKind::Kernel, "k", 1500, 1600, 11, 0}};
  const JoinResult r = join(records, {{5, 11}}, {{9, 1000, 2000}});
  CHECK(r.layers.count(5) == 1);
  CHECK(r.layers.count(9) == 0);
  CHECK(r.by_window == 0);
}

TEST_CASE("a record with an end before its start adds no time") {
  const JoinResult r = join({{ActivityKind::Kernel, "k", 5000, 0, 1, 0}}, {{7, 1}});
  CHECK(r.layers.at(7).busy_s == 0.0);
  CHECK(r.layers.at(7).kernels == 1);
}

TEST_CASE("kernel names fall into families as the report groups them") {
  const auto family = [](std::string name) { return classify({ActivityKind::Kernel, std::move(name), 0, 1, 0, 0}); };
  using F = KernelFamily;
  const auto [name, expected] = GENERATE(table<std::string, F>({
      {"ampere_sgemm_128x64_nn", F::Gemm},
      {"cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>", F::Gemm},
      {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>", F::Conv},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw", F::Conv},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>", F::Conv},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>", F::Reduction},
      {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>", F::Reduction},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous)::launch_clamp_scalar>", F::Elementwise},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", F::Copy},
      {"ncclKernel_AllReduce_RING_LL_Sum_float", F::Communication},
      {"mystery", F::Other},
  }));
  CAPTURE(name);
  CHECK(family(name) == expected);
  CHECK(classify({ActivityKind::Memcpy, "memcpy DtoD", 0, 1, 0, 8}) == F::Copy);
}

TEST_CASE("the convolution algorithm is read from the kernel name") {
  CHECK(conv_algorithm("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>") == "winograd");
  CHECK(conv_algorithm("void fft2d_r2c_32x32<float, false, 0u, false>") == "fft");
  CHECK(conv_algorithm("sm80_xmma_fprop_implicit_gemm_tf32f32") == "implicit_gemm");
  CHECK(conv_algorithm("ampere_sgemm_128x64_nn").empty());
}
