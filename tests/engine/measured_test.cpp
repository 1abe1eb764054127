// --measured beside the predictions (engine/measured.hpp): pairing by layer name, errors, medians and
// the totals over the measured passes only, worked from the report's own layer times.
#include "engine/measured.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ridge;

TEST_CASE("measured times pair with layers by name, errors are (predicted - measured) / measured") {
  const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/vgg19.net");
  const ir::Device dev = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const engine::Report r = engine::simulate(net, dev, {.batch = 8});
  auto layer = [&](const std::string& name) {
    for (const auto& l : r.layers)
      if (l.name == name) return l;
    FAIL("no layer " << name);
    return r.layers.front();
  };
  const double p1 = layer("stage1.conv1").time_fwd.paleo_s, p2 = layer("stage1.conv2").time_fwd.paleo_s;
  const double p3 = layer("stage2.conv1").time_fwd.paleo_s, b1 = layer("stage1.conv1").time_bwd.paleo_s;
  // Measured: p1 twice as slow as predicted (-50 %), p2 exactly (0 %), p3 half (+100 %); one backward.
  const std::vector<engine::Measurement> m{{"stage1.conv1", ir::Pass::Forward, 2 * p1},
                                           {"stage1.conv2", ir::Pass::Forward, p2},
                                           {"stage2.conv1", ir::Pass::Forward, p3 / 2},
                                           {"stage1.conv1", ir::Pass::Backward, b1 * 4},
                                           {"no.such.layer", ir::Pass::Forward, 1.0}};
  const engine::MeasuredComparison c = engine::compare_measured(r, m);
  CHECK(c.rows.size() == r.layers.size() - 1);
  CHECK(c.matched_fwd == 3);
  CHECK(c.matched_bwd == 1);
  CHECK(c.unknown == std::vector<std::string>{"no.such.layer"});
  CHECK(c.rows.front().error_fwd().value() == Approx(-0.5));
  REQUIRE(c.median_abs_error_fwd);
  CHECK(*c.median_abs_error_fwd == Approx(0.5));      // |-50 %|, 0 %, +100 %: the middle one
  CHECK(*c.median_abs_error_bwd == Approx(0.75));     // predicted a quarter of measured
  CHECK(c.predicted_fwd_s == Approx(p1 + p2 + p3));   // only the measured passes
  CHECK(c.measured_fwd_s == Approx(2 * p1 + p2 + p3 / 2));
  const std::string t = engine::render::table(r, c, engine::render::PassView::Train);
  CHECK_THAT(t, Catch::Contains("Measured fwd") && Catch::Contains("-50.0 %") && Catch::Contains("+100.0 %") &&
                    Catch::Contains("3 of ") && Catch::Contains("not in network  no.such.layer"));
}
