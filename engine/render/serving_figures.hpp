// A deployment's run as pictures (simulate --serve with --trace or --svg), from the iterations the
// simulator recorded (engine/serving/serving.hpp: Served::timeline); nothing here computes a time.
//   serving_trace: Chrome trace-event JSON (Perfetto, chrome://tracing), one track per replica with
//     each iteration a slice ("prefill", "decode" or "chunked", its tokens and sequences in args) and
//     counters per replica for the KV cache in use and the sequences running and waiting.
//   serving_svg: the KV cache in use (% of capacity) and the sequences running, over time, one line
//     per replica (at most 12), each point the time-weighted mean over one of 600 bins of the makespan.
#pragma once

#include "engine/serving/deployment.hpp"

#include <string>

namespace ridge::engine::render {

std::string serving_trace(const serving::DeploymentRun& run);
std::string serving_svg(const serving::DeploymentRun& run);

}  // namespace ridge::engine::render
