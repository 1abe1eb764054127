// Hostile op arguments (issue #20): a window whose factors would wrap a 64-bit span
// (lang/ir/ops/rules.cpp bounds each factor first) and adaptive pooling to 2^30 outputs (costed in
// closed form in engine/costs/conv.cpp, no loop over outputs).
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using reliability::net_error;
using reliability::seconds;

TEST_CASE("a conv whose dilated kernel span overflows 64 bits is refused, not wrapped") {
  // (4294967297 - 1) * 4294967296 + 1 = 2^64 + 1: wraps to a kernel span of 1 in 64-bit arithmetic.
  const std::string error =
      net_error("network n {\n  input x: [3, 8, 8]\n  return x -> conv(16, [4294967297, 1], dilation: [4294967296, 1])\n}\n");
  CHECK_THAT(error, Catch::Contains("hostile.net:3:") && Catch::Contains("error:"));
}

TEST_CASE("adaptive pooling to 2^30 outputs costs no loop of 2^30 per layer") {
  std::string text = "network n {\n  input x: [1, 1, 1]\n";
  for (int i = 0; i < 3; ++i) text += "  x = x -> adaptive_avgpool([1073741824, 1])\n";
  text += "  return x\n}\n";
  const ir::Network net = lang::parse_network(text, "n.net");
  const ir::Device dev = reliability::test_device();
  const double s = seconds([&] {
    try {
      CHECK(reliability::all_finite(engine::simulate(net, dev, {.batch = 1})));
    } catch (const engine::SimulationError&) {
    }
  });
  CHECK(s < 2.0);
  CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
}
