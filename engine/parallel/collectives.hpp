// Collectives: the one place their times live (DESIGN.md, "Parallelism"). Every formula follows
// nccl-tests' PERFORMANCE.md: a collective of S bytes (the buffer nccl-tests names "size": the whole
// vector for all-reduce, the whole input of reduce-scatter, the whole output of all-gather) over n
// ranks takes
//
//   ring all-reduce       t = 2(n-1)/n * S / B + 2(n-1) * alpha
//   ring reduce-scatter   t =  (n-1)/n * S / B +  (n-1) * alpha        (all-gather the same)
//   all-to-all            t =  (n-1)/n * S / B +  (n-1) * alpha
//   point-to-point        t =            S / B +          alpha
//   tree all-reduce       t =        2 * S / B + 2 ceil(log2 n) * alpha  (double binary tree: every rank
//                                                                         sends S up and S down)
//
// where B = link bandwidth (one direction) x its efficiency (the fraction nccl-tests reaches) and alpha
// the link's per-step latency. An all-reduce takes the faster of ring and tree, as NCCL's tuner does:
// small messages are latency-bound and go by tree. The bus bandwidth nccl-tests reports is
// busbw = algbw * factor, algbw = S / t, factor 2(n-1)/n (all-reduce), (n-1)/n (reduce-scatter,
// all-gather, all-to-all), 1 (point-to-point): for large S it tends to B, whatever n.
//
// On a torus (`system.torus`, a TPU slice's ICI) a collective is a ring per dimension, one after the
// other (reduce-scatter along X, then along Y on what is left, ...; the all-gather back), each ring
// wrapped: the same bytes cross each chip's links as on one ring, (n-1)/n * S at the chip's ICI
// bandwidth B (the per-chip figure, all its links), but in sum_i (d_i - 1) steps rather than n - 1:
//
//   torus all-reduce      t = 2(n-1)/n * S / B + 2 sum_i (d_i - 1) * alpha
//   torus reduce-scatter  t =  (n-1)/n * S / B +   sum_i (d_i - 1) * alpha   (all-gather, all-to-all the same)
//
// A group of fewer ranks than the torus takes whole dimensions in order (16 ranks of a 4x4x4 slice: a
// 4x4 plane); one whose size is no such product runs as one ring. An all-to-all's bandwidth on a torus
// is bounded by its bisection, which the formula above does not model.
//
// Across nodes (a group with `per_node` ranks in each of n / per_node nodes) collectives are
// hierarchical: an all-reduce is a reduce-scatter inside each node, an all-reduce of S / per_node
// across nodes (every rank on its own adapter, in parallel), then an all-gather inside the node;
// reduce-scatter and all-gather are their halves of that. An all-to-all sends (n - per_node) / n of
// S over the slower link and (per_node - 1) / n inside the node, at once.
#pragma once

#include "engine/note.hpp"
#include "lang/ir/device.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine::parallel {

// One link as the collectives use it.
struct LinkModel {
  std::string name;           // "nvlink"
  double bandwidth = 0.0;     // B/s, one direction, as the datasheet gives it
  double efficiency = 1.0;    // the fraction of it large collectives reach
  double latency_s = 0.0;     // alpha, per step
  double effective() const { return bandwidth * efficiency; }
};

// A system as the parallel model sees it: nodes of `node_size` devices on `intra`, joined by `inter`.
struct Topology {
  int devices = 1;               // system.count
  int node_size = 0;             // 0: one node, however many devices a strategy uses
  LinkModel intra;
  LinkModel inter;
  double step_overhead_s = 0.0;  // per training step, from the .hw
  std::vector<int> torus;        // system.torus: the one fabric is a torus of these dimensions
  std::vector<Note> notes;   // defaults the .hw left to the engine
  // Devices per node for a strategy of `devices` devices.
  int node_devices(int devices) const { return node_size > 0 ? node_size : devices; }
};

// The topology of a .hw system: its node link and the link between nodes (system.node_interconnect and
// system.interconnect), or, without nodes, the one link `link_name` (empty: system.interconnect, else
// nvlink, else pcie) for every device. A link without an efficiency is taken at its datasheet figure, a
// missing latency at default_link_latency(); both are noted. Throws SimulationError when a link is
// missing and `need_link` is true.
Topology topology_of(const ir::Device& device, const std::string& link_name, bool need_link);

enum class Collective { AllReduce, ReduceScatter, AllGather, AllToAll, PointToPoint };
enum class Algorithm { Ring, Tree };
std::string_view collective_name(Collective c);   // "all-reduce", ...

// nccl-tests' bus-bandwidth factor: busbw = algbw * bus_factor.
double bus_factor(Collective c, int ranks);

// One collective on one link (every rank on `link`). 0 for one rank; the tree applies to all-reduce
// only (others are ring whatever `algorithm` says).
double flat_seconds(Collective c, double bytes, int ranks, const LinkModel& link, Algorithm algorithm);
// The faster algorithm NCCL would pick for `c` on one link.
double best_flat_seconds(Collective c, double bytes, int ranks, const LinkModel& link);

// A group of ranks: `per_node` of them share a node (per_node >= ranks: the group is inside one node).
struct Group {
  int ranks = 1;
  int per_node = 1;
};

// Steps of one pass (a reduce-scatter) over `ranks` ranks of a torus: sum_i (d_i - 1) over the whole
// dimensions the group takes in order, or ranks - 1 (one ring) when it is no product of them.
int torus_steps(int ranks, const std::vector<int>& torus);

// A collective over a group, hierarchical when the group spans nodes (see the header comment).
double collective_seconds(Collective c, double bytes, Group group, const Topology& topology);

// nccl-tests' bus bandwidth of a collective of `bytes` that took `seconds`.
double bus_bandwidth(Collective c, double bytes, int ranks, double seconds);

}  // namespace ridge::engine::parallel
