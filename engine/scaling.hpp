// Data-parallel training over N identical devices: the one place its formulas live (DESIGN.md,
// "Timing models"). Each device holds a full copy of the network, runs forward and backward on its
// share of the batch, the gradients are summed by a ring all-reduce over the link between devices,
// and every device then runs the optimizer update on its own copy.
//
//   ring all-reduce   t_ar = 2(N-1)/N * S / link_bw + 2(N-1) * alpha      (S = gradient bytes)
//   step (no overlap) t = t_fwd + t_bwd + t_ar + t_update
//   step (overlap)    t = t_fwd + max(t_bwd, t_ar) + t_update   (buckets start reducing as backward
//                     produces gradients; the model lets the whole reduction hide under backward)
//   throughput        = global batch / t;  efficiency = throughput(N) / (N * throughput(1))
//   comm share        = exposed communication / t;  epoch = ceil(dataset / global batch) * t
//
// Strong scaling keeps the global batch and splits it (per device ceil(B/N): the slowest device sets
// the pace); weak scaling keeps the per-device batch, so the global batch is N*B.
#pragma once

#include "engine/report.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

enum class Scaling { Strong, Weak };
std::string_view scaling_name(Scaling s);   // "strong", "weak"

// The link the gradients travel over, as the .hw gives it (bandwidth one direction).
struct LinkUsed {
  std::string name;                // "nvlink"
  double bandwidth = 0.0;          // B/s, one direction
  double latency_s = 0.0;          // alpha, per message
  bool latency_default = false;    // the .hw gives no latency: kDefaultLinkLatency was used
  double efficiency = 1.0;         // the fraction of the bandwidth collectives reach (link.NAME.efficiency; 1 when absent)
};

// Per-message latency assumed where a .hw gives none (why: NCCL's small-message ring steps cost a few
// microseconds on NVLink/PCIe/InfiniBand, tens on TCP ethernet). Reported as a default when used.
double default_link_latency(std::string_view link_name);

// The link named `name`, or (name empty) the device's system.interconnect, else nvlink, else pcie,
// else the first link it has. Throws SimulationError when the device has no such link.
LinkUsed choose_link(const ir::Device& device, const std::string& name);

// Ring all-reduce of `bytes` over `devices` devices: 0 for one device. The formula is the collectives
// module's (engine/parallel/collectives.hpp), at `link_bandwidth` as reached.
double ring_allreduce_seconds(double bytes, int devices, double link_bandwidth, double latency_s);

// One device count's figures.
struct ScalingPoint {
  int devices = 1;
  std::int64_t global_batch = 1;
  std::int64_t per_device_batch = 1;
  double forward_s = 0.0;        // PALEO training-mode forward at the per-device batch
  double backward_s = 0.0;
  double update_s = 0.0;
  double compute_s = 0.0;        // forward + backward + update
  double allreduce_s = 0.0;      // the whole ring all-reduce
  double exposed_comm_s = 0.0;   // the part of it not hidden under backward
  double step_s = 0.0;
  double throughput = 0.0;       // samples/s, global
  double comm_share = 0.0;       // exposed_comm_s / step_s
  double efficiency = 1.0;       // throughput / (devices * throughput at one device)
  double speedup = 1.0;          // throughput / throughput at one device
  std::optional<std::int64_t> steps_per_epoch;
  std::optional<double> epoch_s;
  Report per_device;             // the simulation of one device at per_device_batch
};

// The step of one device count, from a one-device Report at the per-device batch. `efficiency` and
// `speedup` are left at 1: they need the one-device baseline (see scale()).
ScalingPoint combine(const Report& per_device, int devices, std::int64_t global_batch, double gradient_bytes,
                     const LinkUsed& link, bool overlap, std::optional<std::int64_t> dataset_size);

struct ScalingOptions {
  std::int64_t batch = 1;                  // global batch (strong) or per-device batch (weak)
  ir::Precision precision = ir::Precision::FP32;
  std::vector<int> devices{1};             // device counts to report, ascending; 1 is added if absent
  std::string link;                        // empty: choose_link's default
  Scaling scaling = Scaling::Strong;
  bool overlap = false;
  std::optional<std::int64_t> dataset_size;   // samples per epoch
};

struct ScalingReport {
  std::string network;
  std::string device;              // display name
  std::string device_id;
  ir::Precision precision = ir::Precision::FP32;
  Scaling scaling = Scaling::Strong;
  bool overlap = false;
  LinkUsed link;
  double params = 0.0;
  double gradient_bytes = 0.0;     // params * bytes per element at the precision
  std::optional<std::int64_t> dataset_size;
  std::vector<ScalingPoint> points;   // ascending device counts, the first being 1
  std::vector<Note> notes;
};

// Simulates every device count. Throws SimulationError for device counts below 1, a strong-scaling
// batch smaller than the largest device count, a missing link (with more than one device), and
// anything simulate() throws.
ScalingReport scale(const ir::Network& network, const ir::Device& device, const ScalingOptions& options);

// 1, 2, 4, ... up to n, and n itself: the rows a "--devices 8" table shows.
std::vector<int> device_counts_up_to(int n);

}  // namespace ridge::engine
