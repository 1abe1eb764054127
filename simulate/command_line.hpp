// simulate's command line: every option, bound with CLI11. The run's options land in a RunOptions
// (run_options.hpp, shared with the Python module), which decides what goes together; what only the
// program has (files, the output format, figures) stays here.
#pragma once

#include "simulate/report_options.hpp"
#include "simulate/run_options.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ridge::simulate {

struct CommandLine {
  std::string network;                     // .net, .onnx, or a zoo name
  std::vector<std::string> devices;        // .hw files or catalogue names; further networks too (take_networks)
  RunOptions run;
  // Text forms, turned into `run` by finish().
  std::string batch = "1", dtype = "fp32", device_counts;
  bool no_master_weights = false;
  // Network parameters: --set NAME=VALUE, --dim NAME=VALUE (.onnx), --seq-len N.
  std::vector<std::string> sets, dims;
  std::int64_t seq_len = 0;
  bool allow_unknown = false;
  int batch_axis = 0;   // .onnx: the input's batch axis
  // The output.
  std::string format = "table", output, emit_net;
  bool wide = false;
  ReportOptions report;                    // --svg, --trace, --measured
};

void add_options(CLI::App& app, CommandLine& line);

// After CLI11 has parsed: the text forms into `line.run`. Throws std::invalid_argument naming the
// option of a bad item.
void finish(CommandLine& line);

// The network's parameters the command line sets (--set, --dim, --seq-len, and --prompt as seq_len).
lang::Overrides overrides(const CommandLine& line);

}  // namespace ridge::simulate
