#include "engine/scaling.hpp"

#include "engine/parallel/collectives.hpp"
#include "engine/simulate.hpp"
#include "engine/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace ridge::engine {

namespace {
std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

std::string_view scaling_name(Scaling s) { return s == Scaling::Strong ? "strong" : "weak"; }

double default_link_latency(std::string_view link_name) {
  if (link_name == "ethernet") return 25e-6;   // TCP/RoCE-less ethernet: tens of microseconds per step
  if (link_name == "nvlink") return 2e-6;
  return 5e-6;                                 // pcie, infiniband and anything else
}

LinkUsed choose_link(const ir::Device& device, const std::string& name) {
  std::string chosen = name;
  if (chosen.empty()) {
    if (!device.interconnect.empty()) chosen = device.interconnect;
    else if (device.links.contains("nvlink")) chosen = "nvlink";
    else if (device.links.contains("pcie")) chosen = "pcie";
    else if (!device.links.empty()) chosen = device.links.begin()->first;
    else throw SimulationError("device '" + device.id + "' gives no link between devices (link.NAME.bandwidth)");
  }
  const auto it = device.links.find(chosen);
  if (it == device.links.end()) {
    std::string have;
    for (const auto& [n, l] : device.links) have += (have.empty() ? "" : ", ") + n;
    throw SimulationError("device '" + device.id + "' has no link '" + chosen + "'" +
                          (have.empty() ? std::string(" (it gives none)") : "; it has: " + have));
  }
  if (!(it->second.bandwidth.value > 0))
    throw SimulationError("link '" + chosen + "' of device '" + device.id + "' has no positive bandwidth");
  LinkUsed l{chosen, it->second.bandwidth.value, 0.0, false};
  if (it->second.efficiency) l.efficiency = it->second.efficiency->value;
  if (it->second.latency) {
    l.latency_s = it->second.latency->value;
  } else {
    l.latency_s = default_link_latency(chosen);
    l.latency_default = true;
  }
  return l;
}

double ring_allreduce_seconds(double bytes, int devices, double link_bandwidth, double latency_s) {
  return parallel::flat_seconds(parallel::Collective::AllReduce, bytes, devices, {"", link_bandwidth, 1.0, latency_s},
                                parallel::Algorithm::Ring);
}

ScalingPoint combine(const Report& per_device, int devices, std::int64_t global_batch, double gradient_bytes,
                     const LinkUsed& link, bool overlap, std::optional<std::int64_t> dataset_size) {
  ScalingPoint p;
  p.devices = devices;
  p.global_batch = global_batch;
  p.per_device_batch = per_device.batch;
  const Totals& t = per_device.totals;
  p.forward_s = t.time_fwd_train_s;
  p.backward_s = t.time_bwd_s;
  p.update_s = t.time_update_s;
  p.compute_s = p.forward_s + p.backward_s + p.update_s;
  p.allreduce_s = ring_allreduce_seconds(gradient_bytes, devices, link.bandwidth * link.efficiency, link.latency_s);
  p.exposed_comm_s = overlap ? std::max(0.0, p.allreduce_s - p.backward_s) : p.allreduce_s;
  p.step_s = p.compute_s + p.exposed_comm_s;
  p.throughput = p.step_s > 0 ? static_cast<double>(global_batch) / p.step_s : 0.0;
  p.comm_share = p.step_s > 0 ? p.exposed_comm_s / p.step_s : 0.0;
  if (dataset_size) {
    // The last batch may be short; ceil without the overflow of dataset + batch - 1 near 2^63.
    p.steps_per_epoch = *dataset_size / global_batch + (*dataset_size % global_batch != 0 ? 1 : 0);
    p.epoch_s = static_cast<double>(*p.steps_per_epoch) * p.step_s;
  }
  // A figure that is positive and finite in the .hw can still give no finite answer (a link of
  // 1e-300 B/s): refuse it, naming the link, rather than print inf h and -nan%.
  for (const double v : {p.allreduce_s, p.step_s, p.throughput, p.comm_share, p.epoch_s.value_or(0.0)})
    if (!std::isfinite(v))
      throw SimulationError("link '" + link.name + "' (" + shortest(link.bandwidth) + " B/s, latency " +
                            shortest(link.latency_s) + " s) gives a step time that is not a finite number at " +
                            std::to_string(devices) + " devices; expected a plausible link bandwidth and latency");
  p.per_device = per_device;
  return p;
}

std::vector<int> device_counts_up_to(int n) {
  std::vector<int> v;
  for (int k = 1; k < n; k *= 2) v.push_back(k);
  if (n >= 1) v.push_back(n);
  return v;
}

ScalingReport scale(const ir::Network& network, const ir::Device& device, const ScalingOptions& o) {
  std::set<int> counts(o.devices.begin(), o.devices.end());
  if (counts.empty() || *counts.begin() < 1)
    throw SimulationError("device counts must be at least 1");
  counts.insert(1);   // the baseline efficiency is measured against
  const int most = *counts.rbegin();
  if (o.batch < 1) throw SimulationError("batch must be at least 1");
  if (o.scaling == Scaling::Strong && o.batch < most)
    throw SimulationError("strong scaling splits the batch: batch " + std::to_string(o.batch) +
                          " cannot be split over " + std::to_string(most) + " devices");
  if (o.dataset_size && *o.dataset_size < 1) throw SimulationError("dataset size must be at least 1");

  ScalingReport r;
  r.network = network.name;
  r.device = device.name;
  r.device_id = device.id;
  r.precision = o.precision;
  r.scaling = o.scaling;
  r.overlap = o.overlap;
  r.dataset_size = o.dataset_size;
  if (most > 1) r.link = choose_link(device, o.link);
  else if (!o.link.empty()) r.link = choose_link(device, o.link);

  bool uneven = false;
  for (const int n : counts) {
    const std::int64_t per = o.scaling == Scaling::Strong ? (o.batch + n - 1) / n : o.batch;
    const std::int64_t global = o.scaling == Scaling::Strong ? o.batch : o.batch * n;
    if (o.scaling == Scaling::Strong && o.batch % n != 0) uneven = true;
    const Report rep = simulate(network, device, {.batch = per, .precision = o.precision});
    if (r.points.empty()) {
      r.params = rep.totals.params;
      r.gradient_bytes = rep.totals.params * ir::bytes_per_element(o.precision);
    }
    r.points.push_back(combine(rep, n, global, r.gradient_bytes, r.link, o.overlap, o.dataset_size));
    // Only the last point's per-layer report is used (its trace): keep totals for the others, so a long
    // list of device counts does not keep a full per-layer report each.
    if (r.points.size() > 1) {
      Report& previous = r.points[r.points.size() - 2].per_device;
      previous.layers.clear();
      previous.layers.shrink_to_fit();
    }
  }
  const double base = r.points.front().throughput;
  for (ScalingPoint& p : r.points) {
    p.speedup = base > 0 ? p.throughput / base : 0.0;
    p.efficiency = p.speedup / p.devices;
    // Rates that underflow (a 1e-300 B/s link: speedup 1e-311) print as 0 or NaN percentages.
    for (const double v : {p.throughput, p.speedup, p.efficiency})
      if (!std::isnormal(v))
        throw SimulationError("link '" + r.link.name + "' of device '" + device.id + "' (" + shortest(r.link.bandwidth) +
                              " B/s) gives a throughput too small to report at " + std::to_string(p.devices) +
                              " devices; expected a plausible link bandwidth");
  }

  r.notes.push_back(note("scaling-kind", std::string(scaling_name(o.scaling)) + " scaling: " +
                                             (o.scaling == Scaling::Strong
                                                  ? "the global batch of " + std::to_string(o.batch) + " is split over the devices"
                                                  : "every device runs a batch of " + std::to_string(o.batch))));
  if (uneven)
    r.notes.push_back(note("scaling-uneven", "strong scaling: where the batch does not divide evenly each device runs ceil(B/N) "
                                             "samples, as the slowest device sets the pace"));
  if (most > 1) {
    r.notes.push_back(note("scaling-all-reduce",
                           "all-reduce: ring, 2(N-1)/N * S / link_bw + 2(N-1) * alpha over " + r.link.name + " (one direction" +
                               (r.link.efficiency < 1.0 ? ", at " + shortest(r.link.efficiency * 100) + " % of it (link efficiency)"
                                                        : std::string()) +
                               "), S = gradient bytes at " + std::string(ir::precision_name(o.precision))));
    if (r.link.latency_default)
      r.notes.push_back(warning("link-no-latency", "link latency: the device gives none for " + r.link.name + "; " +
                                                     std::to_string(static_cast<int>(std::lround(r.link.latency_s * 1e6))) +
                                                     " us assumed"));
  }
  r.notes.push_back(note("scaling-overlap", o.overlap ? "overlap: the all-reduce runs during backward; only what exceeds backward is exposed"
                                                     : "no overlap: the all-reduce starts after backward ends"));
  // The update is the report's optimizer's (it said SGD with momentum whatever --optimizer was).
  r.notes.push_back(note("scaling-compute", "compute: training step (training-mode forward + backward + " +
                                                r.points.front().per_device.optimizer + " update) at the per-device batch"));
  r.notes.push_back(note("scaling-efficiency", "efficiency = throughput(N) / (N * throughput(1))"));
  return r;
}

}  // namespace ridge::engine
