// The data-parallel model's formulas (DESIGN.md "Timing models"), against hand numbers.
#include "tests/render/fixtures.hpp"

#include "engine/render/scaling_table.hpp"
#include "engine/scaling.hpp"
#include "engine/timing.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {
// Sums and products of a few doubles: equal but for rounding.
constexpr double kRel = 1e-12;

engine::Report synthetic(std::int64_t batch, double fwd, double bwd, double update) {
  engine::Report r;
  r.batch = batch;
  r.totals.time_fwd_train_s = fwd;
  r.totals.time_bwd_s = bwd;
  r.totals.time_update_s = update;
  return r;
}
}  // namespace

TEST_CASE("a ring all-reduce takes 2(N-1)/N S/bw plus 2(N-1) latencies") {
  // 100 MB over 4 devices at 100 GB/s, 2 us per step: 2*3/4 * 1 ms + 6 * 2 us = 1.512 ms.
  CHECK_THAT(engine::ring_allreduce_seconds(100e6, 4, 100e9, 2e-6), WithinRel(1.512e-3, kRel));
  // Two devices: each sends half twice: S/bw + 2 alpha.
  CHECK_THAT(engine::ring_allreduce_seconds(100e6, 2, 100e9, 2e-6), WithinRel(1e-3 + 4e-6, kRel));
  CHECK(engine::ring_allreduce_seconds(100e6, 1, 100e9, 2e-6) == 0.0);
}

TEST_CASE("one device has no communication and an efficiency of 1") {
  engine::ScalingOptions o;
  o.batch = 64;
  o.devices = {1};
  const auto s = engine::scale(testing::network("resnet50"), testing::device("a100-sxm4-40gb"), o);
  REQUIRE(s.points.size() == 1);
  const auto& p = s.points.front();
  CHECK(p.allreduce_s == 0.0);
  CHECK(p.exposed_comm_s == 0.0);
  CHECK(p.comm_share == 0.0);
  CHECK(p.efficiency == 1.0);
  CHECK(p.speedup == 1.0);
  CHECK_THAT(p.step_s, WithinRel(p.per_device.totals.time_train_step_s, kRel));
  CHECK_THAT(p.throughput, WithinRel(p.per_device.totals.throughput_train, kRel));
}

TEST_CASE("the step adds the all-reduce after backward, or hides it under backward with overlap") {
  const engine::LinkUsed link{"nvlink", 100e9, 0.0, false};
  // 3 ms forward, 6 ms backward, 1 ms update; 200 MB of gradients over 2 devices: 2 ms all-reduce.
  const auto r = synthetic(32, 3e-3, 6e-3, 1e-3);
  const auto plain = engine::combine(r, 2, 64, 200e6, link, false, std::nullopt);
  CHECK_THAT(plain.allreduce_s, WithinRel(2e-3, kRel));
  CHECK_THAT(plain.step_s, WithinRel(12e-3, kRel));
  CHECK_THAT(plain.comm_share, WithinRel(2.0 / 12.0, kRel));
  CHECK_THAT(plain.throughput, WithinRel(64 / 12e-3, kRel));
  const auto hidden = engine::combine(r, 2, 64, 200e6, link, true, std::nullopt);
  CHECK_THAT(hidden.step_s, WithinRel(10e-3, kRel));
  CHECK(hidden.exposed_comm_s == 0.0);
  // 1 GB: a 10 ms all-reduce overlapped with 6 ms of backward exposes 4 ms.
  const auto partly = engine::combine(r, 2, 64, 1e9, link, true, std::nullopt);
  CHECK_THAT(partly.exposed_comm_s, WithinRel(4e-3, kRel));
  CHECK_THAT(partly.step_s, WithinRel(14e-3, kRel));
}

TEST_CASE("an epoch is ceil(dataset / global batch) steps") {
  const engine::LinkUsed link{"pcie", 10e9, 0.0, false};
  const auto p = engine::combine(synthetic(256, 1e-3, 2e-3, 1e-3), 1, 256, 0, link, false, 1'281'167);
  REQUIRE(p.steps_per_epoch);
  CHECK(*p.steps_per_epoch == 5005);   // ImageNet-1k train: 1,281,167 images / 256 = 5004.6
  CHECK_THAT(*p.epoch_s, WithinRel(5005 * 4e-3, kRel));
}

TEST_CASE("strong scaling splits the batch, weak scaling keeps it per device") {
  const auto& net = testing::network("resnet50");
  const auto& dev = testing::device("a100-sxm4-40gb");
  engine::ScalingOptions o;
  o.batch = 256;
  o.devices = engine::device_counts_up_to(8);
  CHECK(o.devices == std::vector<int>{1, 2, 4, 8});
  const auto strong = engine::scale(net, dev, o);
  o.scaling = engine::Scaling::Weak;
  const auto weak = engine::scale(net, dev, o);
  REQUIRE(strong.points.size() == 4);
  REQUIRE(weak.points.size() == 4);
  // ResNet-50: 25,557,032 parameters (torchvision), fp32 gradients of 4 B each.
  CHECK(strong.gradient_bytes == 25'557'032.0 * 4);
  CHECK(strong.link.name == "nvlink");
  for (std::size_t i = 0; i < 4; ++i) {
    const int n = strong.points[i].devices;
    CHECK(strong.points[i].global_batch == 256);
    CHECK(strong.points[i].per_device_batch == 256 / n);
    CHECK(weak.points[i].global_batch == 256 * n);
    CHECK(weak.points[i].per_device_batch == 256);
    // Same gradients, same link: the same all-reduce either way.
    CHECK(strong.points[i].allreduce_s == weak.points[i].allreduce_s);
    const double ar = engine::ring_allreduce_seconds(strong.gradient_bytes, n, 300e9, 2e-6);
    CHECK_THAT(strong.points[i].allreduce_s + 1.0, WithinRel(ar + 1.0, kRel));
    // Weak scaling: the same compute per device plus communication, so efficiency = step(1)/step(N) <= 1.
    CHECK_THAT(weak.points[i].efficiency, WithinRel(weak.points[0].step_s / weak.points[i].step_s, kRel));
    CHECK(weak.points[i].efficiency <= 1.0);
    CHECK_THAT(strong.points[i].efficiency,
               WithinRel(strong.points[i].throughput / (n * strong.points[0].throughput), kRel));
  }
}

TEST_CASE("links come from the .hw: a missing one is an error, a missing latency a stated default") {
  const auto& a100 = testing::device("a100-sxm4-40gb");
  const auto nv = engine::choose_link(a100, "");
  CHECK(nv.name == "nvlink");
  CHECK(nv.bandwidth == 300e9);   // A100 datasheet: NVLink3 600 GB/s total, 300 each way
  CHECK(nv.latency_s == 2e-6);
  CHECK_FALSE(nv.latency_default);
  CHECK(engine::choose_link(a100, "pcie").bandwidth == 31.5e9);
  CHECK_THROWS_AS(engine::choose_link(a100, "infiniband"), engine::SimulationError);
  const auto h100 = engine::choose_link(testing::device("h100-sxm5"), "nvlink");
  CHECK(h100.latency_default);
  CHECK(h100.latency_s == engine::default_link_latency("nvlink"));
  engine::ScalingOptions o;
  o.batch = 4;
  o.devices = {8};
  CHECK_THROWS_AS(engine::scale(testing::network("resnet18"), a100, o), engine::SimulationError);   // 4 over 8
}

TEST_CASE("the scaling table says which rows fit in memory, and why a row that does not still has a speedup") {
  // Issue #41: speedups were printed for rows whose per-device batch does not fit, with no fit column.
  // ResNet-50 at a global batch of 2048 on 40 GiB A100s: the per-device batch halves with each doubling,
  // so the rows that fit are exactly those whose one-device report says so.
  engine::ScalingOptions o;
  o.batch = 2048;
  o.devices = engine::device_counts_up_to(8);
  const auto s = engine::scale(testing::network("resnet50"), testing::device("a100-sxm4-40gb"), o);
  const std::string text = engine::render::table(s);
  bool some_unfit = false, some_fit = false;
  for (const auto& p : s.points) {
    REQUIRE(p.per_device.totals.fits_train.has_value());
    (*p.per_device.totals.fits_train ? some_fit : some_unfit) = true;
  }
  REQUIRE(some_unfit);   // one device holds no batch of 2048
  REQUIRE(some_fit);     // eight hold 256 each
  CHECK_THAT(text, Catch::Contains(" fits") && Catch::Contains("NO") && Catch::Contains("yes"));
  CHECK_THAT(text, Catch::Contains("rows marked NO"));
  std::size_t rows_no = 0, pos = 0;
  while ((pos = text.find("    NO\n", pos)) != std::string::npos) ++rows_no, ++pos;
  std::size_t expected = 0;
  for (const auto& p : s.points) expected += *p.per_device.totals.fits_train ? 0 : 1;
  CHECK(rows_no == expected);
}
