// One simulated training step as a Chrome trace-event JSON (opens in Perfetto and chrome://tracing):
// a slice per layer for the training-mode forward, the backward (reverse order) and the optimizer
// update, and with several devices the ring all-reduce of the gradients on its own track. Each
// slice's args carry its FLOPs, bytes, bound and times. Slices are the PALEO times, laid end to end
// on one stream (the model runs kernels one after another). Timestamps are microseconds.
#pragma once

#include "engine/report.hpp"
#include "engine/scaling.hpp"

#include <string>

namespace ridge::engine::render {

// One device alone.
std::string trace(const Report& report);
// One rank of `point.devices` in data-parallel training: point.per_device's step plus the all-reduce
// over the scaling report's link, after or (overlap) during backward, as scaling.hpp models it.
std::string trace(const ScalingReport& scaling, const ScalingPoint& point);

}  // namespace ridge::engine::render
