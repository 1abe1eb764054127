// Measurement and calibration end to end on small networks and small inputs (CI has two cores):
// every layer timed, backward only where autograd computes one, and a calibrated `.hw` that parses.
#include "validate/calibrate.hpp"
#include "validate/heap_cushion.hpp"
#include "validate/probes.hpp"
#include "validate/hw_writer.hpp"
#include "validate/measure.hpp"

#include "lang/builder.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ridge;

namespace {

ir::Network small_cnn(const std::string& name, std::int64_t width) {
  lang::NetworkBuilder b(name, {3, 32, 32});
  auto x = b.relu(b.batchnorm(b.conv(b.input(), width, 3, {.padding = 1, .bias = false})));
  x = b.maxpool(x, 2);
  auto y = b.relu(b.batchnorm(b.conv(x, width, 3, {.padding = 1, .bias = false})));
  x = b.add(x, y);
  x = b.flatten(b.adaptive_avgpool(x, 1, 1));
  return b.finish(b.linear(x, 10));
}

validate::MeasureOptions quick() {
  validate::MeasureOptions o;
  o.warmup = 1;
  o.repeats = 3;
  o.budget_s = 0.05;
  return o;
}

}  // namespace

TEST_CASE("every layer is timed forward, and backward exactly where a gradient flows") {
  const ir::Network net = small_cnn("small", 8);
  validate::TorchProgram program(net);
  const validate::NetworkTiming t = validate::measure(program, 2, quick());
  REQUIRE(t.layers.size() == net.layers.size() - 1);
  const auto grad = validate::needs_grad(net);
  for (const auto& l : t.layers) {
    INFO(net.layers[l.id].name);
    CHECK(l.forward.median_s > 0);
    CHECK(l.forward.runs >= 1);
    CHECK(l.backward.has_value() == grad[l.id]);
    CHECK(l.forward_train.has_value() == grad[l.id]);   // timed beside the backward, as a step runs it
    if (l.forward_train) CHECK(l.forward_train->median_s > 0);
  }
  CHECK(t.inference_s > 0);
  CHECK(t.training_step_s > t.inference_s);   // a step does a forward and more
  CHECK(t.sum_backward_s() > 0);
}

TEST_CASE("a CPU layer pass is timed on resident memory, and what it still faults in is counted") {
  if (!validate::HeapCushion::kAvailable) {
    SUCCEED("AddressSanitizer replaces glibc's malloc, whose heap this is about");
    return;
  }
  validate::MeasureOptions o = quick();
  o.backward = false;
  SECTION("faults are counted: a 48 MiB output, above glibc's largest mmap threshold, timed bare") {
    lang::NetworkBuilder b("big_relu", {12, 1024, 1024});
    const ir::Network net = b.finish(b.relu(b.input()));
    validate::TorchProgram program(net);
    o.cushion = false;
    const validate::NetworkTiming bare = validate::measure(program, 1, o);
    REQUIRE(bare.layers.size() == 1);
    CHECK(bare.layers[0].forward.fresh_bytes > 0.9 * 48.0 * 1024 * 1024);
  }
  SECTION("on a cushion, a convolution's oneDNN blocks (two of 25.7 MB a run) come from resident memory") {
    // The 1x1 expansion of issue #37's batch-16 probe: on a 2-core Xeon VM its loop faulted in 51 MB a
    // run without the cushion and took 28-34 ms, against 6.6 ms on it.
    lang::NetworkBuilder b("expand", {32, 56, 56});
    const ir::Network net = b.finish(b.conv(b.input(), 128, 1, {.bias = false}));
    validate::TorchProgram program(net);
    const validate::NetworkTiming cushioned = validate::measure(program, 16, o);
    REQUIRE(cushioned.layers.size() == 1);
    CHECK(cushioned.layers[0].forward.fresh_bytes < 0.05 * 16 * 128 * 56 * 56 * 4);
  }
}

TEST_CASE("a stop request abandons measurement with Interrupted") {
  const ir::Network net = small_cnn("small", 4);
  validate::TorchProgram program(net);
  const std::atomic<bool> stop{true};
  auto o = quick();
  o.stop = &stop;
  CHECK_THROWS_AS(validate::measure(program, 1, o), validate::Interrupted);
}

TEST_CASE("calibrate on small networks writes a .hw that parses back, with provenance and fitted PPP") {
  validate::CalibrateOptions o;
  o.batch = 2;
  o.measure = quick();
  o.ceilings.gemm_size = 256;
  o.ceilings.copy_bytes = 16 << 20;
  o.ceilings.repeats = 2;
  o.date = "2025-01-01";
  o.threads = 1;   // the default is LibTorch's own count; the .hw must record the count it was fitted for
  const std::vector<validate::CalibrationNetwork> nets{{small_cnn("small_a", 8), false},
                                                       {small_cnn("small_b", 16), false},
                                                       {small_cnn("small_c", 12), true}};
  const validate::CalibrationResult r = validate::calibrate(nets, o);
  CHECK(r.gemm_flops > 0);
  CHECK(r.copy_bandwidth > 0);
  // The launch overhead is the measured dispatch of an op that does no work, not a fitted figure: the
  // fit and the .hw use exactly it. A CPU dispatches an op in microseconds (PyTorch's own benchmarks of
  // at::add on tiny tensors: a few us), never in the 275 us the fit once found (issue #37).
  CHECK(r.dispatch_overhead > 0.1e-6);
  CHECK(r.dispatch_overhead < 100e-6);
  CHECK(r.fit.launch_overhead == r.dispatch_overhead);
  REQUIRE(r.device.launch_overhead.has_value());
  CHECK(r.device.launch_overhead->value == r.dispatch_overhead);
  CHECK_THAT(r.device.launch_overhead->source, Catch::Contains("at::add_out of one-element tensors"));
  // The three networks, then the probes (on by default): fitted, but in no median error. On one thread
  // at batch 2 LibTorch runs the pointwise probes' 1x1 convolutions natively (engine/cpu_dispatch.hpp),
  // so they are measured again at batch 16, where it runs them on oneDNN.
  const std::size_t pointwise_probes = validate::pointwise_probes().size();
  REQUIRE(r.networks.size() == 3 + validate::kernel_probes().size() + pointwise_probes);
  CHECK(r.networks[2].holdout);
  CHECK(std::all_of(r.networks.begin() + 3, r.networks.end(), [](const auto& n) { return n.probe && !n.holdout; }));
  CHECK(validate::median_error(r.networks, false, true).networks == 2);
  // Cross-validation: each fitted network predicted by a fit of the other's layers and the probes';
  // the held-out network and the probes are no fit's to leave out.
  for (std::size_t i = 0; i < r.networks.size(); ++i) {
    CAPTURE(r.networks[i].network);
    const bool fitted = i < 2;
    CHECK(r.networks[i].left_out_infer_s.has_value() == fitted);
    if (fitted) {
      CHECK(*r.networks[i].left_out_infer_s > 0);
      CHECK(*r.networks[i].left_out_train_s > *r.networks[i].left_out_infer_s);
      CHECK(*r.networks[i].left_out_infer_s != r.networks[i].after_infer_s);   // another fit, another time
    }
  }
  CHECK(validate::leave_one_out_error(r.networks).networks == 2);
  CHECK(std::any_of(r.device.provenance.begin(), r.device.provenance.end(),
                    [](const std::string& p) { return p.find("leaving each fitted network out of the fit (2 fits)") != std::string::npos; }));
  // The small CNNs have no depthwise conv: the probes alone give the class its PPP. Three convs in each
  // depthwise probe, five probes 3x3 (depthwise) and five 5x5 (depthwise_large); two 1x1 convs in
  // each of six pointwise probes.
  REQUIRE(r.fit.groups.contains({ir::OpClass::Depthwise, ir::Pass::Backward}));
  CHECK(r.fit.groups.at({ir::OpClass::Depthwise, ir::Pass::Backward}).samples == 3 * 5);
  CHECK(r.fit.groups.contains({ir::OpClass::DepthwiseLarge, ir::Pass::Backward}));
  REQUIRE(r.fit.groups.contains({ir::OpClass::Pointwise, ir::Pass::Backward}));
  CHECK(r.fit.groups.at({ir::OpClass::Pointwise, ir::Pass::Backward}).samples == 2 * 6);         // at batch 16
  REQUIRE(r.fit.groups.contains({ir::OpClass::PointwiseNative, ir::Pass::Backward}));
  CHECK(r.fit.groups.at({ir::OpClass::PointwiseNative, ir::Pass::Backward}).samples == 2 * 6);   // at batch 2
  // The small CNNs' global pool and the probes' are the reduction class's samples.
  CHECK(r.fit.groups.at({ir::OpClass::Reduction, ir::Pass::Forward}).samples ==
        2 + validate::kernel_probes().size() + pointwise_probes);
  REQUIRE(r.device.ppp.contains({ir::OpClass::Depthwise, ir::Pass::Backward}));
  const ir::Efficiency& dw = r.device.ppp.at({ir::OpClass::Depthwise, ir::Pass::Backward});
  const std::string dw_source = dw.compute_curve ? dw.compute_curve->source : dw.compute ? dw.compute->source : "";
  CHECK_THAT(dw_source, Catch::Contains("small_a, small_b and 22 kernel probes (6 of them at batch 16) (batch 2, fp32)"));
  CHECK_FALSE(r.fit.groups.empty());
  CHECK(r.device.kind == ir::DeviceKind::CPU);
  const ir::Device back = lang::parse_device(validate::write_hw(r.device), "calibrated.hw");
  CHECK(back.ppp.size() == r.device.ppp.size());
  CHECK(back.provenance.size() == r.device.provenance.size());
  CHECK(back.measured_bandwidth.has_value());
  CHECK(back.provenance.front().find("1 CPU threads") != std::string::npos);
  REQUIRE(back.measured_threads.has_value());
  CHECK(back.measured_threads->value == 1.0);   // simulate's choice of LibTorch's 1x1 kernel turns on it
  CHECK(std::any_of(r.layers.begin(), r.layers.end(), [](const auto& l) { return l.train; }));
  // Every fitted PPP of the calibrated device is in the file, as fitted (the writer caps at 1): the
  // loop walks the fit's figures, not the file's, so a figure the writer dropped fails here.
  REQUIRE_FALSE(r.device.ppp.empty());
  for (const auto& [key, e] : r.device.ppp) {
    CAPTURE(std::string(ir::op_class_name(key.first)));
    REQUIRE(back.ppp.contains(key));
    const ir::Efficiency& written = back.ppp.at(key);
    CHECK(written.compute.has_value() == e.compute.has_value());
    CHECK(written.memory.has_value() == e.memory.has_value());
    if (e.compute && written.compute) {
      CHECK(e.compute->value > 0);
      CHECK(written.compute->value == Approx(std::min(e.compute->value, 1.0)).epsilon(1e-3));
    }
    if (e.memory && written.memory) {
      CHECK(e.memory->value > 0);
      CHECK(written.memory->value == Approx(std::min(e.memory->value, 1.0)).epsilon(1e-3));
    }
  }
}

TEST_CASE("a ceiling that moved while calibrate measured is a warning, with both figures") {
  // The 2-vCPU Xeon VM of 2026-11-28: 321.6 GFLOP/s in one run, 213.6 in a run an hour later.
  const auto drift = validate::ceiling_drift_warning(321.6e9, 213.6e9);
  REQUIRE(drift);
  CHECK(drift->find("321.6 GFLOP/s") != std::string::npos);
  CHECK(drift->find("213.6 GFLOP/s") != std::string::npos);
  CHECK(drift->find("-34 %") != std::string::npos);
  CHECK(validate::ceiling_drift_warning(213.6e9, 321.6e9));              // faster at the end too
  CHECK_FALSE(validate::ceiling_drift_warning(330e9, 321.6e9));          // 2.5 %: the ceiling's own jitter
  CHECK_FALSE(validate::ceiling_drift_warning(330e9, 0.0));              // not measured again
}

TEST_CASE("a fitted figure at the edge physics allows is a warning that says what it absorbed") {
  using validate::FitSample;
  // A linear measured twice as fast as its compute bound: the PPP stops at 1 and the model still
  // over-predicts by 100 %. A pool measured 500x its bound: a PPP of 0.002.
  std::vector<FitSample> samples;
  for (int i = 0; i < 3; ++i) {
    samples.push_back({ir::OpClass::MatMul, ir::Pass::Forward, 1e-3, 1e-5, 1, 0.5e-3, 0, 1e9, 1e6});
    samples.push_back({ir::OpClass::Pooling, ir::Pass::Forward, 1e-6, 1e-7, 1, 0.5e-3, 0, 1e3, 1e3});
  }
  const validate::FitResult fit = validate::fit_ppp(samples, {.fit_launch_overhead = false});
  const std::vector<std::string> w = validate::bound_warnings(fit, samples);
  INFO(Catch::Detail::stringify(w));
  // The linear's two terms both stop at 1 (1 ms of compute and 10 us of traffic against 0.5 ms: 102 %
  // over); the pool's memory term is not at a bound, its compute term far below any plausible PPP.
  REQUIRE(w.size() == 3);
  CHECK_THAT(w[0], Catch::StartsWith("ppp.matmul.forward.compute ended at its bound, 1.0") &&
                       Catch::Contains("3 layer passes 102 % slower than measured"));
  CHECK_THAT(w[1], Catch::StartsWith("ppp.matmul.forward.memory ended at its bound, 1.0"));
  CHECK_THAT(w[2], Catch::StartsWith("ppp.pooling.forward.compute fell to 0.0020") && Catch::Contains("500x their roofline"));
  // A fit inside its bounds says nothing.
  samples = {{ir::OpClass::MatMul, ir::Pass::Forward, 1e-3, 1e-5, 1, 2e-3, 0, 1e9, 1e6}};
  CHECK(validate::bound_warnings(validate::fit_ppp(samples, {.fit_launch_overhead = false}), samples).empty());
}

TEST_CASE("the device option takes cpu, cuda and cuda:N and nothing else") {
  CHECK_FALSE(validate::parse_device("cpu").cuda);
  CHECK(validate::parse_device("cuda").cuda);
  CHECK(validate::parse_device("cuda").index == 0);
  CHECK(validate::parse_device("cuda:3").index == 3);
  for (const char* bad : {"", "gpu", "CUDA", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "cudax", "cuda:99999999999"}) {
    INFO(bad);
    CHECK_THROWS_WITH(validate::parse_device(bad), Catch::Contains("cpu, cuda or cuda:N"));
  }
}

TEST_CASE("calibrate --device cuda without a CUDA LibTorch says so before measuring anything") {
  validate::CalibrateOptions o;
  o.cuda = true;
  if (!at::hasCUDA()) {
    CHECK_THROWS_WITH(validate::calibrate({{small_cnn("small", 4), false}}, o), Catch::Contains("built without CUDA"));
  } else {
    // A CUDA LibTorch: the same up-front check refuses a device index the machine does not have.
    o.cuda_index = 4096;
    CHECK_THROWS_WITH(validate::calibrate({{small_cnn("small", 4), false}}, o),
                      Catch::Contains("--device cuda:4096: this machine has"));
  }
}
