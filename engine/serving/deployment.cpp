#include "engine/serving/deployment.hpp"

#include "engine/serving/step_cost.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::serving {

DeploymentRun serve(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d) {
  DeploymentRun run;
  run.deployment = d;
  const std::vector<Request> load = requests(d.load);
  // The unloaded request: the load's mean lengths (its requests', where it has any).
  std::int64_t prompt = mean_tokens(d.load.prompt), output = mean_tokens(d.load.output), longest = 1;
  if (!load.empty()) {
    double prompts = 0.0, outputs = 0.0;
    for (const Request& r : load) {
      prompts += static_cast<double>(r.prompt);
      outputs += static_cast<double>(r.output);
      longest = std::max(longest, r.prompt);
    }
    prompt = std::max<std::int64_t>(1, std::llround(prompts / static_cast<double>(load.size())));
    output = std::max<std::int64_t>(1, std::llround(outputs / static_cast<double>(load.size())));
  }
  Options one = options;
  one.batch = 1;
  run.unloaded = generate(network_at, device, one, prompt, output, d.parallel);
  // The largest forward the scheduler runs: the budget, or (without chunks) one prompt longer than it, run alone.
  const std::int64_t largest =
      d.scheduler.batching == Batching::Chunked ? d.scheduler.max_batched_tokens : std::max(d.scheduler.max_batched_tokens, longest);
  const StepCost cost = engine_step_cost(network_at, device, options, d.parallel, largest, d.memory_fraction);
  run.served = serve(load, cost, d.scheduler, d.slo, d.replicas);
  return run;
}

}  // namespace ridge::engine::serving
