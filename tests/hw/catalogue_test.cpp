// The catalogue hw/*.hw: every file parses, every figure has a source, and the figures are the ones
// of the vendors' datasheets (dense, one direction, one K80 GPU), each cited beside its number.
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using ridge::ir::Device;
using ridge::ir::Figure;
using ridge::ir::Precision;

namespace {

const std::string kHwDir = RIDGE_HW_DIR;

std::vector<std::filesystem::path> catalogue() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kHwDir))
    if (entry.path().extension() == ".hw") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

Device load(const std::string& stem) { return ridge::lang::load_device(kHwDir + "/" + stem + ".hw"); }

// A figure by its `.hw` key, so the table below reads like the files.
std::optional<double> figure(const Device& d, const std::string& key) {
  const auto in = [](const auto& map, Precision p) -> std::optional<double> {
    const auto it = map.find(p);
    return it == map.end() ? std::nullopt : std::optional<double>(it->second.value);
  };
  const auto opt = [](const std::optional<Figure>& f) { return f ? std::optional<double>(f->value) : std::nullopt; };
  if (key == "memory.size") return opt(d.memory_size);
  if (key == "memory.bandwidth") return opt(d.memory_bandwidth);
  if (key == "l2.size") return opt(d.l2_size);
  if (key == "launch_overhead") return opt(d.launch_overhead);
  if (key.rfind("link.", 0) == 0) {
    const std::string name = key.substr(5, key.find('.', 5) - 5);
    const auto it = d.links.find(name);
    return it == d.links.end() ? std::nullopt : std::optional<double>(it->second.bandwidth.value);
  }
  const auto dot = key.find('.');
  const auto precision = ridge::ir::precision_from_name(key.substr(dot + 1));
  REQUIRE(precision);
  if (key.rfind("peak.", 0) == 0) return in(d.vector_peak, *precision);
  if (key.rfind("matrix.", 0) == 0) return in(d.matrix_peak, *precision);
  FAIL("no such key in this test: " << key);
  return std::nullopt;
}

std::vector<const Figure*> all_figures(const Device& d) {
  std::vector<const Figure*> out;
  for (const auto* map : {&d.vector_peak, &d.matrix_peak, &d.measured_peak})
    for (const auto& [p, f] : *map) out.push_back(&f);
  for (const auto* f : {&d.memory_size, &d.memory_bandwidth, &d.l2_size, &d.launch_overhead, &d.measured_bandwidth, &d.price})
    if (*f) out.push_back(&**f);
  for (const auto& [name, link] : d.links) {
    out.push_back(&link.bandwidth);
    if (link.latency) out.push_back(&*link.latency);
    if (link.efficiency) out.push_back(&*link.efficiency);
  }
  if (d.step_overhead) out.push_back(&*d.step_overhead);
  for (const auto& [key, e] : d.ppp) {
    if (e.compute) out.push_back(&*e.compute);
    if (e.memory) out.push_back(&*e.memory);
  }
  return out;
}

}  // namespace

TEST_CASE("the catalogue holds one file per device of the hardware reference") {
  const std::vector<std::string> expected = {
      "k20",           "k40",       "k80",          "gtx-titan-x",     "p40",
      "p100-pcie-16gb", "p100-sxm2", "v100-pcie",    "v100-sxm2",       "t4",
      "a100-sxm4-40gb", "a100-pcie-80gb", "a100-sxm4-80gb", "h100-pcie", "h100-sxm5",
      "h200-sxm",      "tpu-v4",    "xeon-e5-2699v4-2s", "xeon-e5-2697v2-2s", "xeon-phi-7120a",
      "colab-xeon-1core", "apple-a14",
      // 2024-2026 (issue #39): each figure sourced in its file, not yet in the hardware reference.
      "b200", "dgx-b200", "h20", "l40s", "l4", "rtx-4090", "mi300x", "mi325x", "mi300x-8gpu", "gaudi3", "tpu-v5e", "tpu-v5p",
      "tpu-v6e", "mi250x-gcd"};
  for (const auto& stem : expected) {
    CAPTURE(stem);
    CHECK(std::filesystem::exists(kHwDir + "/" + stem + ".hw"));
  }
}

TEST_CASE("every catalogue file parses and is named by its file stem") {
  const auto files = catalogue();
  REQUIRE(files.size() >= 22);
  for (const auto& path : files) {
    CAPTURE(path.string());
    Device d;
    REQUIRE_NOTHROW(d = ridge::lang::load_device(path.string()));
    CHECK(d.id == path.stem().string());
    CHECK_FALSE(d.name.empty());
    CHECK(d.launch_overhead);
  }
}

TEST_CASE("every figure in the catalogue has a non-empty source") {
  for (const auto& path : catalogue()) {
    const Device d = ridge::lang::load_device(path.string());
    for (const Figure* f : all_figures(d)) {
      CAPTURE(path.string(), f->value);
      CHECK_FALSE(f->source.empty());
    }
  }
}

TEST_CASE("catalogue figures match the datasheets in the hardware reference") {
  // Datasheets round to 3-4 significant figures and the files copy them, so 1e-3 relative is the
  // tolerance that separates "the datasheet figure" from "a different figure".
  const auto [stem, key, expected, cite] = GENERATE(table<std::string, std::string, double, std::string>({
      {"k20", "peak.fp32", 3.52e12, "NVIDIA K20 board spec BD-06499: 3.52 TFLOPS SP"},
      {"k20", "peak.fp64", 1.17e12, "BD-06499: 1.17 TFLOPS DP"},
      {"k20", "memory.bandwidth", 208e9, "BD-06499: 208 GB/s"},
      {"k40", "peak.fp32", 4.29e12, "NVIDIA K40 board spec BD-06902: 4.29 TFLOPS SP at base"},
      {"k40", "memory.bandwidth", 288e9, "BD-06902: 288 GB/s"},
      {"k80", "peak.fp32", 4.37e12, "NVIDIA K80 datasheet: 8.73 TFLOPS board at boost = 4.37 per GPU (not 8.73)"},
      {"k80", "peak.fp64", 1.46e12, "K80 datasheet: 2.91 TFLOPS DP board = 1.46 per GPU"},
      {"k80", "memory.bandwidth", 240e9, "K80 datasheet: 480 GB/s board = 240 per GPU"},
      {"k80", "memory.size", 12.0 * (1 << 30), "K80 datasheet: 24 GB board = 12 GB per GPU"},
      {"gtx-titan-x", "peak.fp32", 6.14e12, "NVIDIA Titan X product page; PALEO device table: 6.1 TFLOPS"},
      {"gtx-titan-x", "memory.bandwidth", 336.5e9, "Titan X product page: 336.5 GB/s"},
      {"p40", "peak.fp32", 11.76e12, "NVIDIA P40 datasheet: 12 TFLOPS (11.76 at 1531 MHz)"},
      {"p40", "peak.int8", 47e12, "P40 datasheet: 47 TOPS int8"},
      {"p40", "memory.bandwidth", 346e9, "P40 datasheet: 346 GB/s"},
      {"p100-pcie-16gb", "peak.fp32", 9.3e12, "NVIDIA P100 PCIe datasheet: 9.3 TFLOPS"},
      {"p100-pcie-16gb", "peak.fp16", 18.7e12, "P100 PCIe datasheet: 18.7 TFLOPS fp16"},
      {"p100-pcie-16gb", "memory.bandwidth", 732e9, "P100 PCIe datasheet: 732 GB/s (16 GB card)"},
      {"p100-sxm2", "peak.fp64", 5.3e12, "NVIDIA P100 datasheet, NVLink: 5.3 TFLOPS DP"},
      {"p100-sxm2", "link.nvlink", 80e9, "P100 datasheet: NVLink 160 GB/s bidirectional = 80 one way"},
      {"v100-pcie", "peak.fp32", 14e12, "NVIDIA V100 datasheet, PCIe: 14 TFLOPS"},
      {"v100-pcie", "matrix.fp16", 112e12, "V100 datasheet, PCIe: 112 TFLOPS tensor"},
      {"v100-sxm2", "peak.fp32", 15.7e12, "NVIDIA V100 datasheet, SXM2: 15.7 TFLOPS"},
      {"v100-sxm2", "matrix.fp16", 125e12, "V100 datasheet, SXM2: 125 TFLOPS tensor"},
      {"v100-sxm2", "memory.bandwidth", 900e9, "V100 datasheet: 900 GB/s"},
      {"v100-sxm2", "link.nvlink", 150e9, "V100 datasheet: NVLink 300 GB/s bidirectional = 150 one way"},
      {"t4", "peak.fp32", 8.1e12, "NVIDIA T4 datasheet: 8.1 TFLOPS"},
      {"t4", "matrix.fp16", 65e12, "T4 datasheet: 65 TFLOPS mixed precision"},
      {"t4", "matrix.int8", 130e12, "T4 datasheet: 130 TOPS int8"},
      {"t4", "memory.bandwidth", 320e9, "T4 datasheet: 320+ GB/s"},
      {"a100-sxm4-40gb", "peak.fp32", 19.5e12, "NVIDIA A100 datasheet: 19.5 TFLOPS fp32"},
      {"a100-sxm4-40gb", "matrix.tf32", 156e12, "A100 datasheet: 156 TFLOPS tf32 dense (312* sparse)"},
      {"a100-sxm4-40gb", "matrix.bf16", 312e12, "A100 datasheet: 312 TFLOPS bf16 dense (624* sparse)"},
      {"a100-sxm4-40gb", "matrix.fp64", 19.5e12, "A100 datasheet: 19.5 TFLOPS fp64 tensor core"},
      {"a100-sxm4-40gb", "memory.bandwidth", 1555e9, "A100 datasheet: 1,555 GB/s (40GB)"},
      {"a100-sxm4-40gb", "memory.size", 40.0 * (1 << 30), "A100 datasheet: 40 GB HBM2 (binary)"},
      {"a100-sxm4-40gb", "l2.size", 40.0 * (1 << 20), "A100 architecture whitepaper: 40 MB L2"},
      {"a100-sxm4-40gb", "link.nvlink", 300e9, "A100 datasheet: NVLink 600 GB/s = 300 one way"},
      {"a100-pcie-80gb", "memory.bandwidth", 1935e9, "A100 datasheet, 80GB PCIe: 1,935 GB/s"},
      {"a100-sxm4-80gb", "memory.bandwidth", 2039e9, "A100 datasheet, 80GB SXM: 2,039 GB/s"},
      {"a100-sxm4-80gb", "matrix.int8", 624e12, "A100 datasheet: 624 TOPS int8 dense (1248* sparse)"},
      {"h100-pcie", "peak.fp32", 51e12, "NVIDIA H100 datasheet, PCIe: 51 TFLOPS fp32"},
      {"h100-pcie", "matrix.bf16", 756e12, "H100 datasheet, PCIe: 1,513* TFLOPS sparse = 756 dense"},
      {"h100-pcie", "memory.bandwidth", 2000e9, "H100 datasheet, PCIe: 2 TB/s"},
      {"h100-sxm5", "peak.fp32", 67e12, "NVIDIA H100 datasheet, SXM: 67 TFLOPS fp32"},
      {"h100-sxm5", "matrix.bf16", 989.4e12, "H100 datasheet, SXM: 1,979* TFLOPS sparse = 989.4 dense (not 1979)"},
      {"h100-sxm5", "matrix.tf32", 494.7e12, "H100 datasheet, SXM: 989* TFLOPS sparse = 494.7 dense"},
      {"h100-sxm5", "memory.bandwidth", 3350e9, "H100 datasheet, SXM: 3.35 TB/s"},
      {"h100-sxm5", "link.nvlink", 450e9, "H100 datasheet: NVLink 900 GB/s = 450 one way"},
      {"h100-sxm5", "link.pcie", 63e9, "PCIe 5.0 x16: 128 GB/s total = ~63 one way"},
      {"h200-sxm", "matrix.bf16", 989.4e12, "NVIDIA H200 datasheet: 1,979* TFLOPS sparse = 989.4 dense"},
      {"h200-sxm", "memory.bandwidth", 4800e9, "H200 datasheet: 4.8 TB/s"},
      {"h200-sxm", "memory.size", 141.0 * (1 << 30), "H200 datasheet: 141 GB HBM3e"},
      {"tpu-v4", "matrix.bf16", 275e12, "Google Cloud TPU v4 docs: 275 TFLOPS bf16 per chip"},
      {"tpu-v4", "memory.bandwidth", 1200e9, "TPU v4 docs: 1,200 GB/s HBM"},
      {"tpu-v4", "memory.size", 32.0 * (1 << 30), "TPU v4 docs: 32 GiB HBM2"},
      {"xeon-e5-2699v4-2s", "peak.fp32", 3097.6e9,
       "Intel ARK 91317: 2 sockets x 22 cores x 2.2 GHz x 32 = 3097.6 GFLOPS (not 387.2)"},
      {"xeon-e5-2699v4-2s", "peak.fp64", 1548.8e9, "ARK 91317: 2 x 22 x 2.2 GHz x 16 = 1548.8 GFLOPS"},
      {"xeon-e5-2699v4-2s", "memory.bandwidth", 153.6e9, "ARK 91317: 76.8 GB/s per socket x 2 = 153.6 (not 17.6)"},
      {"xeon-e5-2697v2-2s", "peak.fp32", 1036.8e9, "Intel ARK 75283: 2 x 12 x 2.7 GHz x 16 = 1036.8 GFLOPS"},
      {"xeon-e5-2697v2-2s", "memory.bandwidth", 119.4e9, "ARK 75283: 4 x 1866 MT/s x 8 B x 2 = 119.4 GB/s"},
      {"xeon-phi-7120a", "peak.fp32", 2416.6e9, "Intel ARK 80555: 61 x 1.238 GHz x 32 = 2416.6 GFLOPS"},
      {"xeon-phi-7120a", "peak.fp64", 1208.3e9, "ARK 80555: 1.2 TFLOPS DP"},
      {"xeon-phi-7120a", "memory.bandwidth", 352e9, "ARK 80555: 352 GB/s"},
      {"colab-xeon-1core", "peak.fp32", 70.4e9, "GCE CPU platforms, Broadwell 2.2 GHz: 1 core x 2.2 x 32 = 70.4"},
      {"apple-a14", "peak.fp32", 0.65e12, "AnandTech A14 deep dive: 0.65 TFLOPS fp32 (not 1000 GFLOPS)"},
      {"apple-a14", "peak.fp16", 1.31e12, "AnandTech A14: 1.31 TFLOPS fp16"},
      {"apple-a14", "memory.bandwidth", 34.1e9, "derived: 64 bit x 4266 MT/s = 34.1 GB/s (not 5.3375)"},
      // One GCD of the two an MI250X OAM holds (a framework's device): half of AMD's OAM figures.
      {"mi250x-gcd", "matrix.fp16", 191.5e12, "AMD MI250X: 383 TFLOPS fp16 matrix for the OAM = 191.5 per GCD (not 383)"},
      {"mi250x-gcd", "peak.fp64", 23.9e12, "AMD MI250X: 47.9 TFLOPS fp64 vector for the OAM = 23.9 per GCD"},
      {"mi250x-gcd", "memory.bandwidth", 1.6e12, "ROCm MI250 microarchitecture: 1.6 TB/s per GCD (3.2 for the OAM)"},
      {"mi250x-gcd", "memory.size", 64.0 * (1ull << 30), "ROCm GPU specifications: 128 GiB for the OAM = 64 per GCD"},
  }));
  CAPTURE(stem, key, cite);
  const Device d = load(stem);
  const auto value = figure(d, key);
  REQUIRE(value);
  CHECK_THAT(*value, Catch::Matchers::WithinRel(expected, 1e-3));
}

TEST_CASE("figures commonly quoted wrongly are not the catalogue's") {
  // hw/README.md, "Figures commonly quoted wrongly". Each figure must be there (a missing one
  // is not a right one) and differ from the wrong value by more than rounding.
  const std::tuple<const char*, const char*, double> wrong[] = {
      {"xeon-e5-2699v4-2s", "peak.fp32", 387.2e9}, {"xeon-e5-2699v4-2s", "memory.bandwidth", 17.6e9},
      {"k80", "peak.fp32", 8.73e12},               {"k80", "peak.fp64", 2.91e12},
      {"h100-sxm5", "matrix.bf16", 1979e12},       {"h100-sxm5", "matrix.tf32", 989e12},
      {"apple-a14", "memory.bandwidth", 5.3375e9}, {"apple-a14", "peak.fp32", 1000e9}};
  for (const auto& [stem, key, value] : wrong) {
    CAPTURE(stem, key, value);
    const auto got = figure(load(stem), key);
    REQUIRE(got);
    CHECK_THAT(*got, !Catch::Matchers::WithinRel(value, 1e-3));
  }
}

TEST_CASE("a multi-device system is described by system.count and its interconnect") {
  const Device dgx = load("dgx-a100-40gb");
  CHECK(dgx.count == 8);
  CHECK(dgx.interconnect == "nvlink");
  // Per-GPU figures, as in the single-GPU file: the system adds a count, not a sum.
  const Device one = load("a100-sxm4-40gb");
  CHECK(dgx.matrix_peak == one.matrix_peak);
  CHECK(dgx.links == one.links);
}

TEST_CASE("devices without tensor cores have no matrix peak, and kinds are right") {
  // Optional figures stay optional: the engine must fall back explicitly, never to a zero.
  for (const std::string stem : {"k20", "k40", "k80", "gtx-titan-x", "p40", "p100-pcie-16gb", "p100-sxm2"}) {
    CAPTURE(stem);
    CHECK(load(stem).matrix_peak.empty());
  }
  CHECK(load("v100-sxm2").matrix_peak.count(Precision::BF16) == 0);  // Volta: fp16 tensor cores only
  CHECK(load("t4").matrix_peak.count(Precision::BF16) == 0);         // Turing: no bf16
  CHECK(load("tpu-v4").kind == ridge::ir::DeviceKind::TPU);
  CHECK(load("xeon-e5-2699v4-2s").kind == ridge::ir::DeviceKind::CPU);
  CHECK(load("xeon-phi-7120a").kind == ridge::ir::DeviceKind::Accelerator);
  CHECK(load("apple-a14").kind == ridge::ir::DeviceKind::SoC);
  CHECK(load("a100-sxm4-40gb").kind == ridge::ir::DeviceKind::GPU);
}

// Issue #32: the microarchitecture multiplies out to the peaks. For every precision a file gives both a
// per-clock rate and a peak for: units x FLOP/clk x clock (the matrix clock for matrix rates) is the
// datasheet's figure within 2 %. NVIDIA rounds its datasheet peaks (H100 SXM fp64: 132 x 128 x 1.98 GHz
// = 33.45 TFLOP/s, printed 34; H100 PCIe 25.6, printed 26), which is the largest gap in the catalogue.
TEST_CASE("every device's microarchitecture facts multiply out to its stated peaks") {
  int checked = 0, devices = 0;
  for (const auto& path : catalogue()) {
    const Device d = ridge::lang::load_device(path.string());
    if (!d.arch) continue;
    ++devices;
    const auto& a = *d.arch;
    CAPTURE(d.id);
    for (const auto& [per_clock, peaks, clock] :
         {std::tuple{&a.vector_per_clock, &d.vector_peak, a.clock.value},
          std::tuple{&a.matrix_per_clock, &d.matrix_peak, a.matrix_clock_hz()}})
      for (const auto& [precision, rate] : *per_clock) {
        CAPTURE(ridge::ir::precision_name(precision));
        const auto peak = peaks->find(precision);
        REQUIRE(peak != peaks->end());   // a per-clock rate for a precision the file gives no peak for is a typo
        CHECK_THAT(a.units.value * rate.value * clock, Catch::Matchers::WithinRel(peak->second.value, 0.02));
        ++checked;
      }
  }
  // Every device of the catalogue describes its microarchitecture: GPUs per SM, CPUs per core, the TPU
  // per TensorCore, the phone SoC per GPU core.
  for (const auto& path : catalogue()) {
    CAPTURE(path.string());
    CHECK(ridge::lang::load_device(path.string()).arch.has_value());
  }
  CHECK(devices >= 27);
  CHECK(checked >= 100);
}

TEST_CASE("catalogue prices are the per-GPU rates of the instance prices their sources quote") {
  // AWS EC2 Capacity Blocks (US East, rates until 2025-01-01): an 8-GPU instance's hourly price / 8.
  const std::vector<std::tuple<std::string, double>> instances{
      {"h100-sxm5", 39.33}, {"dgx-h100", 39.33}, {"h200-sxm", 43.26}, {"a100-sxm4-40gb", 14.75}, {"dgx-a100-40gb", 14.75}};
  for (const auto& [id, instance] : instances) {
    CAPTURE(id);
    const Device d = ridge::lang::load_device(std::string(RIDGE_HW_DIR) + "/" + id + ".hw");
    REQUIRE(d.price);
    CHECK_THAT(d.price->value * 8, Catch::Matchers::WithinRel(instance, 0.001));
    CHECK_THAT(d.price->source, Catch::Contains(std::to_string(instance).substr(0, 5) + " USD/h for 8 GPUs"));
  }
}
