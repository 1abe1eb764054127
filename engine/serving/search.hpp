// The cheapest deployment that meets latency goals (simulate --serve --search, issue #36): for each
// device file, tensor x pipeline split of one replica and scheduler size, the fewest replicas whose
// TTFT and TPOT p99 stay within the goals under the load, found by doubling then bisection (more
// replicas never serve a load worse: each gets fewer requests); of each split, the best scheduler
// size is its candidate; then the candidates ranked.
//
// The space: device files as given; tensor parallel 1, 2, 4, 8 up to the system's devices (a replica
// lives in one system, as vLLM's tensor parallelism does; a one-GPU file is one-GPU replicas), or
// the --tensor-parallel given; pipeline 1 or the --pipeline-parallel given; max_num_seqs a quarter,
// a half and all of the scheduler's; replicas 1 to max_replicas. A split the model does not fit
// (weights beyond 90 % of memory) or cannot be cut into is refused with the reason.
//
// The ranking: candidates that meet the goals first; then the price per hour (replicas x T x P x the
// device file's `price`), where every candidate has one, else the number of devices; then fewer
// devices; then the lower TTFT p99; then the order of the search (device file, T, P, max_num_seqs).
#pragma once

#include "engine/serving/deployment.hpp"

#include <string>
#include <vector>

namespace ridge::engine::serving {

struct SearchSpace {
  std::vector<int> tensor;                  // empty: 1, 2, 4, 8 up to each device file's system count
  std::vector<int> pipeline{1};
  std::vector<std::int64_t> max_num_seqs;   // empty: a quarter, a half and all of the deployment's
  std::int64_t max_replicas = 16;
  // One shard of the search (of `shards`, for running it on many workers): the configurations whose
  // ordinal (device, then tensor, then pipeline split, in the order above) is `shard` modulo `shards`.
  // Ranking the union of the shards' candidates as below gives the whole search's ranking.
  int shard = 0, shards = 1;
};

struct Candidate {
  std::size_t device = 0;   // index into the device files searched
  DeploymentRun run;        // at the fewest replicas that meet the goals, or at max_replicas
};
// (engine::run moves the candidates' runs into Results::serving, best first, and keeps the rest.)

struct Refusal {
  std::string device_id;
  int tensor = 1, pipeline = 1;
  std::string reason;
};

struct SearchResult {
  SearchSpace space;
  std::vector<Candidate> candidates;   // one per split that fits (its best batch size), ranked, best first
  std::vector<Refusal> refused;
  std::int64_t deployments_served = 0;
  bool by_price = false;               // ranked by price (every candidate has one), else by devices
};

// With base.record, the best deployment keeps its iterations (Served::timeline) for the figures.
// Throws SimulationError where no goal is given (nothing to meet) or the space is out of range.
SearchResult search(const NetworkAt& network_at, const std::vector<ir::Device>& devices, const Options& options,
                    const Deployment& base, const SearchSpace& space);

}  // namespace ridge::engine::serving
