// simulate's figures and measured times: roofline and sweep plots (--svg), the timeline (--trace) and
// measured layer times (--measured), and what turns them into files once the engine has run (figures).
#pragma once

#include "engine/measured.hpp"
#include "engine/run.hpp"

#include "lang/ir/device.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ridge::simulate {

struct ReportOptions {
  std::string svg;              // roofline (one report) or the stem of the sweep figures
  std::string trace;            // Chrome trace-event JSON
  std::string measured;         // CSV: layer,pass,seconds
};


// Moves every path ending in ".net" or ".onnx", and every zoo name that is no catalogue device, out of
// `device_paths` into the returned list, so that `simulate a.net b.net c.net gpu.hw` (or
// `simulate resnet18 vgg11 t4`) takes the first as the network and the others as extra networks for
// the correlation table and the latency-vs-FLOPs plot.
std::vector<std::string> take_networks(std::vector<std::string>& device_paths);

// The files --svg and --trace ask for, rendered from the results (with the --measured times, loaded
// once by the caller, on the rooflines; a parallel plan's trace is its first strategy's step): (path, contents), for the caller to write with its own output,
// all or none; and the lines to print under the table about them.
struct Figures {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<engine::Note> notes;
};
Figures figures(const ReportOptions& options, const engine::Results& results, const std::vector<ir::Device>& devices,
                const std::vector<engine::Measurement>& measured);

}  // namespace ridge::simulate
