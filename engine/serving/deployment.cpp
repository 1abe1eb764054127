#include "engine/serving/deployment.hpp"

#include "engine/serving/step_cost.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::serving {

DeploymentRun serve(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d) {
  DeploymentRun run;
  run.deployment = d;
  const std::vector<Request> load = requests(d.load);
  const auto mean = [](const Lengths& l) { return std::max<std::int64_t>(1, (l.low + l.high + 1) / 2); };
  Options one = options;
  one.batch = 1;
  run.unloaded = generate(network_at, device, one, mean(d.load.prompt), mean(d.load.output), d.parallel);
  // The largest prefill the scheduler runs: the budget, or one prompt longer than it (run alone).
  const std::int64_t largest = std::max(d.scheduler.max_batched_tokens, d.load.prompt.high);
  const StepCost cost = engine_step_cost(network_at, device, options, d.parallel, largest, d.memory_fraction);
  run.served = serve(load, cost, d.scheduler, d.slo);
  return run;
}

}  // namespace ridge::engine::serving
