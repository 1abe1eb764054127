#include "engine/serving/step_cost.hpp"

#include "engine/parallel/collectives.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <utility>

namespace ridge::engine::serving {

StepCost engine_step_cost(const NetworkAt& network_at, const ir::Device& device, const Options& options,
                          const GenerationParallel& parallel, std::int64_t largest_prefill_tokens, double memory_fraction) {
  if (!device.memory_size || !(device.memory_size->value > 0))
    throw SimulationError("device '" + device.name + "' gives no memory size: the KV cache cannot be sized");
  if (!(memory_fraction > 0.0 && memory_fraction <= 1.0)) throw SimulationError("the memory fraction must be in (0, 1]");
  Options one = options;
  one.batch = 1;
  const Generation g = generate(network_at, device, one, std::max<std::int64_t>(1, largest_prefill_tokens), 1, parallel);
  const double free = memory_fraction * device.memory_size->value - g.weights_per_device_bytes - g.activations_per_device_bytes;
  if (!(free > 0.0))
    throw SimulationError("the weights (" + std::to_string(static_cast<long long>(std::round(g.weights_per_device_bytes / (1 << 30)))) +
                          " GiB a device) leave no room for the KV cache in " + std::to_string(static_cast<int>(memory_fraction * 100)) +
                          " % of the device's memory: more --tensor-parallel or --pipeline-parallel devices, or --weights int8");

  StepCost cost;
  cost.kv_capacity_tokens = static_cast<std::int64_t>(std::floor(free / g.kv_bytes_per_token_per_device));
  using Key = std::pair<std::int64_t, std::int64_t>;
  const auto times = std::make_shared<std::map<Key, double>>();
  const auto phase = [=](std::int64_t sequences, std::int64_t seq_len, std::int64_t past) {
    const Key key{sequences, seq_len * (std::int64_t{1} << 40) + past};
    if (const auto it = times->find(key); it != times->end()) return it->second;
    Options o = options;
    o.batch = sequences;
    return (*times)[key] = phase_seconds(network_at, device, o, parallel, seq_len, past);
  };
  cost.prefill = [=](std::int64_t sequences, std::int64_t tokens) { return phase(sequences, (tokens + 15) / 16 * 16, 0); };
  // Linear in the cached tokens between the powers of two around them (below 16: the line through
  // 16 and 32, extended).
  const auto interpolated = [=](std::int64_t sequences, std::int64_t seq_len, double past) {
    std::int64_t low = 16;
    while (static_cast<double>(2 * low) <= past) low *= 2;
    const double a = phase(sequences, seq_len, low), b = phase(sequences, seq_len, 2 * low);
    return a + (b - a) * (past - static_cast<double>(low)) / static_cast<double>(low);
  };
  cost.decode = [=](std::int64_t sequences, double context) { return interpolated(sequences, 1, context); };
  cost.chunk = [=](std::int64_t tokens, double past) { return interpolated(1, (tokens + 15) / 16 * 16, past); };
  // Each of a replica's devices sends its shard of the cache to its peer at once: one point-to-point
  // message each, on the link between nodes (a cluster's) or the system's interconnect.
  const parallel::LinkModel link = parallel::topology_of(device, parallel.link, false).inter;
  const double per_token = g.kv_bytes_per_token_per_device;
  cost.transfer = [link, per_token, name = device.name](std::int64_t tokens) {
    if (!(link.effective() > 0.0))
      throw SimulationError("device '" + name + "' gives no link to hand a KV cache over on (link.NAME.bandwidth)");
    return parallel::flat_seconds(parallel::Collective::PointToPoint, per_token * static_cast<double>(tokens), 2, link,
                                  parallel::Algorithm::Ring);
  };
  return cost;
}

}  // namespace ridge::engine::serving
