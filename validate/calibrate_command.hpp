// The calibrate program's command line: parsed, checked and its networks loaded before LibTorch is
// touched, so that every refusal of a bad command is torch-free, unit-tested and fuzzed
// (tests/fuzz/fuzz_calibrate_args.cpp) and nothing is measured for a command that would fail later.
#pragma once

#include "validate/fit.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::validate {

// --device: "cpu", "cuda" (device 0) or "cuda:N". Throws std::invalid_argument for anything else.
struct DeviceChoice {
  bool cuda = false;
  int index = 0;
};
DeviceChoice parse_device(std::string_view text);

struct CommandNetwork {
  ir::Network network;
  std::string path;
  bool holdout = false;   // measured and predicted, never fitted
};

struct CalibrateCommand {
  DeviceChoice device;
  std::int64_t batch = 8;
  ir::Precision precision = ir::Precision::FP32;
  std::optional<ir::Device> base;        // --base: the datasheet device the PPP are relative to
  std::string out;                       // the calibrated .hw
  std::string measurements;              // --measurements FILE (empty: none)
  int threads = 0;
  std::vector<CommandNetwork> networks;  // fitted first, then held out, in the order given
  int warmup = 2;                        // MeasureOptions's defaults
  int repeats = 10;
  double budget_s = 0.5;
  std::int64_t gemm_size = 2048;         // CeilingOptions's default
  bool layers = true;                    // print the per-layer table
  bool probes = true;
  bool cold_cache = true;
  bool measure_dispatch = true;          // CalibrateOptions::measure_dispatch
  FitOptions fit{.by_size = true};
  // Where each network's --measurements CSV goes: FILE for one network, FILE-NETWORK.csv for several.
  std::string measurements_path_for(const std::string& network) const;
};

// Parses the command line and checks it: options and their ranges (CLI11), the device, the dtype,
// every --set binding some network's parameter, the networks and the --base device loading, and no
// output naming an input, another output or a link to either (engine/io/output_safety.hpp). Returns
// the command, or nullopt when CLI11 answered (--help: exit code 0; a usage error: its code), having
// printed to `out`/`err`. Throws lang::Error (a file that does not parse), std::invalid_argument (a
// value no option accepts; engine::io::OutputConflict, one of them, for an output that would destroy
// an input).
struct ParsedCommand {
  std::optional<CalibrateCommand> command;
  int exit_code = 0;
};
ParsedCommand parse_calibrate_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace ridge::validate
