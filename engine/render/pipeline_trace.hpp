// One step of a parallel strategy as a Chrome trace-event JSON (Perfetto, chrome://tracing): one track
// per pipeline stage with its forward and backward micro-batches as the engine schedules them
// (engine/parallel/schedule.hpp: 1F1B, or interleaved 1F1B with slices named F<micro-batch>.<chunk>;
// bubbles are the gaps), and a track for the data-parallel communication and the update that end the
// step. Stage times are the plan's per-micro-batch t_f and t_b (tensor-parallel collectives and
// point-to-point transfers included). Timestamps are microseconds.
#pragma once

#include "engine/parallel/plan.hpp"

#include <string>

namespace ridge::engine::render {

// The first strategy of `plan`. Throws std::invalid_argument when it has more than 200,000
// slices (P x v x micro-batches x 2), which no trace viewer would open.
std::string pipeline_trace(const parallel::PlanReport& plan);

}  // namespace ridge::engine::render
