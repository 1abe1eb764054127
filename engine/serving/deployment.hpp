// One deployment under a load: R replicas of a model, each on T x P devices of a system, serving the requests of a Load
// with vLLM's scheduler (serving.hpp), its iterations timed by the engine (step_cost.hpp). The unit
// `simulate --serve` runs and the `serving` table reports, one row per deployment.
#pragma once

#include "engine/generation.hpp"
#include "engine/serving/serving.hpp"

namespace ridge::engine::serving {

struct Deployment {
  Load load;
  Scheduler scheduler;
  Slo slo;
  Replicas replicas;
  GenerationParallel parallel;   // each replica's
  double memory_fraction = 0.9;   // vLLM's gpu_memory_utilization
};

struct DeploymentRun {
  Deployment deployment;
  // One request alone at the load's mean lengths (rounded): the deployment's unloaded TTFT and TPOT.
  // (Its prefill runs whole, as a request alone does without chunked prefill.)
  Generation unloaded;
  Served served;
};

DeploymentRun serve(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d);

}  // namespace ridge::engine::serving
