// The simulate program, run as a user would. Output goes through files, not pipes, to keep it simple.
#include "engine/json_parse.hpp"
#include "support/run_program.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using Run = ridge::testing::ProgramRun;
using ridge::testing::slurp;

fs::path dir() {
  const fs::path d = fs::temp_directory_path() / ("ridge-cli-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

Run simulate(const std::string& args) { return ridge::testing::run_program(RIDGE_SIMULATE, args, dir()); }

std::string file(const std::string& folder, const std::string& name) { return folder + "/" + name; }

}  // namespace

TEST_CASE("simulate with a missing network file fails with a diagnostic") {
  const Run r = simulate("/nonexistent/model.net /nonexistent/device.hw");
  CHECK(r.status != 0);
  CHECK(r.status != -1);   // exited, did not crash
  CHECK(r.err.find("model.net") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("simulate rejects bad options with a message") {
  CHECK(simulate("a.net b.hw --batch 0").status != 0);
  const Run r = simulate("a.net b.hw --batch 1,x");
  CHECK(r.status != 0);
  CHECK(r.err.find("--batch") != std::string::npos);
  CHECK(simulate("a.net b.hw --dtype fp12").status != 0);
  CHECK(simulate("").status != 0);
}

TEST_CASE("simulate -o leaves the previous file untouched when it fails") {
  const fs::path target = dir() / "report.json";
  { std::ofstream(target) << "previous"; }
  const Run r = simulate("/nonexistent/model.net /nonexistent/device.hw -o '" + target.string() + "'");
  CHECK(r.status != 0);
  CHECK(slurp(target) == "previous");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir())) ++n;
  CHECK(n == 3);   // report.json, stdout, stderr: no temporary left
}

TEST_CASE("simulate runs VGG-19 on the A100 end to end") {
  const std::string net = file(RIDGE_MODELS_DIR, "vgg19.net");
  const std::string hw = file(RIDGE_HW_DIR, "a100-sxm4-40gb.hw");
  if (!fs::exists(net) || !fs::exists(hw)) {
    WARN("models/vgg19.net or hw/a100-sxm4-40gb.hw not there yet: skipped");
    return;
  }
  const Run table = simulate("'" + net + "' '" + hw + "' --batch 64");
  INFO(table.err);
  REQUIRE(table.status == 0);
  CHECK(table.out.find("ridge point") != std::string::npos);
  const fs::path target = dir() / "vgg19.json";
  const Run json = simulate("'" + net + "' '" + hw + "' --batch 64 --format json -o '" + target.string() + "'");
  REQUIRE(json.status == 0);
  const auto j = ridge::testing::parse_json(slurp(target));
  // torchvision VGG19_Weights.IMAGENET1K_V1: 143,667,240 parameters, 19.63 GFLOPS (MACs) per sample.
  CHECK(j["totals"]["params"].number == 143667240);
  CHECK(j["totals"]["macs"].number / 64 == Approx(19.63e9).epsilon(0.001));
  const Run cmp = simulate("'" + net + "' '" + hw + "' '" + hw + "' --batch 1,8 --format csv");
  REQUIRE(cmp.status == 0);
  CHECK(std::count(cmp.out.begin(), cmp.out.end(), '\n') == 5);
}
