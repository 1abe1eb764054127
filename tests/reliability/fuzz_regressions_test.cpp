// Inputs the fuzz targets (tests/fuzz) found crashing, hanging or running memory away, kept so they
// stay fixed. Files under inputs/ (net/ and hw/) are run the way the fuzz targets run them; each
// must end in a diagnostic or a report, within the fuzzers' own 5-second budget.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using namespace ridge;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const ir::Network& tiny() {
  static const ir::Network n = lang::parse_network(
      "network tiny(classes = 10) {\n  input x: [3, 32, 32]\n  x = x -> conv(16, 3, pad: 1) -> batchnorm -> relu -> maxpool(2)\n"
      "  return x -> flatten -> linear(classes)\n}\n",
      "tiny.net");
  return n;
}

// What the fuzz targets do with one input; returns a short description of the outcome.
std::string run_net(const std::string& text) {
  try {
    const ir::Network net = lang::parse_network(text, "fuzz.net");
    const ir::Device dev = reliability::test_device();
    for (const auto& [batch, p] : {std::pair{std::int64_t{1}, ir::Precision::FP32}, std::pair{std::int64_t{256}, ir::Precision::FP16},
                                   std::pair{engine::kMaxBatch, ir::Precision::INT8}}) {
      try {
        const engine::Report r = engine::simulate(net, dev, {.batch = batch, .precision = p});
        CHECK(reliability::all_finite(r));
        (void)engine::render::table(r);
      } catch (const engine::SimulationError&) {
      }
    }
    return "report";
  } catch (const lang::Error& e) {
    return e.what();
  }
}

std::string run_hw(const std::string& text) {
  try {
    const ir::Device dev = lang::parse_device(text, "fuzz.hw");
    for (const ir::Precision p : {ir::Precision::FP64, ir::Precision::FP32, ir::Precision::TF32, ir::Precision::FP16,
                                  ir::Precision::BF16, ir::Precision::INT8}) {
      try {
        const engine::Report r = engine::simulate(tiny(), dev, {.batch = 64, .precision = p});
        CHECK(reliability::all_finite(r));
        (void)engine::render::table(r);
      } catch (const engine::SimulationError&) {
      }
    }
    return "report";
  } catch (const lang::Error& e) {
    return e.what();
  }
}

}  // namespace

// inputs/expected.txt: one line per input, PATH<TAB>OUTCOME, OUTCOME "report" or the start of the
// diagnostic the input must end in.
static std::map<std::string, std::string> expected_outcomes(const fs::path& root) {
  std::map<std::string, std::string> out;
  std::istringstream lines(slurp(root / "expected.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    out[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return out;
}

TEST_CASE("every input the fuzzers found ends in its recorded diagnostic or a report, quickly") {
  const fs::path root = RIDGE_RELIABILITY_INPUTS;
  const auto expected = expected_outcomes(root);
  // An emptied or missing inputs/ folder must fail, not pass with nothing checked.
  REQUIRE(expected.size() >= 1);
  std::size_t n = 0;
  for (const char* kind : {"net", "hw"}) {
    if (!fs::is_directory(root / kind)) continue;
    for (const auto& entry : fs::directory_iterator(root / kind)) {
      const std::string key = std::string(kind) + "/" + entry.path().filename().string();
      CAPTURE(key);
      const auto want = expected.find(key);
      REQUIRE(want != expected.end());   // a new input needs its expected outcome recorded
      const std::string text = slurp(entry.path());
      std::string outcome;
      const double s = reliability::seconds([&] { outcome = std::string(kind) == "net" ? run_net(text) : run_hw(text); });
      if (want->second == "report")
        CHECK(outcome == "report");
      else
        CHECK_THAT(outcome, Catch::StartsWith(want->second));
      CHECK(s < 5.0);
      ++n;
    }
  }
  CHECK(n == expected.size());   // every recorded input is there
}
