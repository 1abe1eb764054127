// The PPP fit on synthetic layer passes generated from a known PPP and launch overhead: the fit must
// recover them, which is the whole claim of calibration.
#include "validate/fit.hpp"

#include "engine/timing.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace ridge;
using namespace ridge::validate;
using Catch::Matchers::WithinRel;

namespace {

struct Truth {
  ir::OpClass op_class;
  ir::Pass pass;
  double compute_ppp;
  double memory_ppp;
};

std::vector<FitSample> synthetic(const std::vector<Truth>& truth, double launch, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> scale(-6.0, -2.0);   // 1 us .. 10 ms per term
  std::uniform_real_distribution<double> jitter(1.0 - noise, 1.0 + noise);
  std::vector<FitSample> samples;
  for (const auto& t : truth)
    for (int i = 0; i < 40; ++i) {
      FitSample s{t.op_class, t.pass, std::pow(10.0, scale(rng)), std::pow(10.0, scale(rng)), 1.0 + i % 3, 0.0};
      s.measured = (s.compute_time / t.compute_ppp + s.memory_time / t.memory_ppp + launch * s.kernels) * jitter(rng);
      samples.push_back(s);
    }
  return samples;
}

}  // namespace

TEST_CASE("NNLS solves an unconstrained problem exactly and clamps a negative solution to zero") {
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  const Eigen::VectorXd x = nnls(a, a * Eigen::Vector2d(2.0, 3.0));
  CHECK_THAT(x[0], WithinRel(2.0, 1e-9));
  CHECK_THAT(x[1], WithinRel(3.0, 1e-9));
  // The unconstrained optimum of b = (-1, 1, 0) is (-1, 1)·(2/3...) with x0 < 0: NNLS holds x0 at 0.
  const Eigen::VectorXd y = nnls(a, Eigen::Vector3d(-1.0, 1.0, 0.0));
  CHECK(y[0] == 0.0);
  CHECK(y[1] > 0.0);
}

TEST_CASE("the fit recovers known PPP per class and pass and the launch overhead from exact data") {
  const std::vector<Truth> truth{{ir::OpClass::MatMul, ir::Pass::Forward, 0.7, 0.5},
                                 {ir::OpClass::MatMul, ir::Pass::Backward, 0.4, 0.6},
                                 {ir::OpClass::Elementwise, ir::Pass::Forward, 0.9, 0.3},
                                 {ir::OpClass::Normalization, ir::Pass::Backward, 0.2, 0.8}};
  const double launch = 8e-6;
  const FitResult fit = fit_ppp(synthetic(truth, launch, 0.0, 1));
  // Exact data: only floating-point error separates the fit from the truth.
  CHECK_THAT(fit.launch_overhead, WithinRel(launch, 1e-6));
  for (const auto& t : truth) {
    const GroupFit& g = fit.groups.at({t.op_class, t.pass});
    CHECK(g.samples == 40);
    CHECK_THAT(*g.compute_ppp, WithinRel(t.compute_ppp, 1e-6));
    CHECK_THAT(*g.memory_ppp, WithinRel(t.memory_ppp, 1e-6));
  }
}

TEST_CASE("with 5% multiplicative noise the fitted PPP stay within 10% of the truth") {
  const std::vector<Truth> truth{{ir::OpClass::MatMul, ir::Pass::Forward, 0.6, 0.5},
                                 {ir::OpClass::Pooling, ir::Pass::Forward, 0.5, 0.4}};
  const FitResult fit = fit_ppp(synthetic(truth, 5e-6, 0.05, 7));
  for (const auto& t : truth) {
    const GroupFit& g = fit.groups.at({t.op_class, t.pass});
    CHECK_THAT(*g.compute_ppp, WithinRel(t.compute_ppp, 0.10));
    CHECK_THAT(*g.memory_ppp, WithinRel(t.memory_ppp, 0.10));
  }
}

TEST_CASE("PPP never exceed 1: a layer faster than the peak allows fits at 100 %") {
  // Measured at half the time the peak permits: the best the model may say is PPP = 1.
  const std::vector<FitSample> s{{ir::OpClass::Elementwise, ir::Pass::Forward, 1e-3, 1e-3, 1, 1e-3},
                                 {ir::OpClass::Elementwise, ir::Pass::Forward, 2e-3, 1e-3, 1, 1.5e-3}};
  const FitResult fit = fit_ppp(s);
  const GroupFit& g = fit.groups.at({ir::OpClass::Elementwise, ir::Pass::Forward});
  CHECK(*g.compute_ppp == 1.0);
  CHECK(*g.memory_ppp == 1.0);
  CHECK(fit.launch_overhead == 0.0);
}

TEST_CASE("a group without FLOPs has no compute PPP to report") {
  const std::vector<FitSample> s{{ir::OpClass::DataMovement, ir::Pass::Forward, 0.0, 1e-3, 1, 2e-3},
                                 {ir::OpClass::DataMovement, ir::Pass::Forward, 0.0, 2e-3, 1, 4e-3}};
  const FitResult fit = fit_ppp(s, {.fit_launch_overhead = false});
  const GroupFit& g = fit.groups.at({ir::OpClass::DataMovement, ir::Pass::Forward});
  CHECK_FALSE(g.compute_ppp);
  CHECK_THAT(*g.memory_ppp, WithinRel(0.5, 1e-9));
  CHECK_THAT(predict(fit, s[1]), WithinRel(4e-3, 1e-9));
}

TEST_CASE("a non-positive measurement is refused") {
  CHECK_THROWS_AS(fit_ppp({{ir::OpClass::MatMul, ir::Pass::Forward, 1e-3, 1e-3, 1, 0.0}}), std::invalid_argument);
}

TEST_CASE("weighted by network share, the fit still recovers exact PPP") {
  const std::vector<Truth> truth{{ir::OpClass::MatMul, ir::Pass::Forward, 0.7, 0.5},
                                 {ir::OpClass::Elementwise, ir::Pass::Backward, 0.9, 0.3}};
  std::vector<FitSample> s = synthetic(truth, 4e-6, 0.0, 3);
  double total = 0.0;
  for (const auto& x : s) total += x.measured;
  for (auto& x : s) x.network_time = total;
  const FitResult fit = fit_ppp(s);
  CHECK_THAT(fit.launch_overhead, WithinRel(4e-6, 1e-6));
  for (const auto& t : truth) {
    CHECK_THAT(*fit.groups.at({t.op_class, t.pass}).compute_ppp, WithinRel(t.compute_ppp, 1e-6));
    CHECK_THAT(*fit.groups.at({t.op_class, t.pass}).memory_ppp, WithinRel(t.memory_ppp, 1e-6));
  }
}

TEST_CASE("one tiny fast layer does not outvote the slow layers that make up the network's time") {
  // LibTorch's CPU max pooling runs ~30x slower than its bytes allow, an adaptive average pool of a
  // 7x7 map at its roofline. Relative error lets the one tiny layer hold the PPP near 1 (a 30x
  // over-prediction of it would cost more than ten ~97 % under-predictions); weighted by network
  // share the fit follows the pools the time is spent in.
  std::vector<FitSample> s;
  for (int i = 0; i < 10; ++i) s.push_back({ir::OpClass::Pooling, ir::Pass::Forward, 0.0, 1e-3, 1, 30e-3});
  s.push_back({ir::OpClass::Pooling, ir::Pass::Forward, 0.0, 2e-5, 1, 2e-5});
  const auto memory_ppp = [](const FitResult& f) { return *f.groups.at({ir::OpClass::Pooling, ir::Pass::Forward}).memory_ppp; };
  CHECK(memory_ppp(fit_ppp(s, {.fit_launch_overhead = false})) > 0.5);
  double total = 0.0;
  for (const auto& x : s) total += x.measured;
  for (auto& x : s) x.network_time = total;
  CHECK_THAT(memory_ppp(fit_ppp(s, {.fit_launch_overhead = false})), WithinRel(1.0 / 30.0, 0.1));
}

TEST_CASE("fitted by size, the PPP follows the op's size where one PPP per class cannot") {
  // Matmul forward passes whose compute PPP grows with size, as small convolutions reach less of the
  // peak than large ones: 0.1 at 1 MFLOP, 0.4 at 100 MFLOP, 0.8 at 10 GFLOP (linear in log size,
  // read as the engine reads a .hw curve). Memory is 0.5 throughout. No launch overhead, and none
  // fitted: a per-kernel constant would absorb part of the small ops' slowness and blur the curve.
  const ir::SizeCurve truth{{{1e6, 0.1}, {1e8, 0.4}, {1e10, 0.8}}, ""};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> decade(6.0, 10.0);
  std::vector<FitSample> samples;
  for (int i = 0; i < 400; ++i) {
    FitSample s;
    s.op_class = ir::OpClass::MatMul;
    s.flops = std::pow(10.0, decade(rng));
    s.bytes = s.flops / 20.0;
    s.compute_time = s.flops / 1e12;
    s.memory_time = s.bytes / 1e11;
    s.kernels = 1;
    s.measured = s.compute_time / engine::fraction_at(truth, s.flops) + s.memory_time / 0.5;
    samples.push_back(s);
  }
  const auto worst_error = [&](const FitResult& fit) {
    double worst = 0.0;
    for (const auto& s : samples) worst = std::max(worst, relative_error(predict(fit, s), s.measured));
    return worst;
  };
  const FitResult flat = fit_ppp(samples, {.fit_launch_overhead = false});
  const FitResult by_size =
      fit_ppp(samples, {.fit_launch_overhead = false, .by_size = true, .band_decades = 0.5, .smoothing = 0.0});
  const GroupFit& g = by_size.groups.at({ir::OpClass::MatMul, ir::Pass::Forward});
  REQUIRE(g.compute_curve);
  CHECK(g.compute_curve->points.size() == 8);   // 4 decades in half-decade bands
  // A point per band, read between points as the engine reads it: within a fifth at the worst (the
  // smallest ops, below the first point's size, where the curve holds), where one PPP for all sizes
  // misses the small ops by 70 %.
  CHECK(worst_error(by_size) < 0.2);
  CHECK(worst_error(flat) > 3 * worst_error(by_size));
  for (std::size_t i = 1; i < g.compute_curve->points.size(); ++i)
    CHECK(g.compute_curve->points[i].fraction > g.compute_curve->points[i - 1].fraction);
  CHECK_THAT(engine::fraction_at(*g.compute_curve, 1e8), WithinRel(0.4, 0.1));
}

TEST_CASE("smoothing ties a band with few samples to its neighbours") {
  // Two well-sampled bands at PPP 0.5 and one band between them with a single sample measured 4x slow
  // (a noisy repeat): unsmoothed, that band follows its one sample; smoothed, it stays near 0.5.
  std::vector<FitSample> samples;
  const auto add = [&](double flops, double ppp) {
    FitSample s;
    s.flops = flops;
    s.compute_time = flops / 1e12;
    s.kernels = 1;
    s.measured = s.compute_time / ppp;
    samples.push_back(s);
  };
  for (int i = 0; i < 20; ++i) add(2e6 * (1 + i % 4), 0.5), add(2e8 * (1 + i % 4), 0.5);
  add(2e7, 0.125);
  const FitOptions options{.fit_launch_overhead = false, .by_size = true};
  const auto middle = [](const FitResult& f) { return f.groups.begin()->second.compute_curve->points.at(1).fraction; };
  FitOptions loose = options;
  loose.smoothing = 0.0;
  CHECK_THAT(middle(fit_ppp(samples, loose)), WithinRel(0.125, 1e-6));
  CHECK(middle(fit_ppp(samples, {.fit_launch_overhead = false, .by_size = true, .smoothing = 10.0})) > 0.4);
}

TEST_CASE("the fresh-memory term is taken out of a measurement before the PPP are fitted") {
  // calibrate at a batch whose outputs exceed the mmap threshold measures their fresh pages too; the
  // engine adds that term on its own, so the PPP must not absorb it.
  const std::vector<Truth> truth{{ir::OpClass::MatMul, ir::Pass::Forward, 0.7, 0.5}};
  std::vector<FitSample> s = synthetic(truth, 0.0, 0.0, 11);
  for (std::size_t i = 0; i < s.size(); i += 2) {
    s[i].fresh_time = 3 * s[i].memory_time;
    s[i].measured += s[i].fresh_time;
  }
  const FitResult fit = fit_ppp(s, {.fit_launch_overhead = false});
  const GroupFit& g = fit.groups.at({ir::OpClass::MatMul, ir::Pass::Forward});
  CHECK_THAT(*g.compute_ppp, WithinRel(0.7, 1e-6));
  CHECK_THAT(*g.memory_ppp, WithinRel(0.5, 1e-6));
  for (const auto& sample : s) CHECK_THAT(predict(fit, sample), WithinRel(sample.measured, 1e-6));
}
