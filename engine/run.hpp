// One run of the engine: what a command line or a Python call asks for, as a Plan, and everything it
// computes, as Results. The simulate program turns its options into a Plan, run() computes, renderers
// (engine/render/) turn Results into text and pictures, and the program writes the files last.
//
//   Plan plan{.network = std::make_shared<const ir::Network>(net), .devices = {a100}, .batches = {1, 64}};
//   const Results results = run(plan);        // results.reports: one per device x precision x batch
#pragma once

#include "engine/breakdown.hpp"
#include "engine/comparison.hpp"
#include "engine/explain.hpp"
#include "engine/generation.hpp"
#include "engine/serving/deployment.hpp"
#include "engine/serving/search.hpp"
#include "engine/measured.hpp"
#include "engine/parallel/plan.hpp"
#include "engine/parallel/schedule.hpp"
#include "engine/report.hpp"
#include "engine/scaling.hpp"
#include "engine/simulate.hpp"
#include "engine/stats.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

// Data-parallel scaling rows (engine/scaling.hpp) for every report.
struct ScalingPlan {
  // The device counts asked for (rows). Empty: a system .hw (count > 1) adds 1, 2, 4, ..., count by
  // itself, stopping under strong scaling where the batch can no longer be split (with a note).
  std::vector<int> device_counts;
  std::string link;                          // empty: choose_link's default
  Scaling scaling = Scaling::Strong;
  bool overlap = false;
  std::optional<std::int64_t> dataset_size;
};

// Parallel training (engine/parallel/): one strategy's step, or a search over every strategy that fits.
// Such a run gives a parallel plan, not reports; it takes one device, precision and batch.
struct ParallelRun {
  bool search = false;
  parallel::Strategy strategy;               // when !search; its global batch defaults to the plan's batch
  parallel::SearchOptions search_options;    // when search
  std::string link;                          // a strategy's link; a search carries its own
  bool schedule = false;                     // the first strategy's pipeline schedule too (a trace draws it)
};

// One report's layers summed per block (`depth` > 0, simulate --depth) and ranked by time (`top` > 0,
// simulate --top, by `rank_by`).
struct BreakdownPlan {
  int depth = 0;
  std::size_t top = 0;
  TimeOf rank_by = TimeOf::TrainingStep;
};

// Networks are shared, not copied: a notebook's loaded network serves every run (a copy of a
// 1,444-layer network cost more than simulating it).
using NetworkRef = std::shared_ptr<const ir::Network>;

struct Plan {
  NetworkRef network;
  std::vector<ir::Device> devices;
  std::vector<std::string> device_files;     // where each device came from, for messages; may be empty
  std::vector<ir::Precision> precisions{ir::Precision::FP32};
  std::vector<std::int64_t> batches{1};
  Options options;                           // the training set-up; batch and precision are set per simulation
  // Per-layer rows and notes in every report. Without them (a sweep of many configurations) each
  // (batch, precision) workload is computed once and timed on every device (engine::Sweep's way).
  bool layers = true;
  ScalingPlan scaling;
  std::vector<NetworkRef> correlate;         // further networks ranked against `network` (Spearman)
  // Decoder inference (prompt > 0): the prefill of `prompt` tokens, then `generate` decode steps, the
  // network elaborated per phase by network_at. Such a run gives generations, not reports.
  std::int64_t prompt = 0, generate = 0;
  NetworkAt network_at;
  GenerationParallel generation_parallel;   // the devices a generation runs on (one by default)
  // A deployment under a request load (simulate --serve): served on every device and precision, with
  // network_at's phases (one row each in the `serving` table).
  std::optional<serving::Deployment> serving;
  // With serving: search deployments of it over this space (simulate --serve --search), one precision.
  std::optional<serving::SearchSpace> serving_search;
  // A layer to explain (simulate --explain): its derivation on every device, precision and batch.
  std::string explain;
  std::optional<ParallelRun> parallel;
  // Where the run is one report (one device, precision and batch): its breakdown, and measured layer
  // times paired with its layers (simulate --measured).
  std::optional<BreakdownPlan> breakdown;
  std::optional<std::vector<Measurement>> measured;
};

struct Results {
  std::vector<Report> reports;               // the network's: devices x precisions x batches, in that order
  std::vector<Report> correlated;            // the further networks' at the same points
  std::vector<Generation> generations;       // devices x precisions x batches (prompt > 0)
  std::vector<serving::DeploymentRun> serving;   // devices x precisions (Plan::serving); a search's candidates, best first
  std::optional<serving::SearchResult> serving_search;   // Plan::serving_search's refusals and ranking (its candidates' runs are `serving`)
  std::vector<ScalingReport> scalings;       // one per device, precision and batch that scales
  std::optional<RankCorrelation> correlation;
  std::vector<Note> notes;                   // about the run as a whole
  std::vector<LayerExplanation> explanations;   // Plan::explain's layer at each report's point
  std::optional<parallel::PlanReport> parallel;  // Plan::parallel's strategy or search
  std::optional<parallel::PipelineSchedule> schedule;   // its first strategy's, where asked
  std::optional<Comparison> comparison;      // the reports side by side, where there are several
  std::vector<BreakdownRow> breakdown;       // Plan::breakdown's rows (blocks, or ranked layers)
  bool ranked = false;                       // whether they are ranked (share and cumulative filled)
  std::optional<MeasuredComparison> measured;   // Plan::measured beside the one report's predictions
};

// Each simulation keeps a per-layer report until the output is rendered: one run asks for at most
// this many, counting the scaling rows and the correlated networks' simulations too.
inline constexpr std::size_t kMaxSimulations = 4096;
// And the work they add up to: simulations times the layers each simulates, so that 4,000 scaling rows
// of a 2,000-layer network (or 41 batches of a 100,000-layer one) are refused up front, not run for
// seconds. One simulation of the largest network (100,000 layers) is 100,000.
inline constexpr std::size_t kMaxLayerSimulations = 4'000'000;
// Throws std::invalid_argument when `simulations` of a `layers`-layer network pass it.
void check_work(std::size_t simulations, std::size_t layers, const std::string& what);

// Throws std::invalid_argument for a plan over the limits above (before simulating anything), and
// SimulationError, prefixed with the device's file (or id), for what simulate() refuses (and a
// parallel strategy check() refuses).
Results run(const Plan& plan);

}  // namespace ridge::engine
