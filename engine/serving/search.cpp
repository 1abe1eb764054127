#include "engine/serving/search.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace ridge::engine::serving {
namespace {

std::vector<int> tensor_splits(const SearchSpace& space, const ir::Device& device) {
  if (!space.tensor.empty()) return space.tensor;
  std::vector<int> out;
  for (int t = 1; t <= std::min(8, std::max(1, device.count)); t *= 2) out.push_back(t);
  return out;
}

std::vector<std::int64_t> batch_sizes(const SearchSpace& space, std::int64_t given) {
  if (!space.max_num_seqs.empty()) return space.max_num_seqs;
  std::vector<std::int64_t> out;
  for (const std::int64_t m : {given / 4, given / 2, given})
    if (m >= 1 && (out.empty() || out.back() != m)) out.push_back(m);
  return out;
}

// The ranking (search.hpp), the order of the search aside (stable sorts keep it).
bool ranks_before(const DeploymentRun& x, const DeploymentRun& y, bool by_price) {
  if (x.meets_slo() != y.meets_slo()) return x.meets_slo();
  if (by_price && *x.price_per_hour() != *y.price_per_hour()) return *x.price_per_hour() < *y.price_per_hour();
  if (x.devices() != y.devices()) return x.devices() < y.devices();
  return x.served.ttft.p99 < y.served.ttft.p99;
}

}  // namespace

SearchResult search(const NetworkAt& network_at, const std::vector<ir::Device>& devices, const Options& options,
                    const Deployment& base, const SearchSpace& space) {
  if (base.slo.ttft_s <= 0 && base.slo.tpot_s <= 0)
    throw SimulationError("a deployment search needs a goal to meet: a TTFT or TPOT goal (--slo-ttft, --slo-tpot)");
  if (space.max_replicas < 1 || space.max_replicas > kMaxReplicas)
    throw SimulationError("the most replicas searched must be between 1 and " + std::to_string(kMaxReplicas));
  SearchResult result;
  result.space = space;
  if (space.shards < 1 || space.shard < 0 || space.shard >= space.shards)
    throw SimulationError("a search shard must be between 0 and the number of shards less 1");
  int ordinal = 0;
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (const int tensor : tensor_splits(space, devices[i]))
      for (const int pipeline : space.pipeline) {
        if (ordinal++ % space.shards != space.shard) continue;
        Deployment d = base;
        d.record = false;   // the best alone is served again with its iterations kept
        d.parallel.tensor = tensor;
        d.parallel.pipeline = pipeline;
        d.replicas.count = 1;
        std::optional<Prepared> prepared;
        try {
          prepared = prepare(network_at, devices[i], options, d);
        } catch (const SimulationError& e) {
          result.refused.push_back({devices[i].id, tensor, pipeline, e.what()});
          continue;
        }
        std::optional<DeploymentRun> best;   // of this split, over the batch sizes
        for (const std::int64_t seqs : batch_sizes(space, base.scheduler.max_num_seqs)) try {
          d.scheduler.max_num_seqs = seqs;
          if (d.scheduler.batching == Batching::Chunked) d.scheduler.max_batched_tokens = std::max(d.scheduler.max_batched_tokens, seqs);
          std::map<std::int64_t, DeploymentRun> tried;
          const auto at = [&](std::int64_t replicas) -> const DeploymentRun& {
            if (const auto it = tried.find(replicas); it != tried.end()) return it->second;
            d.replicas.count = replicas;
            ++result.deployments_served;
            return tried.emplace(replicas, serve(*prepared, d)).first->second;
          };
          // Doubling to the first count that meets the goals, then bisection below it.
          std::int64_t low = 0, high = 1;   // low fails (0: none tried), high is tried next
          while (!at(high).meets_slo() && high < space.max_replicas) {
            low = high;
            high = std::min(2 * high, space.max_replicas);
          }
          if (at(high).meets_slo())
            while (high - low > 1) {
              const std::int64_t mid = (low + high) / 2;
              (at(mid).meets_slo() ? high : low) = mid;
            }
          const DeploymentRun& found = at(high);
          if (!best || ranks_before(found, *best, found.price_per_hour() && best->price_per_hour())) best = found;
        } catch (const SimulationError& e) {
          result.refused.push_back({devices[i].id, tensor, pipeline, e.what()});
          break;   // the same request refuses every batch size
        }
        if (best) result.candidates.push_back({i, std::move(*best)});
      }
  result.by_price = std::all_of(result.candidates.begin(), result.candidates.end(),
                                [](const Candidate& c) { return c.run.price_per_hour().has_value(); });
  const bool by_price = result.by_price;
  std::stable_sort(result.candidates.begin(), result.candidates.end(),
                   [by_price](const Candidate& a, const Candidate& b) { return ranks_before(a.run, b.run, by_price); });
  if (base.record && !result.candidates.empty()) {
    Candidate& best = result.candidates.front();
    best.run.deployment.record = true;
    best.run = serve(network_at, devices[best.device], options, best.run.deployment);
  }
  return result;
}

}  // namespace ridge::engine::serving
