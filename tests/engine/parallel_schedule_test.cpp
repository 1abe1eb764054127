// The pipeline schedule (engine/parallel/schedule.hpp) against the closed form the plan uses and the
// shapes of Narayanan et al. SC'21, Figure 4.
#include "engine/parallel/schedule.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

using namespace ridge::engine::parallel;
using Catch::Matchers::WithinRel;

TEST_CASE("the schedule's length is the plan's (m + (P - 1)/v)(t_f + t_b), with and without interleaving") {
  // t_b = 2 t_f, as a backward's two GEMMs per forward GEMM make it.
  for (const auto& [P, v, m] : {std::tuple{1, 1, 1}, std::tuple{1, 1, 8}, std::tuple{2, 1, 1}, std::tuple{4, 1, 3},
                                std::tuple{4, 1, 8}, std::tuple{8, 1, 64}, std::tuple{2, 2, 2}, std::tuple{4, 2, 8},
                                std::tuple{4, 4, 16}, std::tuple{8, 3, 8}}) {
    CAPTURE(P, v, m);
    const double tf = 1.0, tb = 2.0;
    const PipelineSchedule s = pipeline_schedule(P, v, m, tf, tb);
    CHECK_THAT(s.end_s, WithinRel((m + (P - 1.0) / v) * (tf + tb), 1e-12));
    CHECK(s.slices.size() == static_cast<std::size_t>(2 * P * v * m));
  }
}

TEST_CASE("every virtual stage runs each micro-batch's forward once, before its backward, after its input") {
  const int P = 4, v = 2;
  const std::int64_t m = 8;
  const PipelineSchedule s = pipeline_schedule(P, v, m, 1.0, 2.0);
  std::map<std::tuple<int, std::int64_t, bool>, const PipelineSlice*> at;   // (virtual stage, micro-batch, forward)
  for (const PipelineSlice& x : s.slices) {
    const auto key = std::tuple{x.chunk * P + x.device, x.micro_batch, x.forward};
    REQUIRE(at.count(key) == 0);
    at[key] = &x;
  }
  REQUIRE(at.size() == static_cast<std::size_t>(2 * P * v * m));
  const auto end = [](const PipelineSlice* x) { return x->start_s + x->duration_s; };
  for (int j = 0; j < P * v; ++j)
    for (std::int64_t b = 0; b < m; ++b) {
      CAPTURE(j, b);
      if (j > 0) CHECK(at[{j, b, true}]->start_s >= end(at[{j - 1, b, true}]) - 1e-12);
      CHECK(at[{j, b, false}]->start_s >= end(at[{j, b, true}]) - 1e-12);
      if (j < P * v - 1) CHECK(at[{j, b, false}]->start_s >= end(at[{j + 1, b, false}]) - 1e-12);
    }
  // No device runs two slices at once.
  for (int d = 0; d < P; ++d) {
    std::vector<const PipelineSlice*> mine;
    for (const PipelineSlice& x : s.slices)
      if (x.device == d) mine.push_back(&x);
    std::sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
    for (std::size_t i = 1; i < mine.size(); ++i) CHECK(mine[i]->start_s >= end(mine[i - 1]) - 1e-12);
  }
}

TEST_CASE("1F1B keeps at most P micro-batches in flight on the first stage (Figure 4, top)") {
  const int P = 4;
  const PipelineSchedule s = pipeline_schedule(P, 1, 8, 1.0, 2.0);
  int in_flight = 0, most = 0;
  for (const PipelineSlice& x : s.slices)
    if (x.device == 0) {
      in_flight += x.forward ? 1 : -1;
      most = std::max(most, in_flight);
    }
  CHECK(most == P);
}

TEST_CASE("schedules the trace cannot draw, or that interleaving cannot run, are refused") {
  CHECK_THROWS_WITH(pipeline_schedule(8, 1, 20'000, 1, 2), Catch::Contains("more slices than a trace viewer opens"));
  CHECK_THROWS_WITH(pipeline_schedule(4, 2, 6, 1, 2), Catch::Contains("multiple of the stages"));
  CHECK_THROWS(pipeline_schedule(0, 1, 1, 1, 2));
}
