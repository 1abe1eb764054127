// calibrate --measurements writes what simulate --measured reads: the CSV goes through simulate's own
// reader (simulate::figures) and its points land on the roofline, one per measured layer pass.
#include "validate/measurements_csv.hpp"

#include "lang/builder.hpp"
#include "simulate/report_options.hpp"
#include "simulate/run_options.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ridge;

namespace {


std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("measurements are written as layer,pass,seconds and views are left out") {
  const std::string csv = validate::measurements_csv({{"stage1.conv1", ir::Pass::Forward, 0.0125},
                                                      {"stage1.conv1", ir::Pass::Backward, 2.5e-5},
                                                      {"flatten1", ir::Pass::Forward, 0.0}});
  CHECK(csv == "layer,pass,seconds\nstage1.conv1,forward,0.0125\nstage1.conv1,backward,2.5e-05\n");
  CHECK_THROWS_AS(validate::measurements_csv({{"a,b", ir::Pass::Forward, 1.0}}), std::invalid_argument);
  CHECK(validate::measurements_path("out/m.csv", "resnet18") == "out/m-resnet18.csv");
}

TEST_CASE("simulate --measured reads what calibrate --measurements writes") {
  lang::NetworkBuilder b("tiny", {3, 16, 16});
  auto x = b.relu(b.conv(b.input(), 8, 3, {.padding = 1}));
  const ir::Network net = b.finish(b.linear(b.flatten(x), 4));
  const ir::Device dev = lang::parse_device(
      "device \"cpu\" {\n kind = cpu\n peak.fp32 = 100 GFLOP/s source \"t\"\n memory.bandwidth = 20 GB/s source \"t\"\n}\n",
      "cpu.hw");
  const engine::Report report = engine::simulate(net, dev, {.batch = 2});

  std::vector<validate::MeasuredPass> passes;
  for (const engine::LayerRow& row : report.layers) {
    if (row.time_fwd.paleo_s > 0) passes.push_back({row.name, ir::Pass::Forward, row.time_fwd.paleo_s * 3});
    if (row.time_bwd.paleo_s > 0) passes.push_back({row.name, ir::Pass::Backward, row.time_bwd.paleo_s * 3});
  }
  REQUIRE(passes.size() >= 4);
  const auto dir = std::filesystem::temp_directory_path() / "ridge-measurements-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "m.csv") << validate::measurements_csv(passes);

  simulate::ReportOptions o;
  o.svg = (dir / "roofline.svg").string();
  o.measured = (dir / "m.csv").string();
  engine::Results results;
  results.reports.push_back(report);
  const simulate::Figures figures = simulate::figures(o, results, {dev}, simulate::load_measurements(o.measured));
  REQUIRE(figures.files.size() == 1);
  CHECK(figures.files.front().first == o.svg);
  const std::string& svg = figures.files.front().second;
  std::size_t plotted = 0;   // a pass with no FLOPs (relu backward can have some) has no point either way
  for (const auto& p : passes) plotted += count(svg, p.layer + " " + std::string(ir::pass_name(p.pass)) + " (measured)") > 0;
  CHECK(plotted >= 3);
  CHECK(count(svg, "(measured)") >= plotted);
  std::filesystem::remove_all(dir);
}
