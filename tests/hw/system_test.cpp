// Systems in `.hw` (issue 15): nodes of devices on one link joined by another, link efficiencies and a
// per-step overhead; the catalogue's DGX and SuperPOD files against NVIDIA's published figures.
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

const std::string kHwDir = RIDGE_HW_DIR;
ridge::ir::Device load(const std::string& stem) { return ridge::lang::load_device(kHwDir + "/" + stem + ".hw"); }

std::string refused(const std::string& body) {
  try {
    ridge::lang::parse_device("device \"x\" {\n  kind = gpu\n  source = \"test\"\n" + body + "}\n", "bad.hw");
  } catch (const ridge::lang::Error& e) {
    return e.what();
  }
  FAIL("accepted:\n" << body);
  return {};
}

}  // namespace

TEST_CASE("a cluster is nodes of devices on one link, joined by another") {
  const auto d = ridge::lang::parse_device(
      "device \"pod\" {\n  kind = gpu\n  source = \"test\"\n"
      "  link.nvlink.bandwidth = 300 GB/s\n  link.nvlink.efficiency = 80 %\n  link.nvlink.latency = 5 us\n"
      "  link.infiniband.bandwidth = 25 GB/s\n  link.infiniband.efficiency = 0.96\n"
      "  system.step_overhead = 2 ms\n  system.count = 16\n  system.node_size = 8\n"
      "  system.node_interconnect = nvlink\n  system.interconnect = infiniband\n}\n",
      "pod.hw");
  CHECK(d.count == 16);
  CHECK(d.node_size == 8);
  CHECK(d.node_interconnect == "nvlink");
  CHECK(d.interconnect == "infiniband");
  REQUIRE(d.links.at("nvlink").efficiency);
  CHECK_THAT(d.links.at("nvlink").efficiency->value, WithinRel(0.8, 1e-12));
  CHECK_THAT(d.links.at("infiniband").efficiency->value, WithinRel(0.96, 1e-12));
  CHECK_FALSE(d.links.at("infiniband").latency);   // optional: the engine says what it assumes
  REQUIRE(d.step_overhead);
  CHECK_THAT(d.step_overhead->value, WithinRel(2e-3, 1e-12));
}

TEST_CASE("a cluster's description is checked as a whole") {
  const std::string links = "  link.nvlink.bandwidth = 300 GB/s\n  link.infiniband.bandwidth = 25 GB/s\n";
  CHECK_THAT(refused(links + "  system.count = 16\n  system.node_size = 8\n  system.interconnect = infiniband\n"),
             Contains("nodes of 8 devices need 'system.node_interconnect = LINK'"));
  CHECK_THAT(refused(links + "  system.count = 12\n  system.node_size = 8\n  system.node_interconnect = nvlink\n"
                             "  system.interconnect = infiniband\n"),
             Contains("'system.count' (12) is not a whole number of nodes of 8 devices"));
  CHECK_THAT(refused(links + "  system.count = 16\n  system.node_size = 8\n  system.node_interconnect = nvswitch\n"
                             "  system.interconnect = infiniband\n"),
             Contains("'system.node_interconnect' names link 'nvswitch', which the device does not declare"));
  CHECK_THAT(refused(links + "  system.node_interconnect = nvlink\n"), Contains("needs 'system.node_size = N'"));
  CHECK_THAT(refused(links + "  system.node_size = 0\n"), Contains("'system.node_size' takes a whole number of devices"));
  CHECK_THAT(refused("  link.nvlink.bandwidth = 300 GB/s\n  link.nvlink.efficiency = 1.2\n"), Contains("in (0, 1]"));
  CHECK_THAT(refused("  system.step_overhead = 2 GB\n"), Contains("'system.step_overhead' takes"));
}

TEST_CASE("the DGX and SuperPOD files hold NVIDIA's published node and fabric figures") {
  // DGX A100 datasheet: 8x single-port ConnectX-6 200 Gb/s HDR InfiniBand, one per GPU: 25 GB/s each way.
  // DGX H100 datasheet: 8x ConnectX-7 400 Gb/s (NDR): 50 GB/s each way per GPU.
  // NVLink: A100 600 GB/s total (300 each way), H100 900 GB/s total (450 each way).
  const auto a100 = load("superpod-a100-80gb");
  CHECK(a100.node_size == 8);
  CHECK(a100.node_interconnect == "nvlink");
  CHECK(a100.interconnect == "infiniband");
  CHECK(a100.count == 1120);   // DGX SuperPOD reference architecture: 140 DGX A100 nodes
  CHECK(a100.links.at("infiniband").bandwidth.value == 25e9);
  CHECK(a100.links.at("nvlink").bandwidth.value == 300e9);
  const auto h100 = load("superpod-h100");
  CHECK(h100.count == 1016);   // DGX SuperPOD reference architecture: 127 DGX H100 nodes
  CHECK(h100.links.at("infiniband").bandwidth.value == 50e9);
  CHECK(h100.links.at("nvlink").bandwidth.value == 450e9);
  // The nodes alone: one NVSwitch domain of eight.
  for (const std::string stem : {"dgx-a100-80gb", "dgx-h100"}) {
    CAPTURE(stem);
    const auto node = load(stem);
    CHECK(node.count == 8);
    CHECK(node.interconnect == "nvlink");
    CHECK(node.links.at("nvlink").efficiency);
    CHECK(node.step_overhead);
  }
  // The node figures per GPU are those of the single-GPU files.
  CHECK(load("dgx-a100-80gb").matrix_peak == load("a100-sxm4-80gb").matrix_peak);
  CHECK(load("dgx-h100").matrix_peak == load("h100-sxm5").matrix_peak);
  CHECK(load("superpod-h100").matrix_peak == load("dgx-h100").matrix_peak);
}

TEST_CASE("a torus is the system's fabric: its dimensions multiply to the count") {
  const auto d = ridge::lang::load_device(kHwDir + "/tpu-v5p-pod-8x8x16.hw");
  CHECK(d.count == 1024);
  CHECK(d.torus == std::vector<int>{8, 8, 16});
  CHECK_THAT(d.torus_source, Contains("8x8x16"));
  CHECK(load("tpu-v5p-pod-4x4x4").torus == std::vector<int>{4, 4, 4});
  const std::string links = "  link.ici.bandwidth = 600 GB/s\n  system.interconnect = ici\n";
  CHECK_THAT(refused(links + "  system.count = 64\n  system.torus = \"4x4x2\"  source \"t\"\n"),
             Contains("a torus of 32 devices, but 'system.count' is 64"));
  for (const char* bad : {"\"4x4x\"", "\"4by4\"", "\"4x4x4x4\"", "\"0x4\"", "4", "\"\""})
    CHECK_THAT(refused(links + "  system.count = 64\n  system.torus = " + bad + "  source \"t\"\n"),
               Contains("'system.torus' takes the torus's dimensions as \"X\", \"XxY\" or \"XxYxZ\""));
  CHECK_THAT(refused("  link.a.bandwidth = 1 GB/s\n  link.b.bandwidth = 1 GB/s\n  system.count = 16\n  system.node_size = 8\n"
                     "  system.node_interconnect = a\n  system.interconnect = b\n  system.torus = \"4x4\"  source \"t\"\n"),
             Contains("'system.torus' describes one fabric"));
}
