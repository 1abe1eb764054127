// Text renderers for the data-parallel scaling report and the rank-correlation table (their CSV and
// JSON rows are schema.hpp's). Overloads beside render.hpp's; they format only.
#pragma once

#include "engine/scaling.hpp"
#include "engine/stats.hpp"

#include <string>

namespace ridge::engine::render {

// One row per device count: per-device batch, compute, all-reduce, step, throughput, speedup,
// efficiency, communication share, epoch time (with a dataset size); then the link and the notes.
std::string table(const ScalingReport& scaling);

// The Spearman matrix between FLOPs, parameters and latencies, then the values it ranks.
std::string table(const RankCorrelation& correlation);

}  // namespace ridge::engine::render
