// The catalogue promise: every device of hw/ simulates every network of models/ in every precision the
// device declares (a datasheet or measured peak of that precision), inference and training step, with
// finite figures. A catalogue entry that fails as the README shows it is a broken promise.
#include "engine/simulate.hpp"
#include "lang/ir/device.hpp"
#include "lang/parse.hpp"
#include "tests/support/finite_report.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace ridge;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> files(const char* dir, const char* extension) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == extension) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::set<ir::Precision> declared(const ir::Device& d) {
  std::set<ir::Precision> out;
  for (const auto* peaks : {&d.vector_peak, &d.matrix_peak, &d.measured_peak})
    for (const auto& [p, f] : *peaks) out.insert(p);
  return out;
}

}  // namespace

TEST_CASE("every catalogue device simulates every zoo network in every precision it declares") {
  std::vector<ir::Network> zoo;
  for (const fs::path& p : files(RIDGE_MODELS_DIR, ".net")) zoo.push_back(lang::load_network(p.string()));
  const auto devices = files(RIDGE_HW_DIR, ".hw");
  REQUIRE(zoo.size() >= 40);
  REQUIRE(devices.size() >= 25);
  for (const fs::path& path : devices) {
    const ir::Device dev = lang::load_device(path.string());
    const auto precisions = declared(dev);
    CAPTURE(path.filename().string());
    CHECK(!precisions.empty());
    for (const ir::Precision p : precisions) {
      for (const ir::Network& net : zoo) {
        CAPTURE(std::string(ir::precision_name(p)), net.name);
        try {
          const engine::Report r = engine::simulate(net, dev, {.batch = 1, .precision = p});
          CHECK(testing::all_finite(r));
          CHECK(r.totals.time_fwd_s > 0);
          CHECK(r.totals.time_train_step_s > r.totals.time_fwd_s);
        } catch (const std::exception& e) {
          FAIL_CHECK(e.what());
        }
      }
    }
  }
}
