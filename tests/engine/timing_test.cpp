#include "engine/timing.hpp"

#include "engine/simulate.hpp"
#include "tests/engine/fixtures.hpp"
#include "tests/ir/resnet18_builder.hpp"

#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace ridge;

TEST_CASE("the A100's fp32 ridge point is its peak over its bandwidth") {
  const auto r = engine::simulate(testing::tiny(), testing::a100(), {});
  // A100 datasheet: 19.5 TFLOP/s fp32 (no fp32 matrix unit: TF32 is a separate precision), 1555 GB/s.
  CHECK(r.device.ridge_point == Approx(19.5e12 / 1555e9).epsilon(1e-12));
  CHECK(r.device.ridge_point == Approx(12.54).epsilon(1e-3));
}

TEST_CASE("the peak fallback chain is explicit") {
  const ir::Device a100 = testing::a100();
  using P = ir::Precision;
  using C = ir::OpClass;
  SECTION("fp32 matmul on an A100 uses the fp32 vector peak") {
    const auto p = engine::layer_peak(a100, C::MatMul, P::FP32);
    CHECK_FALSE(p.matrix);
    CHECK(p.flops_per_s == 19.5e12);
  }
  SECTION("tf32 conv uses the tensor cores; tf32 elementwise falls back to fp32 vector") {
    CHECK(engine::layer_peak(a100, C::MatMul, P::TF32).flops_per_s == 156e12);
    const auto e = engine::layer_peak(a100, C::Elementwise, P::TF32);
    CHECK(e.precision == P::FP32);
    CHECK(e.describe() == "vector fp32");
  }
  SECTION("a calibrated GPU's measured GEMM ceiling is no peak for its other ops") {
    // calibrate writes `measured.tf32` from a GEMM (the H100 run of 2026-11-26: 257.6
    // TFLOP/s); elementwise ops at tf32 still fall back to the datasheet's fp32 vector peak.
    ir::Device calibrated = a100;
    calibrated.measured_peak[P::TF32] = ir::Figure{120e12, "measured by ridge calibrate"};
    const auto e = engine::layer_peak(calibrated, C::Elementwise, P::TF32);
    CHECK(e.flops_per_s == 19.5e12);
    CHECK(e.describe() == "vector fp32");
  }
  SECTION("a device described only by measurements takes its measured ceiling as the peak") {
    ir::Device measured = testing::xeon();
    measured.vector_peak.clear();
    measured.matrix_peak.clear();
    measured.measured_peak[P::FP32] = ir::Figure{1.5e12, "measured by ridge calibrate"};
    CHECK(engine::layer_peak(measured, C::MatMul, P::FP32).flops_per_s == 1.5e12);
  }
  SECTION("a device without matrix units runs fp16 matmuls at its fp32 vector peak") {
    const auto p = engine::layer_peak(testing::xeon(), C::MatMul, P::FP16);
    CHECK(p.flops_per_s == 3.0976e12);
    CHECK(p.describe() == "vector fp32");
  }
  SECTION("a precision with no figure and no fallback is an error") {
    ir::Device d = testing::xeon();
    d.vector_peak.erase(P::FP64);
    CHECK_THROWS_AS(engine::layer_peak(d, C::MatMul, P::FP64), engine::SimulationError);
  }
}

TEST_CASE("the roofline bound is the larger of compute and memory time") {
  const engine::PeakUsed peak{100.0, ir::Precision::FP32, false};
  const engine::Ppp one{1.0, 1.0};
  const auto compute = engine::time_pass({1000.0, 5.0, 0.0, 1}, peak, 1.0, one, 0.0);
  CHECK(compute.roofline_s == 10.0);
  CHECK(compute.bound == engine::Bound::Compute);
  CHECK(compute.intensity == 200.0);
  const auto memory = engine::time_pass({10.0, 30.0, 20.0, 1}, peak, 1.0, one, 0.0);
  CHECK(memory.roofline_s == 50.0);
  CHECK(memory.bound == engine::Bound::Memory);
}

TEST_CASE("PALEO adds read, compute, write and launch terms scaled by the PPP") {
  const engine::PeakUsed peak{100.0, ir::Precision::FP32, false};
  const auto t = engine::time_pass({1000.0, 10.0, 20.0, 2}, peak, 1.0, {0.5, 0.25}, 3.0);
  CHECK(t.paleo_s == Approx(10.0 / 0.25 + 1000.0 / (0.5 * 100.0) + 20.0 / 0.25 + 2 * 3.0));
}

TEST_CASE("a device's PPP overrides the defaults, per pass before both passes") {
  ir::Device d = testing::a100();
  d.ppp[{ir::OpClass::MatMul, std::nullopt}] = {ir::Figure{0.7, "fit"}, std::nullopt};
  d.ppp[{ir::OpClass::MatMul, ir::Pass::Backward}] = {ir::Figure{0.6, "fit"}, ir::Figure{0.9, "fit"}};
  const auto f = engine::ppp(d, ir::OpClass::MatMul, ir::Pass::Forward);
  CHECK(f.compute == 0.7);
  CHECK_FALSE(f.compute_default);
  CHECK(f.memory_default);
  const auto b = engine::ppp(d, ir::OpClass::MatMul, ir::Pass::Backward);
  CHECK(b.compute == 0.6);
  CHECK(b.memory == 0.9);
  d.ppp[{ir::OpClass::Pooling, std::nullopt}] = {ir::Figure{1.5, "typo"}, std::nullopt};
  CHECK_THROWS_AS(engine::ppp(d, ir::OpClass::Pooling, ir::Pass::Forward), engine::SimulationError);
}

TEST_CASE("every layer's PALEO time is at or above its roofline bound") {
  const std::vector<ir::Network> nets{testing::resnet18_from_builder(), testing::tiny(), testing::mobile_block(),
                                      testing::shuffle_block(), testing::attention_block()};
  const std::vector<ir::Device> devices{testing::a100(), testing::xeon()};
  for (const auto& net : nets)
    for (const auto& dev : devices)
      for (const auto p : {ir::Precision::FP32, ir::Precision::TF32, ir::Precision::FP16, ir::Precision::INT8})
        for (const std::int64_t batch : {1, 64}) {
          const auto r = engine::simulate(net, dev, {.batch = batch, .precision = p});
          for (const auto& l : r.layers) {
            INFO(net.name << " " << l.name << " on " << dev.name);
            CHECK(l.time_fwd.paleo_s >= l.time_fwd.roofline_s);
            CHECK(l.time_fwd_train.paleo_s >= l.time_fwd_train.roofline_s);
            CHECK(l.time_bwd.paleo_s >= l.time_bwd.roofline_s);
          }
          CHECK(r.totals.time_train_step_s >= r.totals.roofline_train_step_s);
        }
}

TEST_CASE("every zoo network's PALEO times are at or above the roofline on every catalogued device") {
  namespace fs = std::filesystem;
  std::vector<ir::Network> nets;
  std::vector<ir::Device> devices;
  if (fs::is_directory(RIDGE_MODELS_DIR))
    for (const auto& e : fs::directory_iterator(RIDGE_MODELS_DIR))
      if (e.path().extension() == ".net") nets.push_back(lang::load_network(e.path().string()));
  if (fs::is_directory(RIDGE_HW_DIR))
    for (const auto& e : fs::directory_iterator(RIDGE_HW_DIR))
      if (e.path().extension() == ".hw") devices.push_back(lang::load_device(e.path().string()));
  REQUIRE(nets.size() >= 20);      // the zoo (models/)
  REQUIRE(devices.size() >= 10);   // the catalogue (hw/)
  std::size_t checked = 0;
  for (const auto& net : nets)
    for (const auto& dev : devices)
      for (const auto p : {ir::Precision::FP32, ir::Precision::FP16})
        for (const std::int64_t batch : {1, 64}) {
          engine::Report r;
          try {
            r = engine::simulate(net, dev, {.batch = batch, .precision = p});
          } catch (const engine::SimulationError&) {
            continue;   // a device with no figure for the precision (e.g. no fp32 on a TPU's list)
          }
          for (const auto& l : r.layers)
            if (l.time_fwd.paleo_s < l.time_fwd.roofline_s || l.time_bwd.paleo_s < l.time_bwd.roofline_s ||
                l.time_fwd_train.paleo_s < l.time_fwd_train.roofline_s)
              FAIL(net.name << " " << l.name << " on " << dev.name << ": PALEO below the roofline");
          ++checked;
        }
  CHECK(checked > nets.size() * devices.size());
}

TEST_CASE("a PPP curve over size is read linearly in log size and held beyond its ends") {
  // Calculon's A100 matrix table (systems/a100_80g.json): 0.6 at 1 GFLOP, 0.9 at 16, 0.95 at 128.
  const ir::SizeCurve curve{{{1e9, 0.6}, {16e9, 0.9}, {128e9, 0.95}}, "Calculon"};
  CHECK(engine::fraction_at(curve, 1e6) == 0.6);     // below the table: its first point
  CHECK(engine::fraction_at(curve, 1e9) == 0.6);
  CHECK(engine::fraction_at(curve, 4e9) == Approx(0.75));   // half way in log between 1 and 16 GFLOP
  CHECK(engine::fraction_at(curve, 16e9) == Approx(0.9));
  CHECK(engine::fraction_at(curve, 1e15) == 0.95);   // above: its last point
  CHECK(engine::fraction_at(ir::SizeCurve{{{1e3, 0.3}}, ""}, 1e9) == 0.3);
}

TEST_CASE("a layer is timed with the PPP its own size reads from the device's curve") {
  ir::Device d = testing::a100();
  const ir::SizeCurve compute{{{1e6, 0.1}, {1e9, 0.7}}, "test"};
  d.ppp[{ir::OpClass::MatMul, std::nullopt}].compute_curve = compute;
  // A per-pass flat figure beats the both-passes curve for that pass only.
  d.ppp[{ir::OpClass::MatMul, ir::Pass::Backward}].compute = ir::Figure{0.5, "test"};
  const auto r = engine::simulate(testing::tiny(), d, {.batch = 4});
  int checked = 0;
  for (const auto& l : r.layers) {
    if (l.op_class != ir::OpClass::MatMul) continue;
    CHECK(l.ppp_fwd.compute == engine::fraction_at(compute, l.fwd.flops));
    CHECK_FALSE(l.ppp_fwd.compute_default);
    CHECK(l.ppp_bwd.compute == 0.5);
    CHECK(l.time_fwd.paleo_s == engine::paleo_seconds(l.fwd.flops / l.peak.flops_per_s, l.fwd.bytes() / r.device.bandwidth,
                                                      l.ppp_fwd.compute, l.ppp_fwd.memory, l.fwd.kernels,
                                                      r.device.launch_overhead_s));
    ++checked;
  }
  CHECK(checked > 0);
  d.ppp[{ir::OpClass::MatMul, std::nullopt}].compute_curve->points.push_back({1e12, 1.5});
  CHECK_THROWS_AS(engine::simulate(testing::tiny(), d, {.batch = 4}), engine::SimulationError);
}

TEST_CASE("the training-mode forward takes the forward's PPP unless the device gives it one") {
  ir::Device d = testing::a100();
  using C = ir::OpClass;
  using P = ir::Pass;
  d.ppp[{C::Normalization, std::nullopt}].memory = ir::Figure{0.9, "both"};
  d.ppp[{C::Normalization, P::Forward}].memory = ir::Figure{0.7, "forward"};
  CHECK(engine::ppp(d, C::Normalization, P::ForwardTrain).memory == 0.7);
  d.ppp[{C::Normalization, P::ForwardTrain}].memory = ir::Figure{0.2, "batch statistics"};
  CHECK(engine::ppp(d, C::Normalization, P::ForwardTrain).memory == 0.2);
  CHECK(engine::ppp(d, C::Normalization, P::Forward).memory == 0.7);
  CHECK(engine::ppp(d, C::Normalization, P::Backward).memory == 0.9);
  // The simulation times the training-mode forward of a batch norm with it.
  const auto r = engine::simulate(testing::mobile_block(), d, {.batch = 4});
  int norms = 0;
  for (const auto& l : r.layers)
    if (l.op_class == C::Normalization && l.fwd_train.kernels > 0) {
      CHECK(l.time_fwd_train.paleo_s == Approx(engine::paleo_seconds(l.fwd_train.flops / l.peak.flops_per_s,
                                                                     l.fwd_train.bytes() / r.device.bandwidth,
                                                                     engine::default_ppp(C::Normalization, P::ForwardTrain).compute,
                                                                     0.2, l.fwd_train.kernels, r.device.launch_overhead_s)));
      ++norms;
    }
  CHECK(norms > 0);
}

TEST_CASE("a depthwise conv takes the matmul PPP until the device gives the depthwise class its own") {
  ir::Device d = testing::a100();
  using C = ir::OpClass;
  using P = ir::Pass;
  // No entry for either class: the depthwise default.
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).compute_default);
  // A .hw written before the class existed: the matmul entries, per pass as for matmul itself.
  d.ppp[{C::MatMul, std::nullopt}] = {ir::Figure{0.7, "fit"}, ir::Figure{0.6, "fit"}};
  d.ppp[{C::MatMul, P::Backward}].compute = ir::Figure{0.4, "fit"};
  CHECK(engine::ppp(d, C::Depthwise, P::Forward).compute == 0.7);
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).compute == 0.4);
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).memory == 0.6);
  // Its own entries win over matmul's, even matmul's per-pass ones; a term it leaves out stays matmul's.
  d.ppp[{C::Depthwise, std::nullopt}].compute = ir::Figure{0.05, "probes"};
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).compute == 0.05);
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).memory == 0.6);
  CHECK(engine::ppp(d, C::MatMul, P::Backward).compute == 0.4);
  // A reduction takes pooling's entries until it has its own.
  d.ppp[{C::Pooling, P::Forward}].memory = ir::Figure{0.1, "maxpool"};
  CHECK(engine::ppp(d, C::Reduction, P::Forward).memory == 0.1);
  d.ppp[{C::Reduction, std::nullopt}].memory = ir::Figure{0.9, "global pools"};
  CHECK(engine::ppp(d, C::Reduction, P::Forward).memory == 0.9);
  CHECK(engine::ppp(d, C::Pooling, P::Forward).memory == 0.1);
  // A large window takes the depthwise entries until it has its own.
  CHECK(engine::ppp(d, C::DepthwiseLarge, P::Backward).compute == 0.05);
  d.ppp[{C::DepthwiseLarge, P::Backward}].compute = ir::Figure{0.01, "probes"};
  CHECK(engine::ppp(d, C::DepthwiseLarge, P::Backward).compute == 0.01);
  CHECK(engine::ppp(d, C::Depthwise, P::Backward).compute == 0.05);
  // The simulation times MobileNetV2's depthwise convs with it, and its dense convs without.
  const ir::Network net = lang::load_network(std::string(RIDGE_SOURCE_DIR) + "/models/mobilenet_v2.net");
  const auto r = engine::simulate(net, d, {.batch = 2});
  int depthwise = 0;
  for (const auto& l : r.layers)
    if (l.op_class == C::Depthwise) {
      ++depthwise;
      CHECK(l.time_bwd.paleo_s == Approx(engine::paleo_seconds(l.bwd.flops / l.peak.flops_per_s, l.bwd.bytes() / r.device.bandwidth,
                                                               0.05, 0.6, l.bwd.kernels, r.device.launch_overhead_s)));
    }
  // torchvision's MobileNetV2: one depthwise 3x3 conv in each of its 17 inverted residual blocks.
  CHECK(depthwise == 17);
}

TEST_CASE("fresh memory: mapped blocks pay their bytes, and the heap its growth to the step's peak") {
  // The training step's passes; the inference forward replays glibc's arena instead
  // (tests/engine/host_allocator_test.cpp).
  ir::Device cpu = testing::xeon();
  const auto plain = engine::simulate(testing::mobile_block(), cpu, {.batch = 64});
  cpu.first_touch = ir::Figure{2e9, "test"};
  SECTION("no block above the threshold: a training forward faults in its peak live activations once") {
    cpu.mmap_threshold = ir::Figure{1e12, "test"};
    const auto fresh = engine::simulate(testing::mobile_block(), cpu, {.batch = 64});
    const double heap_s = plain.totals.peak_activation_bytes / 2e9;
    CHECK(fresh.totals.time_fwd_train_s == Approx(plain.totals.time_fwd_train_s + heap_s));
    double charged = 0.0, charged_bwd = 0.0, unpaid = 0.0;
    for (const auto& l : fresh.layers) {
      charged += l.time_fwd_train.fresh_s;
      charged_bwd += l.time_bwd.fresh_s;
      if (l.bwd.kernels == 0) unpaid += l.time_fwd_train.fresh_s;   // the input: no gradient to allocate
    }
    CHECK(charged == Approx(heap_s));
    // The backward regrows the heap for the gradients of every output that gets one: all but the input.
    CHECK(unpaid > 0);
    CHECK(charged_bwd == Approx(heap_s - unpaid));
    CHECK(fresh.totals.time_train_step_s == Approx(plain.totals.time_train_step_s + heap_s + charged_bwd));
  }
  SECTION("a pass whose output is above the threshold pays its written bytes, not the heap's growth") {
    cpu.mmap_threshold = ir::Figure{64.0 * 1024, "test"};
    const auto fresh = engine::simulate(testing::mobile_block(), cpu, {.batch = 64});
    int mapped = 0;
    for (const auto& l : fresh.layers) {
      if (l.fwd_train.bytes_written <= 64.0 * 1024) continue;
      CHECK(l.time_fwd_train.fresh_s >= l.fwd_train.bytes_written / 2e9);
      ++mapped;
    }
    CHECK(mapped >= 1);
    CHECK(fresh.totals.time_fwd_train_s > plain.totals.time_fwd_train_s);
    CHECK(fresh.totals.time_fwd_s > plain.totals.time_fwd_s);
  }
  SECTION("a device that gives no allocator figures pays nothing") {
    CHECK(engine::simulate(testing::mobile_block(), testing::xeon(), {.batch = 64}).totals.time_fwd_s == plain.totals.time_fwd_s);
  }
}
