// Outputs that destroyed data (issue #20, round two): an output naming an input or another output,
// partial outputs left by a failed run, `-` written as a file, a valid long name refused.
#include "tests/reliability/cli.hpp"

using namespace ridge::reliability::cli;

TEST_CASE("no output may be an input or another output, however it is spelt") {
  const fs::path d = fresh("identity"), net = d / "self.net", hw = d / "d.hw", csv = d / "m.csv";
  write(net, kNet);
  write(hw, hw_named("d"));
  write(csv, "conv1,forward,1e-3\n");
  fs::create_hard_link(net, d / "hard.net");
  fs::create_symlink(hw, d / "soft.hw");
  const std::string run = q(net) + " " + q(hw);
  check_refused(simulate(run + " -o " + q(net)), "same file as the network");
  check_refused(simulate(run + " -o " + q(d / "." / "self.net")), "same file as the network");
  check_refused(simulate(run + " -o " + q(d / "hard.net")), "same file as the network");
  check_refused(simulate(run + " --svg " + q(d / "soft.hw")), "same file as the device file");
  check_refused(simulate(run + " --trace " + q(hw)), "same file as the device file");
  check_refused(simulate(run + " --svg " + q(d / "r.svg") + " --measured " + q(csv) + " --trace " + q(csv)), "--measured file");
  check_refused(simulate(run + " --svg " + q(d / "x.out") + " --trace " + q(d / "." / "x.out")), "same file as the --svg");
  check_refused(simulate(run + " -o " + q(d / "x.out") + " --svg " + q(d / "x.out")), "same file as the -o");
  // A figure named from the --svg stem is an output too.
  write(d / "f-roofline-d-fp32-b2.svg", "conv1,forward,1e-3\n");
  check_refused(simulate(run + " --batch 1,2 --svg " + q(d / "f.svg") + " --measured " + q(d / "f-roofline-d-fp32-b2.svg")),
                "same file as the --measured file");
  CHECK(slurp(d / "f-roofline-d-fp32-b2.svg") == "conv1,forward,1e-3\n");
  fs::remove(d / "f-roofline-d-fp32-b2.svg");
  CHECK(slurp(net) == kNet);
  CHECK(slurp(hw) == hw_named("d"));
  CHECK(entries(d) == 5);
}

TEST_CASE("a run that fails at its last output leaves none of its outputs and no temporary") {
  const fs::path d = fresh("partial"), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, hw_named("d"));
  // The SVG and the report could be written; the trace cannot (no such folder): none is.
  check_refused(simulate(q(net) + " " + q(hw) + " -o " + q(d / "report.txt") + " --svg " + q(d / "r.svg") +
                         " --trace " + q(d / "missing" / "t.json")),
                "cannot write");
  CHECK(entries(d) == 2);
  // And a run that succeeds writes them all.
  const Run ok = simulate(q(net) + " " + q(hw) + " -o " + q(d / "report.txt") + " --svg " + q(d / "r.svg") + " --trace " +
                          q(d / "t.json"));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(entries(d) == 5);
}

TEST_CASE("'-' is standard output where it can be, and never a file named '-'") {
  const fs::path d = fresh("dash"), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, hw_named("d"));
  const std::string run = "cd " + q(d) + " && '" RIDGE_SIMULATE "' n.net d.hw";
  const fs::path capture = ridge::reliability::scratch() / "outputs-capture";
  // With -o taking the report, --svg - is the figure on standard output.
  Run r = ridge::testing::run_program("sh", "-c \"" + run + " -o report.txt --svg -\"", capture);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("<svg"));
  // Standard output already carries the report: refused, no file named '-'.
  r = ridge::testing::run_program("sh", "-c \"" + run + " --svg -\"", capture);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("standard output"));
  r = ridge::testing::run_program("sh", "-c \"" + run + " --batch 1,2 -o report.txt --svg -\"", capture);
  CHECK(r.status == 1);
  CHECK_FALSE(fs::exists(d / "-"));
  CHECK_FALSE(fs::exists(d / "--throughput-vs-batch.svg"));
}

TEST_CASE("a valid 250-byte output name is written: its temporary's name stays within NAME_MAX") {
  const fs::path d = fresh("long"), net = d / "n.net", hw = d / "d.hw", out = d / (std::string(246, 'o') + ".txt");
  write(net, kNet);
  write(hw, hw_named("d"));
  const Run r = simulate(q(net) + " " + q(hw) + " -o " + q(out));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(out));
  CHECK(entries(d) == 3);
}
