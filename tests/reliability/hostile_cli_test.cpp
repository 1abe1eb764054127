// The simulate program on hostile inputs, run as a user would: a non-zero exit (not a signal), a
// diagnostic on stderr, nothing on stdout, and with -o the previous file untouched and no temporary
// left behind.
#include "tests/reliability/hostile.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

using Run = ridge::testing::ProgramRun;
using ridge::testing::slurp;

fs::path dir() {
  const fs::path d = ridge::reliability::scratch() / "cli";
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary | std::ios::trunc) << text; }

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// Captured output goes beside dir(), not in it: tests count the entries of dir() to spot leftovers.
Run simulate(const std::string& args) {
  return ridge::testing::run_program(RIDGE_SIMULATE, args, dir().parent_path());
}

// A failed run: exited normally with status 1, said why on stderr, printed nothing on stdout.
void check_refused(const Run& r, const std::string& expected) {
  INFO(r.err);
  CHECK(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains(expected));
  CHECK(r.out.empty());
}

const std::string kNet = "network n {\n  input x: [3, 32, 32]\n  return x -> conv(16, 3) -> relu -> flatten -> linear(10)\n}\n";
const std::string kHw = "device \"d\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = 10 TFLOP/s\n  memory.bandwidth = 1 TB/s\n}\n";

// Files in the folder other than the ones a test made: a leftover temporary would show here.
std::size_t entries(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

}  // namespace

TEST_CASE("simulate refuses hostile network files with a diagnostic and exit status 1") {
  const fs::path d = dir(), hw = d / "ok.hw", net = d / "hostile.net";
  write(hw, kHw);
  write(net, "network n {\n  input x: [4]\n  v = " + ridge::reliability::repeat("(", 100000) + "1\n  return x\n}\n");
  check_refused(simulate(q(net) + " " + q(hw)), "nesting is deeper than 200");
  write(net, "block f(x) { return f(x) }\nnetwork n {\n  input x: [4]\n  return f(x)\n}\n");
  check_refused(simulate(q(net) + " " + q(hw)), "hostile.net:1:");
  write(net, std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  check_refused(simulate(q(net) + " " + q(hw)), "binary file");
  fs::resize_file(net, 100u * 1024 * 1024);
  check_refused(simulate(q(net) + " " + q(hw)), "limited to");
  fs::remove(net);
  check_refused(simulate(q(net) + " " + q(hw)), "cannot open file");
  check_refused(simulate(q(d) + " " + q(hw)), "is a directory");
}

TEST_CASE("simulate refuses hostile device files and batches with a diagnostic and exit status 1") {
  const fs::path d = dir(), net = d / "ok.net", hw = d / "hostile.hw";
  write(net, kNet);
  write(hw, "device \"d\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = nan TFLOP/s\n  memory.bandwidth = 1 TB/s\n}\n");
  check_refused(simulate(q(net) + " " + q(hw)), "hostile.hw:4:");
  write(hw, "device \"d\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = -10 TFLOP/s\n  memory.bandwidth = 0 TB/s\n}\n");
  check_refused(simulate(q(net) + " " + q(hw)), "hostile.hw:4:");
  write(hw, kHw);
  check_refused(simulate(q(net) + " " + q(hw) + " --batch 1099511627776"), "--batch");
  check_refused(simulate(q(net) + " " + q(hw) + " --batch 99999999999999999999999"), "--batch");
  check_refused(simulate(q(net) + " " + q(hw) + " --batch -1"), "--batch");
  check_refused(simulate(q(net) + " " + q(hw) + " --dtype fp17"), "fp17");
}

TEST_CASE("a failing simulate -o never clobbers the previous file and leaves no temporary") {
  const fs::path d = dir() / "atomic";
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path net = d / "n.net", hw = d / "d.hw", big = d / "big.net", target = d / "report.json";
  write(net, kNet);
  write(hw, kHw);
  // Valid per sample, refused by the engine at this batch: the failure comes after parsing, late.
  write(big, "network big {\n  input x: [16, 65536, 65536]\n  return x -> relu\n}\n");
  write(target, "previous");
  const std::size_t before = entries(d);
  check_refused(simulate(q(big) + " " + q(hw) + " --batch 16777216 --format json -o " + q(target)), "2^53");
  // About the network at that batch, not the device file (issue #41: the message began with d.hw).
  const Run counts = simulate(q(big) + " " + q(hw) + " --batch 16777216");
  CHECK_THAT(counts.err, Catch::Contains("network 'big' at batch 16777216, fp32"));
  CHECK_THAT(counts.err, !Catch::Contains("d.hw"));
  check_refused(simulate(q(net) + " " + q(d / "missing.hw") + " -o " + q(target)), "missing.hw");
  check_refused(simulate(q(net) + " " + q(hw) + " --set nope=1 -o " + q(target)), "nope");
  CHECK(slurp(target) == "previous");
  CHECK(entries(d) == before);

  // A successful run replaces it whole.
  const Run ok = simulate(q(net) + " " + q(hw) + " --format json -o " + q(target));
  INFO(ok.err);
  REQUIRE(ok.status == 0);
  CHECK(slurp(target).front() == '{');
  CHECK(entries(d) == before);
}

TEST_CASE("simulate -o into a missing folder or onto a folder fails cleanly") {
  const fs::path d = dir(), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, kHw);
  check_refused(simulate(q(net) + " " + q(hw) + " -o " + q(d / "no" / "such" / "folder" / "out.json")), "cannot write");
  const fs::path folder = d / "a-folder";
  fs::create_directories(folder);
  check_refused(simulate(q(net) + " " + q(hw) + " -o " + q(folder)), "cannot write");
  CHECK(fs::is_directory(folder));
  CHECK(fs::is_empty(folder));
}

TEST_CASE("a failing simulate --svg, --trace or --measured leaves the previous files untouched") {
  const fs::path d = dir() / "reports";
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path net = d / "n.net", hw = d / "d.hw", svg = d / "roofline.svg", trace = d / "trace.json";
  write(net, kNet);
  write(hw, kHw);
  write(svg, "previous svg");
  write(trace, "previous trace");
  const std::size_t before = entries(d);
  const std::string outputs = " --svg " + q(svg) + " --trace " + q(trace);
  check_refused(simulate(q(net) + " " + q(hw) + outputs + " --batch 0"), "--batch");
  check_refused(simulate(q(net) + " " + q(hw) + outputs + " --measured " + q(d / "missing.csv")), "missing.csv");
  // Endless input, a folder and impossible times as measurements: refused, not read into memory.
  check_refused(simulate(q(net) + " " + q(hw) + outputs + " --measured /dev/zero"), "/dev/zero");
  check_refused(simulate(q(net) + " " + q(hw) + outputs + " --measured " + q(d)), "is a directory");
  const fs::path csv = dir() / "measured.csv";
  for (const std::string seconds : {"nan", "inf", "-1", "0"}) {
    write(csv, "conv1,forward," + seconds + "\n");
    check_refused(simulate(q(net) + " " + q(hw) + outputs + " --measured " + q(csv)), "measured.csv:1:");
  }
  CHECK(slurp(svg) == "previous svg");
  CHECK(slurp(trace) == "previous trace");
  CHECK(entries(d) == before);
}

TEST_CASE("a --batch list too long to keep every report in memory is refused up front") {
  const fs::path d = dir(), net = d / "n.net", hw = d / "d.hw";
  write(net, kNet);
  write(hw, kHw);
  std::string batches = "1";
  for (int i = 2; i <= 5000; ++i) batches += "," + std::to_string(i);
  check_refused(simulate(q(net) + " " + q(hw) + " --batch " + batches), "simulations one run may ask for");
  // Under the cap, 2 devices x 2 dtypes x 1000 batches (4000 simulations) is fine.
  batches = "1";
  for (int i = 2; i <= 1000; ++i) batches += "," + std::to_string(i);
  const Run ok = simulate(q(net) + " " + q(hw) + " " + q(hw) + " --dtype fp32,fp16 --batch " + batches + " --format csv");
  INFO(ok.err);
  CHECK(ok.status == 0);
}
