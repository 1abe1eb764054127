// What calibrate writes is a `.hw` that simulate reads: write, parse back with lang::parse_device,
// compare figure by figure at the writer's 6 significant digits.
#include "validate/hw_writer.hpp"

#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

ir::Device calibrated_device() {
  ir::Device d;
  d.id = "this-cpu";
  d.name = "Intel(R) Xeon(R) \"test\" CPU";
  d.kind = ir::DeviceKind::CPU;
  d.vector_peak[ir::Precision::FP32] = {123.456789e9, "measured by calibrate"};
  d.matrix_peak[ir::Precision::BF16] = {1.5e12, "datasheet"};
  d.memory_size = ir::Figure{64.0 * 1024 * 1024 * 1024, "dmidecode"};
  d.memory_bandwidth = ir::Figure{21.3e9, "measured by calibrate"};
  d.l2_size = ir::Figure{2.0 * 1024 * 1024, "lscpu"};
  d.launch_overhead = ir::Figure{7.25e-6, "fitted"};
  d.price = ir::Figure{4.916, "an offer"};
  d.links["pcie"] = {ir::Figure{32e9, "PCIe 4"}, ir::Figure{1e-6, "assumed"}, std::nullopt};
  d.ppp[{ir::OpClass::MatMul, ir::Pass::Forward}] = {ir::Figure{0.61234, "fit"}, ir::Figure{0.5, "fit"}};
  d.ppp[{ir::OpClass::Elementwise, std::nullopt}] = {std::nullopt, ir::Figure{1.0, "fit"}};
  d.measured_peak[ir::Precision::FP32] = {120e9, "GEMM"};
  d.measured_bandwidth = ir::Figure{20e9, "copy"};
  d.measured_threads = ir::Figure{1, "at::get_num_threads()"};
  d.first_touch = ir::Figure{2.37e9, "fresh 64 MiB block"};
  d.mmap_threshold = ir::Figure{32.0 * 1024 * 1024, "glibc"};
  d.provenance = {"calibrated by ridge calibrate on 2025-01-01", "LibTorch 1.13.1"};
  return d;
}

}  // namespace

TEST_CASE("figures are written with a unit prefix that keeps them short") {
  CHECK(validate::format_flops(19.5e12) == "19.5 TFLOP/s");
  CHECK(validate::format_bandwidth(1555e9) == "1.555 TB/s");
  CHECK(validate::format_bytes(40.0 * 1024 * 1024 * 1024) == "40 GiB");
  CHECK(validate::format_seconds(5e-6) == "5 us");
  CHECK(validate::format_seconds(2.5e-3) == "2.5 ms");
}

TEST_CASE("a written .hw parses back to the same device") {
  const ir::Device d = calibrated_device();
  const std::string text = validate::write_hw(d, "written by a test\nsecond line");
  INFO(text);
  const ir::Device back = lang::parse_device(text, "written.hw");
  CHECK(back.kind == d.kind);
  CHECK(back.name == d.name);   // quotes escaped, not lost
  CHECK_THAT(back.vector_peak.at(ir::Precision::FP32).value, WithinRel(123.457e9, 1e-9));
  CHECK_THAT(back.matrix_peak.at(ir::Precision::BF16).value, WithinRel(1.5e12, 1e-9));
  CHECK_THAT(back.memory_size->value, WithinRel(d.memory_size->value, 1e-9));
  CHECK_THAT(back.memory_bandwidth->value, WithinRel(21.3e9, 1e-9));
  CHECK_THAT(back.l2_size->value, WithinRel(d.l2_size->value, 1e-9));
  CHECK_THAT(back.launch_overhead->value, WithinRel(7.25e-6, 1e-9));
  REQUIRE(back.price);
  CHECK(back.price->value == 4.916);   // the rent survives calibration
  CHECK(back.price->source == "an offer");
  CHECK_THAT(back.links.at("pcie").bandwidth.value, WithinRel(32e9, 1e-9));
  CHECK_THAT(back.links.at("pcie").latency->value, WithinRel(1e-6, 1e-9));
  const auto& mm = back.ppp.at({ir::OpClass::MatMul, ir::Pass::Forward});
  CHECK_THAT(mm.compute->value, WithinRel(0.61234, 1e-9));
  CHECK_THAT(mm.memory->value, WithinRel(0.5, 1e-9));
  const auto& ew = back.ppp.at({ir::OpClass::Elementwise, std::nullopt});
  CHECK_FALSE(ew.compute);
  CHECK(ew.memory->value == 1.0);
  CHECK_THAT(back.measured_peak.at(ir::Precision::FP32).value, WithinRel(120e9, 1e-9));
  CHECK_THAT(back.measured_bandwidth->value, WithinRel(20e9, 1e-9));
  REQUIRE(back.measured_threads);
  CHECK(*back.measured_threads == *d.measured_threads);   // LibTorch's kernel choice turns on it
  CHECK_THAT(back.first_touch->value, WithinRel(2.37e9, 1e-9));
  CHECK(back.mmap_threshold->value == 32.0 * 1024 * 1024);
  CHECK(back.provenance == d.provenance);
  CHECK(back.vector_peak.at(ir::Precision::FP32).source == "measured by calibrate");
}

TEST_CASE("strings are escaped as the language reads them") {
  ir::Device d = calibrated_device();
  d.name = "a \"quoted\" back\\slash\ttab";
  d.provenance = {"two\nlines", "carriage\rreturn", "bell\a"};
  const std::string text = validate::write_hw(d);
  INFO(text);
  const ir::Device back = lang::parse_device(text, "escaped.hw");
  CHECK(back.name == d.name);
  REQUIRE(back.provenance.size() == 3);
  CHECK(back.provenance[0] == "two\nlines");
  CHECK(back.provenance[1] == "carriage\nreturn");   // a string ends on its line: \r is written as \n
  CHECK(back.provenance[2] == "bell ");
}

TEST_CASE("no zero, negative or non-finite figure and no PPP above 1 is written") {
  ir::Device d = calibrated_device();
  d.launch_overhead = ir::Figure{0.0, "fitted: no overhead"};
  d.ppp[{ir::OpClass::Pooling, ir::Pass::Backward}] = {ir::Figure{0.0, "fit"}, ir::Figure{1.0000004, "fit"}};
  d.ppp[{ir::OpClass::Normalization, ir::Pass::Forward}] = {ir::Figure{-0.5, "fit"}, std::nullopt};
  d.measured_bandwidth = ir::Figure{std::numeric_limits<double>::quiet_NaN(), "copy"};
  const std::string text = validate::write_hw(d);
  INFO(text);
  const ir::Device back = lang::parse_device(text, "dropped.hw");   // check() would refuse any of them
  CHECK_FALSE(back.launch_overhead);
  CHECK_FALSE(back.measured_bandwidth);
  const auto& pool = back.ppp.at({ir::OpClass::Pooling, ir::Pass::Backward});
  CHECK_FALSE(pool.compute);
  CHECK(pool.memory->value == 1.0);
  CHECK_FALSE(back.ppp.contains({ir::OpClass::Normalization, ir::Pass::Forward}));
  REQUIRE_FALSE(back.provenance.empty());
  const std::string& last = back.provenance.back();
  CHECK(last.find("launch_overhead") != std::string::npos);
  CHECK(last.find("ppp.pooling.backward.compute") != std::string::npos);
  CHECK(last.find("ppp.normalization.forward.compute") != std::string::npos);
  CHECK(last.find("measured.bandwidth") != std::string::npos);
}

TEST_CASE("a cluster's nodes, link efficiencies and step overhead are written back") {
  // The shape of hw/superpod-a100-80gb.hw: nodes of 8 on NVLink, joined by InfiniBand.
  const ir::Device pod = lang::load_device(std::string(RIDGE_HW_DIR) + "/superpod-a100-80gb.hw");
  const ir::Device back = lang::parse_device(validate::write_hw(pod, ""), "pod.hw");
  CHECK(back.count == pod.count);
  CHECK(back.node_size == 8);
  CHECK(back.node_interconnect == "nvlink");
  CHECK(back.interconnect == "infiniband");
  CHECK_THAT(back.links.at("nvlink").efficiency->value, WithinRel(pod.links.at("nvlink").efficiency->value, 1e-9));
  CHECK_THAT(back.step_overhead->value, WithinRel(pod.step_overhead->value, 1e-9));
}

TEST_CASE("a PPP curve over size is written as a curve and parses back") {
  ir::Device d = calibrated_device();
  auto& e = d.ppp[{ir::OpClass::Pooling, ir::Pass::Backward}];
  e.compute_curve = ir::SizeCurve{{{2.5e5, 0.05}, {3.1e7, 0.2}, {4.4e9, 0.61234}}, "fitted by size"};
  e.memory_curve = ir::SizeCurve{{{3000.0, 0.1}, {5.0 * 1024 * 1024, 0.7}}, "fitted by size"};
  const std::string text = validate::write_hw(d, "");
  INFO(text);
  const ir::Device back = lang::parse_device(text, "written.hw");
  const auto& pool = back.ppp.at({ir::OpClass::Pooling, ir::Pass::Backward});
  REQUIRE(pool.compute_curve);
  REQUIRE(pool.memory_curve);
  CHECK(pool.compute_curve->source == "fitted by size");
  for (const auto& [written, read] : {std::pair{&*e.compute_curve, &*pool.compute_curve}, std::pair{&*e.memory_curve, &*pool.memory_curve}}) {
    REQUIRE(read->points.size() == written->points.size());
    for (std::size_t i = 0; i < read->points.size(); ++i) {
      CHECK_THAT(read->points[i].size, WithinRel(written->points[i].size, 1e-5));
      CHECK_THAT(read->points[i].fraction, WithinRel(written->points[i].fraction, 1e-5));
    }
  }
}

TEST_CASE("a catalogue GPU's microarchitecture is written back whole") {
  for (const char* file : {"/t4.hw", "/h100-sxm5.hw"}) {
    const ir::Device d = lang::load_device(std::string(RIDGE_HW_DIR) + file);
    REQUIRE(d.arch);
    const ir::Device back = lang::parse_device(validate::write_hw(d), "written.hw");
    REQUIRE(back.arch);
    CHECK(back.arch->family == d.arch->family);
    CHECK(back.arch->units.value == d.arch->units.value);
    REQUIRE(back.arch->threads);
    CHECK(back.arch->threads->value == d.arch->threads->value);
    CHECK(back.arch->threads->source == d.arch->threads->source);
    CHECK_THAT(back.arch->shared_memory->value, WithinRel(d.arch->shared_memory->value, 1e-9));
    CHECK(back.arch->matrix_per_clock.size() == d.arch->matrix_per_clock.size());
  }
}
