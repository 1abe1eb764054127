// The spread of repeats calibrate reports: the median, the coefficient of variation (sample stddev over
// mean) and the 5 % line above which calibrate warns that the machine is noisy. Pure functions on
// fixed numbers: no timing here.
#include "validate/spread.hpp"

#include <catch2/catch.hpp>

using namespace ridge::validate;
using Catch::Matchers::WithinRel;

TEST_CASE("the median of a sample") {
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 2.0, 3.0}) == 2.5);
  CHECK(median({}) == 0.0);
}

TEST_CASE("the coefficient of variation is the sample standard deviation over the mean") {
  // mean 10, squared deviations 1 + 1 = 2, sample variance 2 / (3 - 1) = 1: CV 0.1.
  REQUIRE(coefficient_of_variation({9.0, 10.0, 11.0}));
  CHECK_THAT(*coefficient_of_variation({9.0, 10.0, 11.0}), WithinRel(0.1, 1e-12));
  // Scale-free: the same runs in milliseconds or seconds spread alike.
  CHECK_THAT(*coefficient_of_variation({0.009, 0.010, 0.011}), WithinRel(0.1, 1e-12));
  CHECK(*coefficient_of_variation({2.0, 2.0, 2.0, 2.0}) == 0.0);
}

TEST_CASE("one run, or no time at all, has no coefficient of variation") {
  CHECK_FALSE(coefficient_of_variation({}));
  CHECK_FALSE(coefficient_of_variation({1.5}));
  CHECK_FALSE(coefficient_of_variation({0.0, 0.0}));
}

TEST_CASE("calibrate warns above a 5 % coefficient of variation, naming the network and the CV") {
  CHECK(kNoisyCv == 0.05);
  CHECK_FALSE(noise_warning("resnet18", "end-to-end inference", 0.01));
  CHECK_FALSE(noise_warning("resnet18", "end-to-end inference", 0.05));   // at the line: quiet enough
  const auto w = noise_warning("resnet18", "end-to-end inference", 0.073);
  REQUIRE(w);
  CHECK_THAT(*w, Catch::Matchers::StartsWith("resnet18: end-to-end inference"));
  CHECK_THAT(*w, Catch::Matchers::Contains("7.30 %"));
  CHECK_THAT(*w, Catch::Matchers::Contains("close other work or raise --repeats"));
}

TEST_CASE("layer-pass spreads summarise to the median and the worst, skipping single runs") {
  const SpreadSummary s = summarise({{"conv1 fwd", 0.02}, {"fc bwd", std::nullopt}, {"relu fwd", 0.30}, {"conv2 bwd", 0.04}});
  CHECK(s.passes == 3);
  CHECK(s.median_cv == 0.04);
  CHECK(s.worst_cv == 0.30);
  CHECK(s.worst == "relu fwd");
  CHECK(summarise({{"fc bwd", std::nullopt}}).passes == 0);
}
