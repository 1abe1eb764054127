#include "engine/serving/deployment.hpp"

#include "engine/serving/step_cost.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::serving {

bool DeploymentRun::meets_slo() const {
  const Slo& slo = deployment.slo;
  return served.completed == served.requests && (slo.ttft_s <= 0 || served.ttft.p99 <= slo.ttft_s) &&
         (slo.tpot_s <= 0 || served.tpot.p99 <= slo.tpot_s);
}

Prepared prepare(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d) {
  Prepared p;
  p.requests = requests(d.load);
  // The unloaded request: the load's mean lengths (its requests', where it has any).
  std::int64_t prompt = mean_tokens(d.load.prompt), output = mean_tokens(d.load.output), longest = 1;
  if (!p.requests.empty()) {
    double prompts = 0.0, outputs = 0.0;
    for (const Request& r : p.requests) {
      prompts += static_cast<double>(r.prompt);
      outputs += static_cast<double>(r.output);
      longest = std::max(longest, r.prompt);
    }
    prompt = std::max<std::int64_t>(1, std::llround(prompts / static_cast<double>(p.requests.size())));
    output = std::max<std::int64_t>(1, std::llround(outputs / static_cast<double>(p.requests.size())));
  }
  Options one = options;
  one.batch = 1;
  p.unloaded = generate(network_at, device, one, prompt, output, d.parallel);
  // The largest forward the scheduler runs: the budget, or (without chunks) one prompt longer than it, run alone.
  const std::int64_t largest =
      d.scheduler.batching == Batching::Chunked ? d.scheduler.max_batched_tokens : std::max(d.scheduler.max_batched_tokens, longest);
  p.cost = engine_step_cost(network_at, device, options, d.parallel, largest, d.memory_fraction);
  if (device.price) p.price_per_device_hour = device.price->value;
  return p;
}

DeploymentRun serve(const Prepared& prepared, const Deployment& d) {
  DeploymentRun run;
  run.deployment = d;
  run.unloaded = prepared.unloaded;
  run.price_per_device_hour = prepared.price_per_device_hour;
  run.served = serve(prepared.requests, prepared.cost, d.scheduler, d.slo, d.replicas, d.record);
  return run;
}

DeploymentRun serve(const NetworkAt& network_at, const ir::Device& device, const Options& options, const Deployment& d) {
  return serve(prepare(network_at, device, options, d), d);
}

}  // namespace ridge::engine::serving
