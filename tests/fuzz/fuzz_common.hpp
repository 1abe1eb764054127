// Shared by the libFuzzer targets: run the whole front end and engine on one input, and treat every
// documented error (lang::Error, engine::SimulationError) as a correct answer. Anything else that
// escapes (another exception, a crash, a sanitizer report, a hang, runaway memory) is a bug, and so is
// a report carrying inf or NaN (docs/language.md, Limits: "no report ever shows inf or NaN"): it aborts, so
// the fuzzer keeps the input, as tests/reliability/fuzz_regressions_test.cpp checks for kept inputs.
#pragma once

#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "engine/timing.hpp"
#include "lang/parse.hpp"
#include "tests/support/finite_report.hpp"

#include <cstdio>
#include <cstdlib>

#include <cstdint>
#include <string>

namespace ridge::fuzz {

// Simulates and renders, so the renderers see whatever numbers the engine lets through.
inline void simulate_and_render(const ir::Network& net, const ir::Device& dev, std::int64_t batch,
                                ir::Precision precision) {
  try {
    const engine::Report r = engine::simulate(net, dev, {.batch = batch, .precision = precision});
    if (!testing::all_finite(r)) {
      std::fprintf(stderr, "fuzz: a report with inf, NaN or a negative figure (batch %lld)\n", static_cast<long long>(batch));
      std::abort();
    }
    (void)engine::render::table(r);
    engine::Results results;
    results.reports.push_back(r);
    (void)engine::render::json(results);
    for (const engine::render::Table& t : engine::render::tables(results)) (void)engine::render::csv(t);
  } catch (const engine::SimulationError&) {
    // A documented refusal (e.g. no peak for this precision, counts beyond 2^53).
  }
}

}  // namespace ridge::fuzz
