// Figures that overflow or give no finite answer (issue #20, round two): refused, naming them, never
// printed as inf, NaN, a negative count or a 63-digit number.
#include "tests/reliability/cli.hpp"
#include "engine/render/units.hpp"

using namespace ridge::reliability::cli;

TEST_CASE("figures that overflow after their unit, or give no finite answer, are refused, naming them") {
  CHECK_THAT(ridge::reliability::hw_error(hw_named("d", "  memory.size = 1e300 PiB\n")),
             Catch::Contains("hostile.hw:6:") && Catch::Contains("overflows a double once its unit is applied"));
  const fs::path d = fresh("figures"), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, hw_named("d", "  link.pcie.bandwidth = 1e-300 B/s\n"));
  check_refused(simulate(q(net) + " " + q(hw) + " --batch 8 --devices 2"), "link 'pcie'");
  check_refused(simulate(q(net) + " " + q(hw) + " --batch 8 --devices 2 --dataset-size 1000000"), "link 'pcie'");
  write(hw, hw_named("d", "  link.pcie.bandwidth = 1e-300 B/s\n  link.pcie.latency = 1e300 s\n"));
  check_refused(simulate(q(net) + " " + q(hw) + " --batch 8 --devices 2"), "link 'pcie'");
  write(hw, hw_named("d", "  link.nvlink.bandwidth = 300 GB/s\n"));
  // CSV: the scaling table is a file of its own beside the layer table.
  const Run r = simulate(q(net) + " " + q(hw) + " --batch 8 --devices 2 --dataset-size 9223372036854775807 --format csv -o " +
                         q(d / "r.csv"));
  INFO(r.err);
  CHECK(r.status == 0);
  const std::string scaling = ridge::testing::slurp(d / "r-scaling.csv");
  CHECK_THAT(scaling, Catch::Contains(",1152921504606846976,"));   // ceil((2^63 - 1) / 8) steps per epoch
  CHECK_THAT(scaling + ridge::testing::slurp(d / "r.csv"), !Catch::Contains("nan") && !Catch::Contains("inf"));
  // Very large figures print with an exponent, not as 63 digits.
  CHECK(ridge::engine::render::si(1e60, "FLOP") == "1e+60 FLOP");
  CHECK(ridge::engine::render::si(1e-20, "s") == "1e-20 s");
  CHECK(ridge::engine::render::count(1e40).size() < 12);
}
