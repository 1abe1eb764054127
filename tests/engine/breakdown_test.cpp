// --depth and --top (engine/breakdown.hpp): block sums and rankings agree with the report's own totals,
// which the engine computes separately, layer by layer.
#include "engine/breakdown.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <set>

using namespace ridge;

namespace {

engine::Report resnet50() {
  const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/resnet50.net");
  const ir::Device dev = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  return engine::simulate(net, dev, {.batch = 8});
}

double sum(const std::vector<engine::BreakdownRow>& rows, double engine::BreakdownRow::*field) {
  return std::accumulate(rows.begin(), rows.end(), 0.0, [&](double s, const engine::BreakdownRow& r) { return s + r.*field; });
}

}  // namespace

TEST_CASE("blocks at every depth sum to the network's totals") {
  const engine::Report r = resnet50();
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  for (const int depth : {1, 2, 3}) {
    CAPTURE(depth);
    const auto blocks = engine::block_rows(r, depth);
    CHECK(close(sum(blocks, &engine::BreakdownRow::params), r.totals.params));
    CHECK(close(sum(blocks, &engine::BreakdownRow::macs), r.totals.macs));
    CHECK(close(sum(blocks, &engine::BreakdownRow::flops_fwd), r.totals.flops_fwd));
    CHECK(close(sum(blocks, &engine::BreakdownRow::time_fwd_s), r.totals.time_fwd_s));
    CHECK(close(sum(blocks, &engine::BreakdownRow::time_bwd_s), r.totals.time_bwd_s));
    CHECK(close(sum(blocks, &engine::BreakdownRow::time_train_s), r.totals.time_fwd_train_s + r.totals.time_bwd_s));
    std::size_t layers = 0;
    std::set<std::string> names;
    for (const auto& b : blocks) {
      layers += b.layers;
      names.insert(b.name);
    }
    CHECK(layers == r.layers.size() - 1);   // every layer but the input, once
    CHECK(names.size() == blocks.size());
  }
  // Depth 1: torchvision's ResNet-50 top-level modules, the four stages among them, in order.
  const auto stages = engine::block_rows(r, 1);
  std::vector<std::string> names;
  for (const auto& b : stages) names.push_back(b.name);
  const auto at = std::find(names.begin(), names.end(), "layer1");
  REQUIRE(at + 3 < names.end());
  CHECK(std::vector<std::string>(at, at + 4) == std::vector<std::string>{"layer1", "layer2", "layer3", "layer4"});
}

TEST_CASE("the top layers by time are the slowest, with shares of the whole") {
  const engine::Report r = resnet50();
  auto all = engine::layer_rows(r);
  engine::rank_by_time(all, engine::TimeOf::Inference, 0);
  REQUIRE(all.size() == r.layers.size() - 1);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].time_fwd_s >= all[i].time_fwd_s);
  CHECK(std::abs(all.back().cumulative - 1.0) < 1e-9);
  CHECK(std::abs(all.front().share - all.front().time_fwd_s / r.totals.time_fwd_s) < 1e-12);
  auto top = engine::layer_rows(r);
  engine::rank_by_time(top, engine::TimeOf::TrainingStep, 5);
  REQUIRE(top.size() == 5);
  double slowest = 0;
  for (const auto& l : r.layers) slowest = std::max(slowest, l.time_fwd_train.paleo_s + l.time_bwd.paleo_s);
  CHECK(top.front().time_train_s == slowest);
}
