// One step of a parallel strategy as a Chrome trace-event JSON (Perfetto, chrome://tracing): one track
// per pipeline stage with its forward and backward micro-batches as the engine schedules them
// (engine/parallel/schedule.hpp: 1F1B, or interleaved 1F1B with slices named F<micro-batch>.<chunk>;
// bubbles are the gaps), and a track for the data-parallel communication and the update that end the
// step. Stage times are the plan's per-micro-batch t_f and t_b (tensor-parallel collectives and
// point-to-point transfers included). Timestamps are microseconds.
#pragma once

#include "engine/parallel/plan.hpp"
#include "engine/parallel/schedule.hpp"

#include <string>

namespace ridge::engine::render {

// The first strategy of `plan`, its slices as the engine scheduled them (engine::run with
// ParallelRun::schedule, or parallel::pipeline_schedule): this file computes no time of its own.
std::string pipeline_trace(const parallel::PlanReport& plan, const parallel::PipelineSchedule& schedule);

}  // namespace ridge::engine::render
