// The roofline's geometry against the device's datasheet figures, and the rule that nothing sits
// above the roof.
#include "tests/render/fixtures.hpp"

#include "engine/render/svg_roofline.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;
using engine::render::roofline;

namespace {
// Geometry is arithmetic on the .hw's figures: agreement to 1e-12 relative, i.e. exact but for rounding.
constexpr double kExact = 1e-12;
// NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB SXM column, dense figures.
constexpr double kA100Fp32 = 19.5e12, kA100Tf32 = 156e12, kA100Fp16 = 312e12, kA100Bw = 1555e9;

const engine::render::Ceiling* find_ceiling(const engine::render::Roofline& rl, double flops) {
  for (const auto& c : rl.ceilings)
    if (c.flops_per_s > 0 && std::abs(c.flops_per_s - flops) <= flops * kExact) return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("the A100 fp32 roofline meets at 19.5 TFLOP/s over 1555 GB/s") {
  const auto rl = roofline(testing::report("vgg19", "a100-sxm4-40gb", 64, ir::Precision::FP32));
  CHECK_THAT(rl.roof.peak, WithinRel(kA100Fp32, kExact));
  CHECK_THAT(rl.roof.bandwidth, WithinRel(kA100Bw, kExact));
  CHECK_THAT(rl.roof.ridge, WithinRel(kA100Fp32 / kA100Bw, kExact));   // 12.54 FLOP/B
  // Roof heights: bandwidth-bound left of the ridge, flat right of it, continuous at it.
  CHECK_THAT(rl.roof.at(1.0), WithinRel(kA100Bw, kExact));
  CHECK_THAT(rl.roof.at(0.25), WithinRel(0.25 * kA100Bw, kExact));
  CHECK_THAT(rl.roof.at(10.0), WithinRel(10.0 * kA100Bw, kExact));
  CHECK_THAT(rl.roof.at(rl.roof.ridge), WithinRel(kA100Fp32, kExact));
  CHECK_THAT(rl.roof.at(100.0), WithinRel(kA100Fp32, kExact));
  CHECK_THAT(rl.roof.at(1e4), WithinRel(kA100Fp32, kExact));
  // The tensor-core tf32 peak is a ceiling the fp32 run could reach with TF32 enabled.
  const auto* tf32 = find_ceiling(rl, kA100Tf32);
  REQUIRE(tf32 != nullptr);
  CHECK(tf32->label.find("tf32") != std::string::npos);
  CHECK_FALSE(tf32->measured);
  CHECK(rl.title == "vgg19 on NVIDIA A100-SXM4-40GB: batch 64, fp32");
}

TEST_CASE("at fp16 the A100's roof is the 312 TFLOP/s tensor-core peak and the vector peak a ceiling") {
  const auto rl = roofline(testing::report("vgg19", "a100-sxm4-40gb", 64, ir::Precision::FP16));
  CHECK_THAT(rl.roof.peak, WithinRel(kA100Fp16, kExact));
  CHECK_THAT(rl.roof.ridge, WithinRel(kA100Fp16 / kA100Bw, kExact));   // 200.6 FLOP/B
  CHECK(rl.roof.peak_label == "matrix fp16");
  // The device gives no fp16 vector peak: the engine falls back to fp32's, drawn as a ceiling.
  REQUIRE(find_ceiling(rl, kA100Fp32) != nullptr);
}

TEST_CASE("at tf32 the A100's roof is the 156 TFLOP/s tensor-core peak") {
  const auto rl = roofline(testing::report("resnet18", "a100-sxm4-40gb", 32, ir::Precision::TF32));
  CHECK_THAT(rl.roof.peak, WithinRel(kA100Tf32, kExact));
  CHECK_THAT(rl.roof.ridge, WithinRel(kA100Tf32 / kA100Bw, kExact));
}

TEST_CASE("a device without tensor cores has a vector roof: the K40's 4.29 TFLOP/s over 288 GB/s") {
  // NVIDIA K40 board spec BD-06902: 4.29 TFLOP/s fp32 at base clock, 288 GB/s.
  const auto rl = roofline(testing::report("resnet18", "k40", 8, ir::Precision::FP32));
  CHECK_THAT(rl.roof.peak, WithinRel(4.29e12, kExact));
  CHECK_THAT(rl.roof.ridge, WithinRel(4.29e12 / 288e9, kExact));
}

TEST_CASE("no model point sits above the roof, nor above its own layer's roof") {
  const auto [net, dev, prec] = GENERATE(table<const char*, const char*, ir::Precision>({
      {"vgg19", "a100-sxm4-40gb", ir::Precision::FP32},
      {"resnet50", "a100-sxm4-40gb", ir::Precision::FP16},
      {"mobilenet_v2", "h100-sxm5", ir::Precision::BF16},
      {"densenet121", "t4", ir::Precision::FP16},
      {"resnet18", "xeon-e5-2699v4-2s", ir::Precision::FP32},
  }));
  const auto rl = roofline(testing::report(net, dev, 16, prec));
  REQUIRE(rl.points.size() > 10);
  for (const auto& p : rl.points) {
    INFO(p.layer << " " << ir::pass_name(p.pass));
    CHECK_FALSE(p.measured);
    CHECK_FALSE(p.above_roof);
    CHECK(p.performance <= p.layer_roof * (1 + 1e-12));
    CHECK(p.performance <= rl.roof.at(p.intensity) * (1 + 1e-12));
    CHECK(p.plotted == p.performance);
  }
}

TEST_CASE("forward and backward points are both plotted for every conv layer") {
  const auto r = testing::report("vgg19", "a100-sxm4-40gb", 64, ir::Precision::FP32);
  const auto rl = roofline(r);
  int fwd = 0, bwd = 0;
  for (const auto& p : rl.points)
    if (p.op_class == ir::OpClass::MatMul || p.op_class == ir::OpClass::NarrowConv) (p.pass == ir::Pass::Forward ? fwd : bwd)++;
  CHECK(fwd == 19);   // VGG-19: 16 conv + 3 linear (the first conv, on 3 channels, of class narrow_conv on a GPU)
  CHECK(bwd == 19);
}

TEST_CASE("a measured point faster than its roof is flagged, drawn on the roof, and explained") {
  const auto r = testing::report("vgg19", "a100-sxm4-40gb", 64, ir::Precision::FP32);
  const auto& conv = r.layers.at(3);   // the second conv: memory-bound? whichever, its roof is what counts
  REQUIRE(conv.op_class == ir::OpClass::MatMul);
  const double bound = conv.time_fwd.roofline_s;
  const auto rl = roofline(r, {{conv.name, ir::Pass::Forward, bound / 2},     // twice the roof: impossible
                               {conv.name, ir::Pass::Backward, conv.time_bwd.paleo_s * 1.5},   // slower: fine
                               {"no_such_layer", ir::Pass::Forward, 1e-3}});
  std::vector<const engine::render::RooflinePoint*> measured;
  for (const auto& p : rl.points)
    if (p.measured) measured.push_back(&p);
  REQUIRE(measured.size() == 2);
  CHECK(measured[0]->above_roof);
  CHECK_THAT(measured[0]->performance, WithinRel(2 * measured[0]->layer_roof, 1e-9));
  CHECK(measured[0]->plotted == measured[0]->layer_roof);   // never drawn above the roof
  CHECK_FALSE(measured[0]->why.empty());
  CHECK_FALSE(measured[1]->above_roof);
  bool suspect_note = false, ignored_note = false;
  for (const engine::Note& n : rl.notes) {
    suspect_note |= n.id == "roofline-suspect" && n.severity == engine::Severity::Warning &&
                    n.text.find(conv.name) != std::string::npos;
    ignored_note |= n.id == "roofline-unknown-layer" && n.text.find("no_such_layer") != std::string::npos;
  }
  CHECK(suspect_note);
  CHECK(ignored_note);
  const std::string svg = engine::render::roofline_svg(rl);
  CHECK(svg.find("ABOVE ROOF") != std::string::npos);
}

TEST_CASE("measured ceilings from a calibrated device are drawn beside the datasheet roof") {
  ir::Device dev = testing::device("a100-sxm4-40gb");
  dev.measured_peak[ir::Precision::FP32] = {18.1e12, "test"};
  dev.measured_bandwidth = ir::Figure{1.3e12, "test"};
  const auto r = engine::simulate(testing::network("resnet18"), dev, {.batch = 8, .precision = ir::Precision::FP32});
  const auto rl = roofline(r, {}, &dev);
  const auto* peak = find_ceiling(rl, 18.1e12);
  REQUIRE(peak != nullptr);
  CHECK(peak->measured);
  bool bw = false;
  for (const auto& c : rl.ceilings) bw |= c.measured && c.bandwidth == 1.3e12;
  CHECK(bw);
}
