// The simulate options of parallel training (engine/parallel/): a strategy, or --search. Kept apart
// from report_options so the two grow independently.
//   --tensor-parallel T --pipeline-parallel P --data-parallel D --micro-batch m --global-batch B
//   --interleave v --sequence-parallel --zero 0|1|2|3 --search [--top K] [--max-micro-batch M]
// --recompute, --optimizer, --dtype, --overlap, --link and --devices (the device count a search fills)
// are simulate's own options, read from the same command line.
#pragma once

#include "engine/simulate.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace ridge::simulate {

struct ParallelOptions {
  int tensor = 0, pipeline = 0, data = 0;   // 0: not given (1 for a strategy)
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 0;            // 0: --batch
  int interleave = 1;
  bool sequence_parallel = false;
  int zero = 0;
  bool search = false;
  int top = 0;                       // --top K: 0 when not given (a search prints 10)
  std::int64_t max_micro_batch = 64;
  // Whether any option asks for the parallel plan instead of the per-layer report.
  bool requested() const { return search || tensor > 0 || pipeline > 0 || data > 0; }
};

void add_parallel_options(CLI::App& app, ParallelOptions& options);

// What the rest of simulate's command line says, as the plan needs it.
struct ParallelContext {
  std::int64_t batch = 1;          // --batch: the global batch unless --global-batch
  std::string devices;             // --devices, for --search: the device count (empty: the .hw's system.count)
  std::string link;                // --link
  bool overlap = false;            // --overlap
  std::string format = "table";
};

// The plan's text in `format`, and where `trace` is given the Chrome trace of its (first) strategy's
// step, one track per pipeline stage. Throws std::invalid_argument for options that do not go
// together and SimulationError for a strategy the model refuses.
std::string run_parallel(const ParallelOptions& options, const ParallelContext& context, const ir::Network& network,
                         const ir::Device& device, const engine::Options& setup, std::string* trace = nullptr);

}  // namespace ridge::simulate
