// simulate's report options: roofline/sweep plots (--svg), the timeline (--trace), data-parallel
// scaling (--devices, --link, --scaling, --overlap, --dataset-size), measured points on the roofline
// (--measured) and rank correlation across several networks (more than one .net on the command line).
// simulate_main.cpp adds these options, then hands its Reports here; this file computes the extra
// reports, writes the files (atomically, all or none) and returns the text to append to stdout.
#pragma once

#include "engine/measured.hpp"
#include "engine/report.hpp"

#include "ir/device.hpp"
#include "ir/network.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ridge::engine::cli {

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

// A CSV of layer,forward|backward,seconds (calibrate --measurements writes one). Throws naming the
// file and line of a bad row.
std::vector<Measurement> load_measurements(const std::string& path);

// "fp32" or "fp32,fp16": what --dtype takes. Throws std::invalid_argument naming a bad item.
std::vector<ir::Precision> parse_precisions(const std::string& text);

// Moves every path ending in ".net" out of `device_paths` into the returned list, so that
// `simulate a.net b.net c.net gpu.hw` takes a.net as the network and b.net, c.net as extra networks
// for the correlation table and the latency-vs-FLOPs plot.
std::vector<std::string> take_networks(std::vector<std::string>& device_paths);

struct Context {
  const ir::Network& network;                  // the network simulate reported on
  const std::vector<ir::Device>& devices;
  const std::vector<Report>& reports;          // the network's reports: devices x batches x precisions
  std::vector<std::string> extra_networks;     // paths from take_networks()
  std::string format = "table";                // table | csv | json
  // Where set, the --svg / --trace files are appended here (path, contents) for the caller to write
  // together with its own output, all or none; else finish() writes them itself, all or none.
  std::vector<std::pair<std::string, std::string>>* outputs = nullptr;
  std::string output = {};                     // -o FILE; empty: standard output
  // Lines for standard error once every file is written ("the scaling table (CSV): FILE").
  std::vector<std::string>* messages = nullptr;
};

// Each simulation keeps a per-layer report until the output is rendered: one run asks for at most this
// many, counting the scaling rows and the correlated networks' simulations too.
inline constexpr std::size_t kMaxSimulations = 4096;
// And the work they add up to: simulations times the layers each simulates, so that 4,000 scaling rows
// of a 2,000-layer network (or 41 batches of a 100,000-layer one) are refused up front, not run for
// seconds. One simulation of the largest network (100,000 layers) is 100,000.
inline constexpr std::size_t kMaxLayerSimulations = 4'000'000;
// Throws std::invalid_argument when `simulations` of a `layers`-layer network pass it.
void check_work(std::size_t simulations, std::size_t layers, const std::string& what);

// Computes what the options ask for, writes --svg / --trace files, and returns the stdout text:
// `main_text` followed by the scaling and correlation sections (for json, one object holding the
// main document and the sections). Throws on bad options, simulation errors and file errors; on any
// throw no file has been written.
std::string finish(const ReportOptions& options, const Context& context, std::string main_text);

}  // namespace ridge::engine::cli
