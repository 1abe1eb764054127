// Absolute predicted times users read off a report, pinned, each worked by hand from the datasheet
// figures of the catalogue's .hw file and the default PPP of the op-class table (lang/ir/op_classes.hpp),
// or checked as that formula summed over a report's own rows:
//
//   op class        compute  memory   (ppp_c, ppp_m)
//   matmul          0.5      0.8
//   elementwise     0.5      0.8
//   normalization   0.5      0.6
//   pooling         0.5      0.7
//   data_movement   0.5      0.8
//
//   PALEO    t = Br/(ppp_m·bw) + F/(ppp_c·peak) + Bw/(ppp_m·bw) + kernels · launch_overhead
//   roofline t = max(F/peak, (Br + Bw)/bw)
//
// hw/a100-sxm4-40gb.hw: peak.fp32 = 19.5 TFLOP/s (no fp32 matrix unit, so conv/linear use it too),
// memory.bandwidth = 1555 GB/s, launch_overhead = 5 us.
//
// These are the flat model's figures (`--kernel-model flat`, engine::KernelModel::Flat): since issue #32
// a GPU whose .hw describes its microarchitecture is timed by the kernel model by default, which
// tests/engine/kernel_model_test.cpp pins.
//
// Networks come from .net text or the zoo, layers are looked up by name.
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace ridge;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

const ir::Device& a100() {
  static const ir::Device d = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  return d;
}

const engine::LayerRow& find(const engine::Report& r, const std::string& name) {
  for (const engine::LayerRow& l : r.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  throw;
}

constexpr double kPeak = 19.5e12;   // FLOP/s
constexpr double kBw = 1555e9;      // B/s
constexpr double kLaunch = 5e-6;    // s

}  // namespace

TEST_CASE("VGG-19 stage1.conv1 and relu1 on an A100 at batch 1 fp32, worked by hand") {
  const engine::Report r = engine::simulate(lang::load_network(std::string(RIDGE_MODELS_DIR) + "/vgg19.net"), a100(),
                                            {.batch = 1, .precision = ir::Precision::FP32, .kernel_model = engine::KernelModel::Flat});
  const engine::LayerRow& conv = find(r, "stage1.conv1");
  // conv(64, 3, pad: 1) on [3, 224, 224] -> [64, 224, 224]:
  //   MACs  = 64·224·224 outputs × 3·3·3 = 3,211,264 × 27 = 86,704,128;  F = 173,408,256 FLOP
  //   Br    = (3·224·224 inputs + 1,792 params) × 4 B = (150,528 + 1,792) × 4 = 609,280 B
  //   Bw    = 3,211,264 × 4 B = 12,845,056 B;  Br + Bw = 13,454,336 B
  //   and PyTorch's bias kernel after cuDNN's (costs/conv.cpp): reads the output and 64 biases, writes
  //   the output: 2 × 12,845,056 + 256 = 25,690,368 B, a second kernel. Bytes 39,144,704 (README: 39.1 MB)
  //   PALEO = 39,144,704 / (0.8 × 1555e9)  = 31.4668 us
  //         + 173,408,256 / (0.5 × 19.5e12) = 17.7855 us
  //         + 2 kernels × 5 us               = 59.252 us
  //   roofline = max(173,408,256 / 19.5e12 = 8.893 us, 39,144,704 / 1555e9 = 25.173 us) = 25.173 us, memory bound
  CHECK(conv.fwd.flops == 173408256.0);
  CHECK(conv.fwd.bytes() == 39144704.0);
  CHECK(conv.fwd.kernels == 2);
  CHECK_THAT(conv.time_fwd.paleo_s, WithinRel(39144704.0 / (0.8 * kBw) + 173408256.0 / (0.5 * kPeak) + 2 * kLaunch, 1e-12));
  CHECK_THAT(conv.time_fwd.paleo_s, WithinAbs(59.252e-6, 0.001e-6));
  CHECK_THAT(conv.time_fwd.roofline_s, WithinAbs(25.1734e-6, 0.0001e-6));
  CHECK(conv.time_fwd.bound == engine::Bound::Memory);

  const engine::LayerRow& relu = find(r, "stage1.relu1");
  // relu on [64, 224, 224]: F = 3,211,264; Br = Bw = 12,845,056 B.
  //   PALEO = 25,690,112 / (0.8 × 1555e9) = 20.6512 us + 3,211,264 / (0.5 × 19.5e12) = 0.3294 us + 5 us = 25.981 us
  //   roofline = 25,690,112 / 1555e9 = 16.521 us, memory bound (README: 26.0 us, 16.5 us)
  CHECK_THAT(relu.time_fwd.paleo_s, WithinAbs(25.981e-6, 0.001e-6));
  CHECK_THAT(relu.time_fwd.roofline_s, WithinAbs(16.521e-6, 0.001e-6));
  CHECK(relu.time_fwd.bound == engine::Bound::Memory);

}

TEST_CASE("VGG-19's counts are torchvision's, and its totals are the PALEO formula summed over its own rows") {
  const engine::Report r = engine::simulate(lang::load_network(std::string(RIDGE_MODELS_DIR) + "/vgg19.net"), a100(),
                                            {.batch = 1, .precision = ir::Precision::FP32, .kernel_model = engine::KernelModel::Flat});
  // torchvision's VGG19_Weights.IMAGENET1K_V1: num_params 143,667,240; GFLOPS 19.63 (multiply-adds).
  CHECK(r.totals.params == 143667240.0);
  CHECK_THAT(r.totals.macs, WithinAbs(19.63e9, 0.005e9));
  // Each row's forward and backward by the formula above from the row's own counts (every class at the
  // default PPP the next test pins through layers), and the totals are their sums: the step adds the
  // training forward, backward and update and nothing else.
  double fwd = 0, fwd_train = 0, bwd = 0, roof_fwd = 0;
  for (const engine::LayerRow& l : r.layers) {
    CAPTURE(l.name);
    const auto paleo = [](const engine::PassCost& c, const engine::Ppp& p) {
      return c.bytes() / (p.memory * kBw) + c.flops / (p.compute * kPeak) + c.kernels * kLaunch;
    };
    CHECK_THAT(l.time_fwd.paleo_s, WithinRel(paleo(l.fwd, l.ppp_fwd), 1e-12));
    CHECK_THAT(l.time_bwd.paleo_s, WithinRel(paleo(l.bwd, l.ppp_bwd), 1e-12));
    CHECK_THAT(l.time_fwd.roofline_s, WithinRel(std::max(l.fwd.flops / kPeak, l.fwd.bytes() / kBw), 1e-12));
    fwd += l.time_fwd.paleo_s;
    fwd_train += l.time_fwd_train.paleo_s;
    bwd += l.time_bwd.paleo_s;
    roof_fwd += l.time_fwd.roofline_s;
  }
  CHECK_THAT(r.totals.time_fwd_s, WithinRel(fwd, 1e-12));
  CHECK_THAT(r.totals.roofline_fwd_s, WithinRel(roof_fwd, 1e-12));
  CHECK_THAT(r.totals.time_train_step_s, WithinRel(fwd_train + bwd + r.totals.time_update_s, 1e-12));
  // The update (SGD with momentum, engine/op_costs.hpp): 4 FLOPs, 3 tensors read and 2 written per
  // parameter, one kernel per parameterised layer (16 convs + 3 linears), at the elementwise PPP:
  //   P = 143,667,240; bytes = 5 × 4 × P = 2,873,344,800 B; F = 4 × P = 574,668,960
  //   t = 2,873,344,800 / (0.8 × 1555e9) + 574,668,960 / (0.5 × 19.5e12) + 19 × 5 us
  //     = 2.309762 ms + 0.058941 ms + 0.095 ms = 2.463703 ms
  CHECK_THAT(r.totals.time_update_s,
             WithinRel(2873344800.0 / (0.8 * kBw) + 574668960.0 / (0.5 * kPeak) + 19 * kLaunch, 1e-12));
  CHECK_THAT(r.totals.time_update_s, WithinAbs(2.463703e-3, 0.000001e-3));
}

TEST_CASE("ResNet-50 in fp16 on the flat model: its RGB stem by hand on the CUDA cores, its totals the formula summed") {
  const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/resnet50.net");
  const ir::Device t4 = lang::load_device(std::string(RIDGE_HW_DIR) + "/t4.hw");
  const auto run = [&](const ir::Device& d, std::int64_t batch) {
    return engine::simulate(net, d, {.batch = batch, .precision = ir::Precision::FP16, .master_weights = false,
                                     .kernel_model = engine::KernelModel::Flat});
  };
  // conv1 on the A100 at batch 1: 3 input channels x 2 B = 6 B, under a tensor core's 16-byte channel
  // load, so the CUDA cores' fp32 rate (ir::OpClass::NarrowConv), at matmul's default PPP.
  //   MACs = 112·112 outputs × 64 channels × 7·7·3 = 118,013,952 (torchvision's conv1); F = 236,027,904
  //   Br   = (3·224·224 + 9,408 weights) × 2 B = 319,872 B;  Bw = 64·112·112 × 2 B = 1,605,632 B
  //   PALEO = 1,925,504 / (0.8 × 1555e9) = 1.5478 us + 236,027,904 / (0.5 × 19.5e12) = 24.2080 us + 5 us
  //         = 30.756 us (on the tensor cores' 312 TFLOP/s the compute term would be 1.513 us)
  const engine::Report a100_1 = run(a100(), 1);
  const engine::LayerRow& conv1 = find(a100_1, "conv1");
  CHECK(conv1.op_class == ir::OpClass::NarrowConv);
  CHECK(conv1.fwd.flops == 236027904.0);
  CHECK(conv1.fwd.bytes() == 1925504.0);
  CHECK_THAT(conv1.time_fwd.paleo_s, WithinRel(1925504.0 / (0.8 * kBw) + 236027904.0 / (0.5 * kPeak) + kLaunch, 1e-12));
  CHECK_THAT(conv1.time_fwd.paleo_s, WithinAbs(30.756e-6, 0.001e-6));
  // On both GPUs and at both batches, the inference total is the formula over every row, each at its
  // own peak and PPP (as VGG-19's above), so the stem's move shows in the totals and nowhere else.
  for (const auto& [device, batch] : {std::pair{&a100(), std::int64_t{1}}, std::pair{&a100(), std::int64_t{64}},
                                      std::pair{&t4, std::int64_t{1}}, std::pair{&t4, std::int64_t{64}}}) {
    CAPTURE(device->name, batch);
    const engine::Report r = run(*device, batch);
    double fwd = 0;
    for (const engine::LayerRow& l : r.layers)
      fwd += l.fwd.bytes() / (l.ppp_fwd.memory * r.device.bandwidth) + l.fwd.flops / (l.ppp_fwd.compute * l.peak.flops_per_s) +
             l.fwd.kernels * r.device.launch_overhead_s;
    CHECK_THAT(r.totals.time_fwd_s, WithinRel(fwd, 1e-9));
  }
}

TEST_CASE("the default PPP of every op class pinned through a layer of each class") {
  // No ppp.* line in the A100 file, so every layer runs at the defaults. Batch 1, fp32.
  const ir::Network net = lang::parse_network(R"(network classes {
  input x: [8, 32, 32]
  x = x -> conv(8, 3, pad: 1) -> relu -> batchnorm -> maxpool(2)
  return concat(x, x) -> channel_shuffle(2)
}
)",
                                              "classes.net");
  const engine::Report r = engine::simulate(net, a100(), {.batch = 1, .precision = ir::Precision::FP32, .kernel_model = engine::KernelModel::Flat});
  struct Expect {
    const char* layer;
    double compute, memory;
  };
  for (const Expect& e : {Expect{"conv1", 0.5, 0.8}, Expect{"relu1", 0.5, 0.8}, Expect{"batchnorm1", 0.5, 0.6},
                          Expect{"maxpool1", 0.5, 0.7}, Expect{"channel_shuffle1", 0.5, 0.8}}) {
    CAPTURE(e.layer);
    const engine::LayerRow& l = find(r, e.layer);
    CHECK(l.ppp_fwd.compute == e.compute);
    CHECK(l.ppp_fwd.memory == e.memory);
    CHECK(l.ppp_bwd.compute == e.compute);
    CHECK(l.ppp_bwd.memory == e.memory);
    CHECK(l.ppp_fwd.compute_default);
    CHECK(l.ppp_fwd.memory_default);
  }

  // The same defaults through absolute times, by hand (8 x 32 x 32 = 8192 elements = 32,768 B):
  // conv1: F = 2 × 8192 × 8·9 = 1,179,648; Br = (8192 + 584 params) × 4 = 35,104 B; Bw = 32,768 B; and
  //   the bias kernel: 2 × 32,768 + 32 B, a second kernel. 133,440 B in all.
  //   PALEO = 133,440 / (0.8 × 1555e9) = 107.267 ns + 1,179,648 / (0.5 × 19.5e12) = 120.989 ns + 2 × 5 us = 10.228256 us
  CHECK_THAT(find(r, "conv1").time_fwd.paleo_s, WithinAbs(10.228256e-6, 1e-12));
  // relu1: F = 8192; B = 65,536. PALEO = 65,536 / 1.244e12 = 52.682 ns + 8192 / 9.75e12 = 0.840 ns + 5 us
  CHECK_THAT(find(r, "relu1").time_fwd.paleo_s, WithinAbs(5.053522e-6, 1e-12));
  // batchnorm1 (eval): F = 2 × 8192 = 16,384; Br = (8192 + 32) × 4 = 32,896 B; Bw = 32,768 B.
  //   PALEO = 65,664 / (0.6 × 1555e9) = 70.379 ns + 16,384 / 9.75e12 = 1.680 ns + 5 us = 5.072060 us
  CHECK_THAT(find(r, "batchnorm1").time_fwd.paleo_s, WithinAbs(5.072060e-6, 1e-12));
  // maxpool1 2x2 -> [8, 16, 16] = 2048 outputs: F = 3 × 2048 = 6144; Br = 32,768 B; Bw = 8192 B and, on
  //   a GPU, the int64 indices PyTorch computes in inference too: 2048 × 8 = 16,384 B.
  //   PALEO = 57,344 / (0.7 × 1555e9) = 52.681 ns + 6144 / 9.75e12 = 0.630 ns + 5 us = 5.053311 us
  CHECK_THAT(find(r, "maxpool1").time_fwd.paleo_s, WithinAbs(5.053311e-6, 1e-12));
  // channel_shuffle1 on [16, 16, 16] = 4096 elements: a copy, B = 2 × 16,384 = 32,768 B, no FLOPs.
  //   PALEO = 32,768 / (0.8 × 1555e9) = 26.341 ns + 5 us = 5.026341 us
  CHECK_THAT(find(r, "channel_shuffle1").time_fwd.paleo_s, WithinAbs(5.026341e-6, 1e-12));
}
