// The cap on simulations per run covers the scaling rows too (issue #20, round two).
#include "tests/reliability/cli.hpp"

using namespace ridge::reliability::cli;

TEST_CASE("scaling rows count against the cap on simulations per run") {
  const fs::path d = fresh("scalecap"), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, hw_named("d", "  link.nvlink.bandwidth = 300 GB/s\n"));
  std::string counts = "1";
  for (int i = 2; i <= 1000; ++i) counts += "," + std::to_string(i);
  const double s = ridge::reliability::seconds([&] {
    check_refused(simulate(q(net) + " " + q(hw) + " --batch 1000,2000,3000,4000,5000 --devices " + counts), "simulations");
  });
  CHECK(s < 2.0);
  CHECK(ridge::reliability::peak_rss_mib() < ridge::reliability::kMaxHostileMib);
}

TEST_CASE("scaling rows of a large network stop at the work cap, simulations times layers") {
  const fs::path d = fresh("workcap"), net = d / "n.net", hw = d / "d.hw";
  write(net, "network n {\n  input x: [4]\n" + ridge::reliability::repeat("  x = x -> relu\n", 2000) + "  return x\n}\n");
  write(hw, hw_named("d", "  link.nvlink.bandwidth = 300 GB/s\n"));
  std::string counts = "1";
  for (int i = 2; i <= 1000; ++i) counts += "," + std::to_string(i);
  const double s = ridge::reliability::seconds([&] {
    check_refused(simulate(q(net) + " " + q(hw) + " --batch 1000,2000,3000,4000 --devices " + counts), "layer simulations");
  });
  CHECK(s < 2.0);
  CHECK(ridge::reliability::peak_rss_mib() < ridge::reliability::kMaxHostileMib);
  // 41 batches of the largest network, likewise.
  std::string batches = "1";
  for (int i = 2; i <= 2001; ++i) batches += "," + std::to_string(i);
  check_refused(simulate(q(net) + " " + q(hw) + " --batch " + batches), "layer simulations");
}
