// Renderers: results in, bytes out. They format; they compute nothing the Report
// does not hold (beyond unit scaling), so every number a renderer shows is the engine's.
#pragma once

#include "engine/breakdown.hpp"
#include "engine/comparison.hpp"
#include "engine/measured.hpp"
#include "engine/generation.hpp"
#include "engine/report.hpp"
#include "engine/run.hpp"
#include "engine/render/schema.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine::render {

// Which pass a table dwells on: forward shows the inference columns only; backward the backward
// ones; train shows both and the training step. CSV and JSON always carry everything.
enum class PassView { Forward, Backward, Train };

// A torchinfo-like table: one row per layer, then totals, throughput, memory and fit, the device's
// peaks, bandwidth and ridge point, and the report's notes (counting convention, peaks used).
// The default fits 120 columns (the pass's FLOPs, bound and PALEO time); `wide` adds bytes, arithmetic
// intensity and roofline time for every pass shown.
std::string table(const Report& report, PassView view = PassView::Train, bool wide = false);
// The same with the rows of engine/breakdown.hpp (blocks at a depth, or layers ranked by time with
// their share of it: `ranked`) in place of the per-layer rows.
std::string table(const Report& report, const std::vector<BreakdownRow>& rows, PassView view, bool ranked);
// Measured layer times beside the predictions, each layer pass's error, and the totals over the
// passes measured (simulate --measured CSV).
std::string table(const Report& report, const MeasuredComparison& measured, PassView view);

// Rows device x batch: time infer/train, throughput, memory, fit.
std::string table(const Comparison& comparison, PassView view = PassView::Train);

// The inference phases of a decoder model: prefill, per-token decode, latency, KV cache, memory.
std::string table(const Generation& generation);
std::string table(const serving::DeploymentRun& run);   // --serve (engine/render/serving.cpp)
// --serve --search: the candidates ranked (runs, best first), the refusals, then the best in full.
std::string table(const serving::SearchResult& search, const std::vector<serving::DeploymentRun>& runs);

// One layer's derivation (simulate --explain): counts, peak, each GEMM's kernel plan or PALEO's terms.
std::string explain(const LayerExplanation& explanation);

// The one JSON document of a run, whatever was asked (engine/render/json.cpp, schema.hpp): every table
// of the run, the files the run wrote, and a parallel plan's own JSON where there is one.
std::string json(const Results& results, const std::vector<std::string>& files = {});
// One table of the schema as CSV: one tidy table per file.
std::string csv(const Table& table);

}  // namespace ridge::engine::render
