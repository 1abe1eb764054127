// simulate's report options: roofline and sweep plots (--svg), the timeline (--trace), data-parallel
// scaling (--devices, --link, --scaling, --overlap, --dataset-size) and measured times (--measured);
// and what turns them into a plan (scaling_plan) and into figures once the engine has run (figures).
#pragma once

#include "engine/measured.hpp"
#include "engine/run.hpp"

#include "lang/ir/device.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ridge::simulate {

struct ReportOptions {
  std::string svg;              // roofline (one report) or the stem of the sweep figures
  std::string trace;            // Chrome trace-event JSON
  std::string devices;          // "8" (rows 1, 2, 4, 8) or a list "1,2,3,4"; empty: the .hw's system.count
  std::string link;             // nvlink | pcie | ethernet | infiniband | ...; empty: the .hw's default
  std::string scaling = "strong";
  bool overlap = false;
  std::int64_t dataset_size = 0;   // 0: no epoch time
  std::string measured;         // CSV: layer,pass,seconds
};

void add_report_options(CLI::App& app, ReportOptions& options);

// The data-parallel scaling the options ask for. Throws std::invalid_argument for a bad --devices.
engine::ScalingPlan scaling_plan(const ReportOptions& options);

// A CSV of layer,forward|backward,seconds (calibrate --measurements writes one). Throws naming the
// file and line of a bad row.
std::vector<engine::Measurement> load_measurements(const std::string& path);

// "fp32" or "fp32,fp16": what --dtype takes. Throws std::invalid_argument naming a bad item.
std::vector<ir::Precision> parse_precisions(const std::string& text);

// Moves every path ending in ".net" or ".onnx", and every zoo name that is no catalogue device, out of
// `device_paths` into the returned list, so that `simulate a.net b.net c.net gpu.hw` (or
// `simulate resnet18 vgg11 t4`) takes the first as the network and the others as extra networks for
// the correlation table and the latency-vs-FLOPs plot.
std::vector<std::string> take_networks(std::vector<std::string>& device_paths);

// The files --svg and --trace ask for, rendered from the results (with the --measured times, loaded
// once by the caller, on the rooflines): (path, contents), for the caller to write with its own output,
// all or none; and the lines to print under the table about them.
struct Figures {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;
};
Figures figures(const ReportOptions& options, const engine::Results& results, const std::vector<ir::Device>& devices,
                const std::vector<engine::Measurement>& measured);

}  // namespace ridge::simulate
