// The cap on simulations per run covers the scaling rows too (issue #20, round two).
#include "cli.hpp"

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
}
