// Inputs that declare the same name (issue #20, round two): kept apart, not merged or overwritten.
#include "tests/reliability/cli.hpp"

using namespace ridge::reliability::cli;

TEST_CASE("two networks that declare one name stay apart in the correlation") {
  const fs::path d = fresh("samename"), a = d / "a.net", b = d / "b.net", hw = d / "d.hw";
  write(a, kNet);
  write(b, "network n {\n  input x: [3, 32, 32]\n  return x -> conv(64, 3) -> relu -> flatten -> linear(10)\n}\n");
  write(hw, hw_named("d"));
  const Run r = simulate(q(a) + " " + q(b) + " " + q(hw));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("across 2 networks") && Catch::Contains("n (b.net)"));
}

TEST_CASE("two .hw files with one stem give two devices and two sets of figures") {
  const fs::path d = fresh("samestem");
  fs::create_directories(d / "x");
  fs::create_directories(d / "y");
  write(d / "n.net", kNet);
  write(d / "x" / "t4.hw", hw_named("first"));
  write(d / "y" / "t4.hw", hw_named("second"));
  fs::create_directories(d / "figs");
  const Run r = simulate(q(d / "n.net") + " " + q(d / "x" / "t4.hw") + " " + q(d / "y" / "t4.hw") + " --svg " +
                         q(d / "figs" / "f.svg"));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(d / "figs" / "f-roofline-t4-fp32-b1.svg"));
  CHECK(fs::exists(d / "figs" / "f-roofline-t4-2-fp32-b1.svg"));
}
