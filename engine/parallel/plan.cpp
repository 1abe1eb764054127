#include "engine/parallel/plan.hpp"

#include "engine/timing.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace ridge::engine::parallel {

namespace {

PlanReport header(const ir::Network& network, const ir::Device& device, const Options& setup, int devices,
                  std::int64_t global_batch, const std::string& link) {
  PlanReport r;
  r.network = network.name;
  r.device = device.name;
  r.device_id = device.id;
  r.precision = setup.precision;
  r.devices = devices;
  r.global_batch = global_batch;
  r.shape = describe_transformer(network);
  r.topology = topology_of(device, link, devices > 1);
  r.notes = r.topology.notes;
  if (devices > r.topology.devices && device.count > 1)
    r.notes.push_back(warning("parallel-more-devices", "the strategy uses " + std::to_string(devices) + " devices, more than the " +
                                                         std::to_string(r.topology.devices) +
                                                         " the .hw system declares: more nodes of the same kind are assumed"));
  if (!r.shape.is_transformer())
    r.notes.push_back(note("parallel-not-transformer", "no attention layer: data parallelism only; activation memory is simulate()'s"));
  else
    r.notes.push_back(note("parallel-activation-memory",
                           "activation memory: what each layer's backward reads (as one device keeps it), split over the tensor "
                           "ranks as Korthikanti et al. 2022 split it, for the micro-batches in flight on the first pipeline stage "
                           "(with the embedding's), or on the last (with the LM head's), whichever is larger"));
  r.notes.push_back(note("parallel-rank-order", "devices ranked tensor-parallel first, then data, then pipeline (Megatron-LM): a "
                                                 "tensor-parallel group fills a node first"));
  return r;
}

double capacity_of(const ir::Device& device) { return device.memory_size ? device.memory_size->value : 0.0; }

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t most) {
  std::vector<std::int64_t> d;
  for (std::int64_t k = 1; k <= n && k <= most; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

// Whether `devices` can be split T x P x D over the model at all: T dividing the heads and the hidden
// size, P the layers, D the global batch (a network without attention: D = devices).
bool divides(std::int64_t devices, const TransformerShape& shape, std::int64_t global_batch) {
  if (!shape.is_transformer()) return global_batch % devices == 0;
  for (const std::int64_t T : divisors(devices, shape.heads)) {
    if (shape.heads % T != 0 || shape.hidden % T != 0) continue;
    for (const std::int64_t P : divisors(devices / T, shape.layers))
      if (shape.layers % P == 0 && global_batch % (devices / (T * P)) == 0) return true;
  }
  return false;
}

// The largest count below `devices` a user would take instead (whole nodes of `node`, or a power of
// two) that divides the model; 0 when none does.
std::int64_t dividing_count(std::int64_t devices, std::int64_t node, const TransformerShape& shape, std::int64_t global_batch) {
  for (std::int64_t n = devices - 1; n >= 1; --n) {
    const bool whole_nodes = node > 1 && n % node == 0;
    const bool power_of_two = (n & (n - 1)) == 0;
    if ((whole_nodes || power_of_two) && divides(n, shape, global_batch)) return n;
  }
  return 0;
}

}  // namespace

PlanReport plan(const ir::Network& network, const ir::Device& device, const Options& setup, const Strategy& strategy,
                const std::string& link) {
  check(strategy, describe_transformer(network));   // first: devices() is only defined for a checked strategy
  PlanReport r = header(network, device, setup, strategy.devices(), strategy.global_batch, link);
  Options o = setup;
  if (!r.shape.is_transformer()) o.recompute = strategy.recompute;
  const MicroBatchProfile profile = profile_micro_batch(network, device, o, strategy.micro_batch, r.shape);
  r.strategies.push_back(evaluate(strategy, profile, r.shape, r.topology, capacity_of(device)));
  r.evaluated = 1;
  r.fitting = r.strategies.front().fits ? 1 : 0;
  return r;
}

namespace {

PlanReport search_at(const ir::Network& network, const ir::Device& device, const Options& setup, const SearchOptions& so);

}  // namespace

PlanReport search(const ir::Network& network, const ir::Device& device, const Options& setup, const SearchOptions& so) {
  PlanReport r = search_at(network, device, setup, so);
  if (r.evaluated > 0 || !so.devices_from_system) return r;
  const std::int64_t node = device.node_size > 0 ? device.node_size : device.count;
  const std::int64_t n = dividing_count(so.devices, node, r.shape, so.global_batch);
  if (n <= 0) return r;
  SearchOptions fewer = so;
  fewer.devices = static_cast<int>(n);
  PlanReport f = search_at(network, device, setup, fewer);
  const std::string how = node > 1 && n % node == 0 ? std::to_string(n / node) + " whole nodes of " + std::to_string(node)
                                                    : "a power of two";
  f.notes.insert(f.notes.begin(), warning("parallel-fewer-devices",
                                          "nothing divides the model over the system's " + std::to_string(so.devices) +
                                              " devices; searched " + std::to_string(n) + " of them (" + how +
                                              "), the largest count a user would take from it that does (--devices N for another)"));
  return f;
}

namespace {

PlanReport search_at(const ir::Network& network, const ir::Device& device, const Options& setup, const SearchOptions& so) {
  if (so.devices < 1) throw SimulationError("--search needs at least one device");
  if (so.global_batch < 1) throw SimulationError("--search needs a global batch of at least 1");
  PlanReport r = header(network, device, setup, so.devices, so.global_batch, so.link);
  r.search = true;
  const TransformerShape& shape = r.shape;
  const double capacity = capacity_of(device);
  // One simulation per micro-batch size; a size simulate() refuses (counts past 2^53) is skipped.
  std::map<std::int64_t, std::optional<MicroBatchProfile>> profiles;
  std::string refused;
  const auto profile = [&](std::int64_t m) -> const std::optional<MicroBatchProfile>& {
    auto it = profiles.find(m);
    if (it == profiles.end()) {
      std::optional<MicroBatchProfile> p;
      try {
        p = profile_micro_batch(network, device, setup, m, shape);
      } catch (const SimulationError& e) {
        if (refused.empty())
          refused = "micro-batch sizes simulate() refuses are skipped (the first, " + std::to_string(m) + ": " + e.what() + ")";
      }
      it = profiles.emplace(m, std::move(p)).first;
    }
    return it->second;
  };
  const std::size_t top = std::max<std::size_t>(1, so.top);
  const auto consider = [&](const Strategy& s) {
    const std::optional<MicroBatchProfile>& p = profile(s.micro_batch);
    if (!p) return;
    ++r.evaluated;
    const StepResult step = evaluate(s, *p, shape, r.topology, capacity);
    if (!step.fits) return;
    ++r.fitting;
    if (r.strategies.size() == top && step.step_s >= r.strategies.back().step_s) return;
    const auto at = std::upper_bound(r.strategies.begin(), r.strategies.end(), step,
                                     [](const StepResult& a, const StepResult& b) { return a.step_s < b.step_s; });
    r.strategies.insert(at, step);
    if (r.strategies.size() > top) r.strategies.pop_back();
  };

  const bool transformer = shape.is_transformer();
  const std::vector<Recompute> recomputes =
      transformer ? std::vector<Recompute>{Recompute::None, Recompute::Selective, Recompute::Full}
                  : std::vector<Recompute>{setup.recompute};
  for (const std::int64_t T : divisors(so.devices, transformer ? shape.heads : 1)) {
    if (transformer && (shape.heads % T != 0 || shape.hidden % T != 0)) continue;
    for (const std::int64_t P : divisors(so.devices / T, transformer ? shape.layers : 1)) {
      if (transformer && shape.layers % P != 0) continue;
      const std::int64_t D = so.devices / (T * P);
      if (so.global_batch % D != 0) continue;
      for (const std::int64_t m : divisors(so.global_batch / D, so.max_micro_batch)) {
        const std::int64_t micro_batches = so.global_batch / (D * m);
        for (const std::int64_t v : divisors(transformer ? shape.layers / P : 1, transformer ? shape.layers : 1)) {
          if (v > 1 && (P < 2 || micro_batches % P != 0)) continue;
          for (const bool sp : {false, true}) {
            if (sp && (T < 2 || shape.seq % T != 0)) continue;
            for (const Recompute rc : recomputes)
              for (int zero = 0; zero <= (D > 1 ? 3 : 0); ++zero) {
                Strategy s;
                s.tensor = static_cast<int>(T);
                s.pipeline = static_cast<int>(P);
                s.data = static_cast<int>(D);
                s.micro_batch = m;
                s.global_batch = so.global_batch;
                s.interleave = static_cast<int>(v);
                s.sequence_parallel = sp;
                s.recompute = rc;
                s.zero = zero;
                s.overlap = so.overlap;
                consider(s);
              }
          }
        }
      }
    }
  }
  r.notes.push_back(note("parallel-searched", "searched " + std::to_string(r.evaluated) + " strategies that divide the model; " +
                                                 std::to_string(r.fitting) + " fit in memory" +
                                                 (capacity > 0 ? "" : " (the device gives no memory size: every strategy fits)")));
  r.notes.push_back(note("parallel-micro-batches", "micro-batches up to " + std::to_string(so.max_micro_batch) + " tried; " +
                                                      std::to_string(profiles.size()) + " micro-batch sizes simulated"));
  if (!refused.empty()) r.notes.push_back(warning("parallel-refused", refused));
  if (r.evaluated == 0) {
    // Nothing to fit: no strategy divides the model over this many devices (issue #41: this said
    // "no strategy fits in memory"). Name the rule and a count that would divide.
    std::string why = "no strategy divides the model over " + std::to_string(so.devices) + " devices: " +
                      (shape.is_transformer()
                           ? "tensor-parallel T must divide the heads (" + std::to_string(shape.heads) + ") and the hidden size (" +
                                 std::to_string(shape.hidden) + "), pipeline P the layers (" + std::to_string(shape.layers) +
                                 "), and data-parallel D = devices / (T x P) the global batch (" + std::to_string(so.global_batch) + ")"
                           : "data-parallel D = devices must divide the global batch (" + std::to_string(so.global_batch) + ")");
    const std::int64_t node = device.node_size > 0 ? device.node_size : device.count;
    if (const std::int64_t n = dividing_count(so.devices, node, shape, so.global_batch); n > 0)
      why += "; " + std::to_string(n) + " devices would (--devices " + std::to_string(n) + ")";
    r.notes.push_back(warning("parallel-nothing-divides", why));
  } else if (r.strategies.empty()) {
    r.notes.push_back(warning("parallel-nothing-fits", "no strategy fits in memory"));
  }
  return r;
}

}  // namespace

}  // namespace ridge::engine::parallel
