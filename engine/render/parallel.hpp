// Renderers of a parallel plan (engine/parallel/plan.hpp): one row per strategy, and for a single
// strategy the parts of its step, its memory and each collective. They compute nothing but unit
// conversions and nccl-tests' bus bandwidth of the collectives the plan timed.
#pragma once

#include "engine/parallel/plan.hpp"

#include <string>

namespace ridge::engine::render {

std::string table(const parallel::PlanReport& plan);
std::string csv(const parallel::PlanReport& plan);
std::string json(const parallel::PlanReport& plan);

}  // namespace ridge::engine::render
