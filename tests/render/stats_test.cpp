// Spearman's rank correlation, ties included, against hand-computed figures.
#include "tests/render/fixtures.hpp"

#include "engine/stats.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

TEST_CASE("tied values share the mean of the ranks they span") {
  CHECK(engine::ranks({10, 20, 20, 30}) == std::vector<double>{1, 2.5, 2.5, 4});
  CHECK(engine::ranks({3, 1, 2}) == std::vector<double>{3, 1, 2});
  CHECK(engine::ranks({5, 5, 5}) == std::vector<double>{2, 2, 2});
}

TEST_CASE("Spearman's rho with ties matches the hand computation") {
  // x ranks [1, 2.5, 2.5, 4, 5], y ranks [2, 1, 3.5, 3.5, 5]; deviations from the mean rank 3:
  // dx [-2, -.5, -.5, 1, 2], dy [-1, -2, .5, .5, 2]; Σdxdy = 7.25, Σdx² = Σdy² = 9.5; rho = 7.25/9.5.
  const auto rho = engine::spearman({1, 2, 2, 3, 4}, {2, 1, 3, 3, 5});
  REQUIRE(rho);
  CHECK_THAT(*rho, WithinRel(7.25 / 9.5, 1e-12));
}

TEST_CASE("Spearman's rho is 1 for any increasing relation and -1 for a decreasing one") {
  CHECK(*engine::spearman({1, 2, 3, 4}, {1, 4, 9, 1000}) == Approx(1.0));
  CHECK(*engine::spearman({1, 2, 3, 4}, {8, 4, 2, 1}) == Approx(-1.0));
}

TEST_CASE("Spearman's rho is absent for a constant variable, one sample, or mismatched sizes") {
  CHECK_FALSE(engine::spearman({1, 1, 1}, {1, 2, 3}));
  CHECK_FALSE(engine::spearman({1}, {2}));
  CHECK_FALSE(engine::spearman({1, 2}, {1, 2, 3}));
}

TEST_CASE("the correlation table ranks FLOPs, parameters and latency across networks") {
  std::vector<engine::Report> reports;
  for (const char* n : {"alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2"})
    reports.push_back(testing::report(n, "a100-sxm4-40gb", 1, ir::Precision::FP32));
  const auto c = engine::rank_correlation(reports);
  REQUIRE(c.networks.size() == 5);
  REQUIRE(c.variables.size() == 3);
  CHECK(c.variables[2] == "latency a100-sxm4-40gb fp32 b1");
  for (std::size_t i = 0; i < 3; ++i) CHECK(*c.rho[i][i] == Approx(1.0));
  CHECK(*c.rho[0][1] == Approx(*c.rho[1][0]));
  // Torchvision's figures rank FLOPs mobilenet_v2 < alexnet < resnet18 < resnet50 < vgg16 and
  // parameters mobilenet_v2 < resnet18 < resnet50 < alexnet < vgg16. Rank differences in the order
  // alexnet, vgg16, resnet18, resnet50, mobilenet_v2: -2, 0, 1, 1, 0; Σd² = 6, no ties, so
  // rho = 1 - 6·6 / (5·(25 - 1)) = 0.7.
  CHECK_THAT(*c.rho[0][1], WithinRel(0.7, 1e-12));
}
