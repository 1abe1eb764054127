// One deployment under a load: R replicas of a model, each on T x P devices of a system, serving the
// requests of a Load with vLLM's scheduler (serving.hpp), its iterations timed by the engine
// (step_cost.hpp). The unit `simulate --serve` runs and the `serving` table reports, one row per
// deployment.
#pragma once

#include "engine/generation.hpp"
#include "engine/serving/serving.hpp"

#include <optional>

namespace ridge::engine::serving {

struct Deployment {
  Load load;
  Scheduler scheduler;
  Slo slo;
  Replicas replicas;
  GenerationParallel parallel;   // each replica's
  double memory_fraction = 0.9;  // vLLM's gpu_memory_utilization
  bool record = false;           // keep every iteration (Served::timeline), for --svg and --trace
};

struct DeploymentRun {
  Deployment deployment;
  // One request alone at the load's mean lengths (rounded): the deployment's unloaded TTFT and TPOT.
  // (Its prefill runs whole, as a request alone does without chunked prefill.)
  Generation unloaded;
  Served served;
  std::optional<double> price_per_device_hour;   // the device file's `price`, where it gives one

  int devices() const { return static_cast<int>(deployment.replicas.total()) * deployment.parallel.devices(); }
  std::optional<double> price_per_hour() const {
    return price_per_device_hour ? std::optional<double>(*price_per_device_hour * devices()) : std::nullopt;
  }
  // Every request finished, with TTFT and TPOT p99 within the goals given (none given: true).
  bool meets_slo() const;
};

// What serving a model on one device at one T x P needs before any load: the requests, the unloaded
// request, and the engine's iteration times, each simulated once (a search serves many loads on it).
struct Prepared {
  std::vector<Request> requests;
  Generation unloaded;
  StepCost cost;
  std::optional<double> price_per_device_hour;
};
Prepared prepare(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d);
DeploymentRun serve(const Prepared& prepared, const Deployment& d);

DeploymentRun serve(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d);

}  // namespace ridge::engine::serving
