#include "engine/parallel/collectives.hpp"

#include "engine/report.hpp"
#include "engine/scaling.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::parallel {

namespace {

LinkModel link_model(const ir::Device& device, const std::string& name, std::vector<Note>& notes) {
  const LinkUsed used = choose_link(device, name);
  LinkModel l{used.name, used.bandwidth, 1.0, used.latency_s};
  const ir::Link& link = device.links.at(used.name);
  if (link.efficiency) l.efficiency = link.efficiency->value;
  else notes.push_back(warning("link-no-efficiency", "link '" + used.name + "': no efficiency in the .hw; collectives run at its datasheet bandwidth"));
  if (used.latency_default)
    notes.push_back(warning("link-no-latency", "link '" + used.name + "': no latency in the .hw; " +
                                                   std::to_string(static_cast<int>(std::lround(used.latency_s * 1e6))) +
                                                   " us per step assumed"));
  return l;
}

int ceil_log2(int n) {
  int steps = 0;
  for (int reach = 1; reach < n; reach *= 2) ++steps;
  return steps;
}

}  // namespace

Topology topology_of(const ir::Device& device, const std::string& link_name, bool need_link) {
  Topology t;
  t.devices = device.count;
  if (device.step_overhead) t.step_overhead_s = device.step_overhead->value;
  else t.notes.push_back(note("parallel-no-step-overhead", "no system.step_overhead in the .hw: no per-step host overhead is added"));
  if (device.node_size > 0 && link_name.empty()) {
    t.node_size = device.node_size;
    t.intra = link_model(device, device.node_interconnect, t.notes);
    t.inter = link_model(device, device.interconnect, t.notes);
    return t;
  }
  if (device.links.empty() && !need_link) return t;
  t.intra = link_model(device, link_name, t.notes);
  t.inter = t.intra;
  if (t.intra.name == device.interconnect) t.torus = device.torus;   // the torus is the system's fabric
  return t;
}

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "all-reduce";
    case Collective::ReduceScatter: return "reduce-scatter";
    case Collective::AllGather: return "all-gather";
    case Collective::AllToAll: return "all-to-all";
    case Collective::PointToPoint: return "point-to-point";
  }
  return "?";
}

double bus_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1.0) / n;
    case Collective::ReduceScatter:
    case Collective::AllGather:
    case Collective::AllToAll: return (n - 1.0) / n;
    case Collective::PointToPoint: return 1.0;
  }
  return 1.0;
}

double flat_seconds(Collective c, double bytes, int ranks, const LinkModel& link, Algorithm algorithm) {
  if (ranks <= 1 && c != Collective::PointToPoint) return 0.0;
  const double bw = link.effective();
  if (c == Collective::PointToPoint) return bytes / bw + link.latency_s;
  if (c == Collective::AllReduce && algorithm == Algorithm::Tree)
    return 2.0 * bytes / bw + 2.0 * ceil_log2(ranks) * link.latency_s;
  const double steps = (c == Collective::AllReduce ? 2.0 : 1.0) * (ranks - 1);
  return bus_factor(c, ranks) * bytes / bw + steps * link.latency_s;
}

double best_flat_seconds(Collective c, double bytes, int ranks, const LinkModel& link) {
  const double ring = flat_seconds(c, bytes, ranks, link, Algorithm::Ring);
  return c == Collective::AllReduce ? std::min(ring, flat_seconds(c, bytes, ranks, link, Algorithm::Tree)) : ring;
}

int torus_steps(int ranks, const std::vector<int>& torus) {
  int left = ranks, steps = 0;
  for (const int d : torus) {
    if (left <= 1) break;
    const int take = left >= d ? d : left;
    if (left % take != 0 || (take < d && left != take)) return ranks - 1;
    steps += take - 1;
    left /= take;
  }
  return left == 1 ? steps : ranks - 1;
}

double collective_seconds(Collective c, double bytes, Group g, const Topology& t) {
  const int k = std::clamp(g.per_node, 1, std::max(1, g.ranks));
  if (c == Collective::PointToPoint) return best_flat_seconds(c, bytes, 2, k >= 2 ? t.intra : t.inter);
  if (g.ranks <= 1) return 0.0;
  if (k >= g.ranks && !t.torus.empty()) {   // a ring per dimension of the torus (the header comment)
    const double passes = c == Collective::AllReduce ? 2.0 : 1.0;
    return passes * ((g.ranks - 1.0) / g.ranks * bytes / t.intra.effective() + torus_steps(g.ranks, t.torus) * t.intra.latency_s);
  }
  if (k >= g.ranks) return best_flat_seconds(c, bytes, g.ranks, t.intra);   // inside one node
  const int nodes = (g.ranks + k - 1) / k;
  if (k == 1) return best_flat_seconds(c, bytes, g.ranks, t.inter);       // one rank per node
  switch (c) {
    case Collective::AllReduce:
      return best_flat_seconds(Collective::ReduceScatter, bytes, k, t.intra) +
             best_flat_seconds(Collective::AllReduce, bytes / k, nodes, t.inter) +
             best_flat_seconds(Collective::AllGather, bytes, k, t.intra);
    case Collective::ReduceScatter:
    case Collective::AllGather:
      return best_flat_seconds(c, bytes, k, t.intra) + best_flat_seconds(c, bytes / k, nodes, t.inter);
    case Collective::AllToAll: {
      const double n = g.ranks;
      const double off_node = (n - k) / n * bytes / t.inter.effective() + (nodes - 1) * t.inter.latency_s;
      const double on_node = (k - 1.0) / n * bytes / t.intra.effective() + (k - 1) * t.intra.latency_s;
      return std::max(off_node, on_node);
    }
    case Collective::PointToPoint: break;
  }
  return 0.0;
}

double bus_bandwidth(Collective c, double bytes, int ranks, double seconds) {
  return seconds > 0 ? bytes / seconds * bus_factor(c, ranks) : 0.0;
}

}  // namespace ridge::engine::parallel
