// The timing models: which peak a layer gets, the roofline bound, and PALEO's time. Every timing
// formula of Ridge is in timing.cpp.
//
//   roofline  t = max(F / peak, B / bw)                       bound = the larger term
//   PALEO     t = Br / (ppp_m * bw) + F / (ppp_c * peak) + Bw / (ppp_m * bw) + kernels * launch_overhead
//               + fresh (Bw / first_touch, where Bw is a block above the allocator's mmap threshold)
//
// With 0 < ppp <= 1 and launch overhead >= 0, PALEO's time is never below the roofline bound
// (Br/bw + F/peak + Bw/bw >= max(F/peak, B/bw)); lookups reject PPP outside (0, 1].
#pragma once

#include "engine/op_costs.hpp"

#include "lang/ir/device.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace ridge::engine {

// A device or option the models cannot work with (no bandwidth, no peak for the precision, PPP > 1...).
struct SimulationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A simulation error of the network, batch, precision or training set-up, whatever the device (counts
// past 2^53, a batch out of range): reported against the network, never prefixed with a device file.
struct WorkloadError : SimulationError {
  using SimulationError::SimulationError;
};

// The peak a layer is timed against and where it came from.
struct PeakUsed {
  double flops_per_s = 0.0;
  ir::Precision precision = ir::Precision::FP32;   // the precision whose figure was used
  bool matrix = false;                            // matrix unit (tensor core) or vector unit
  std::string describe() const;                   // "matrix tf32", "vector fp32"
  friend bool operator==(const PeakUsed&, const PeakUsed&) = default;
};

// The fallback chain, explicit:
//   classes on the matrix units (ir::OpClassRow::matrix_unit: matmul): matrix peak of the precision,
//   if the device has one;
//   then (every op) the vector peak of the precision;
//   (an MX format: those two of its own, then of its element type: mxfp4's are fp4's)
//   then, for the reduced precisions (every one below fp32) only, the fp32 vector peak: a device
//   with no figure for them runs the op in fp32 at best (tf32 is a matrix-unit format).
// fp64 and fp32 have no further fallback. Throws SimulationError when the chain ends empty.
PeakUsed layer_peak(const ir::Device& device, ir::OpClass op_class, ir::Precision precision);

// The device's memory bandwidth (B/s). Throws SimulationError when the device gives none.
double bandwidth(const ir::Device& device);

// The PPP one pass of one layer is timed with.
struct Ppp {
  double compute = 1.0;
  double memory = 1.0;
  bool compute_default = true;   // true: a default, not the device's figure
  bool memory_default = true;
  friend bool operator==(const Ppp&, const Ppp&) = default;
};

// A PPP curve over op size read at `size`: linear in log(size) between two points; below the first
// point and above the last, the end point's fraction (nothing is extrapolated past what was measured
// or published). Calculon reads its tables as steps; interpolating avoids a jump in time where an op
// crosses a threshold by one FLOP.
double fraction_at(const ir::SizeCurve& curve, double size);

// The PPP of an op class and pass as the device states it, before the op's size is known: the
// device's entry for that pass, else its entry for both passes, else the default below. Each of
// compute and memory is looked up on its own, as a figure or as a curve over size. Refers to the
// device's curves: the device must outlive it.
struct PppRule {
  Ppp flat;                                     // the figures, where no curve is given
  const ir::SizeCurve* compute_curve = nullptr; // over the pass's FLOPs
  const ir::SizeCurve* memory_curve = nullptr;  // over the pass's bytes
  Ppp at(const PassCost& cost) const;           // the PPP of one pass of that size
};
PppRule ppp_rule(const ir::Device& device, ir::OpClass op_class, ir::Pass pass);
// ppp_rule(...).at(cost): the PPP of one pass of the op class on the device.
Ppp ppp(const ir::Device& device, ir::OpClass op_class, ir::Pass pass, const PassCost& cost = {});

// The defaults used before calibration: the class's row of ir::kOpClasses (its own default PPP, else
// its fallbacks'), the same for every pass. lang/ir/op_classes.hpp says why those values.
Ppp default_ppp(ir::OpClass op_class, ir::Pass pass);

// Seconds per kernel launch: the device's figure, else none (0 s), reported as a default.
struct LaunchOverhead {
  double seconds = 0.0;
  bool from_device = false;
};
LaunchOverhead launch_overhead(const ir::Device& device);

enum class Bound { None, Compute, Memory };   // None: a pass that does nothing (views)
std::string_view bound_name(Bound b);         // "-", "compute", "memory"

// Which model times a GPU's kernels. Micro: the kernel model from the device's microarchitecture
// (engine/kernels/), where the device file gives one; Flat: PALEO with one PPP per op class, as
// before issue #32 (kept for comparison, and the only model where a device gives no `arch.*`).
enum class KernelModel { Micro, Flat };
std::optional<KernelModel> kernel_model_from_name(std::string_view name);

// The times of one pass of one layer.
struct PassTime {
  double roofline_s = 0.0;
  double paleo_s = 0.0;
  Bound bound = Bound::None;
  double intensity = 0.0;   // FLOP/B; 0 when the pass moves no bytes
  double fresh_s = 0.0;     // the part of paleo_s spent faulting in fresh pages (FreshMemory)
  // The kernel model's account (KernelModel::Micro): whether it timed the pass's GEMMs, how many, and
  // the device time before the launch floor. (The plan of the largest is in the report's LayerRow: a
  // sweep computes millions of PassTimes, which stay small.)
  bool kernel_model = false;
  int gemms = 0;
  double device_s = 0.0;
  // The kernel model ran the pass from L2 (LayerTimer::time's `forward_from_l2`): its activations never
  // reached DRAM, and its roofline and intensity are over the traffic that did (its weights, a cache).
  bool in_l2 = false;
  friend bool operator==(const PassTime&, const PassTime&) = default;
};

// Fresh memory (ir::Device::first_touch, issue #16): a pass whose output is a block above the
// allocator's mmap threshold writes to pages the kernel must fault in and zero first, every time, so
// its written bytes cost Bw / first_touch more. A pass's written bytes are taken as one block (its
// output; weight gradients accumulate into buffers that persist). No term where the device gives no
// figures: the CUDA caching allocator, and a CPU that was not calibrated, keep their memory.
struct FreshMemory {
  double first_touch = 0.0;   // B/s; 0: no term
  double threshold = 0.0;     // B
  double seconds(const PassCost& cost) const {
    return first_touch > 0.0 && cost.bytes_written > threshold ? cost.bytes_written / first_touch : 0.0;
  }
  // Blocks below the threshold come from the heap, which glibc trims once a step has freed its
  // tensors (the free space at its top passes the trim threshold), so the next step grows it again
  // through fresh pages: each forward layer pays for how far it raises the live activations above
  // their earlier peak (`growth`; over a forward they sum to the peak), less its own output where
  // that is a block mapped on its own (charged above). In a training step the backward pays the
  // same growth again, where the layer's output gets a gradient: it allocates the activations'
  // gradients as the freed activations are trimmed from the top of the heap. Twice the growth is
  // still less than Python runs lose to the allocator: a lower bound. The measurements behind both
  // charges: docs/calibration.md ("Fresh memory") and docs/results/2026-11-24-cpu-calibration.md.
  double heap_seconds(double growth, const PassCost& forward) const {
    if (!(first_touch > 0.0)) return 0.0;
    const double own_block = forward.bytes_written > threshold ? std::min(growth, forward.bytes_written) : 0.0;
    return (growth - own_block) / first_touch;
  }
};
FreshMemory fresh_memory(const ir::Device& device);

PassTime time_pass(const PassCost& cost, const PeakUsed& peak, double bandwidth, const Ppp& ppp,
                   double launch_overhead_s, const FreshMemory& fresh = {});

// A GEMM-shaped pass timed by the kernel model (KernelModel::Micro): each GEMM's kernel from
// kernels::plan_gemm, the pass's bytes beyond the GEMMs' operands (a materialised softmax's scores,
// a bias) streamed at the facts' DRAM rate, the sum divided by the calibration factor `factor` (the
// class's compute PPP where the device gives one, else 1). The host launches kernels while the GPU
// runs earlier ones, so the pass takes the longer of the device time and its kernels' launch overhead.
// Never below the roofline.
// `plans` holds the plan of every GEMM the pass's ids name (the workload's distinct GEMMs, planned once);
// `largest`, where given, receives the plan of the pass's largest GEMM.
// `in_l2`: the pass's activations stay in L2 (LayerTimer::time): each GEMM takes the longer of its
// compute and L2 terms (its DRAM term, of operands now in L2, dropped), and the pass streams `cost`'s
// bytes (what still comes from DRAM: its weights) beside them.
PassTime time_gemm_pass(const PassCost& cost, const PassGemms& gemms, std::span<const kernels::GemmPlan* const> plans,
                        const kernels::GpuFacts& facts, const PeakUsed& peak, double bandwidth, double factor,
                        double launch_overhead_s, kernels::GemmPlan* largest = nullptr, bool in_l2 = false);

// The three passes of one layer (inference forward, training forward, backward), each by the model in
// force on the device: the kernel model for a GEMM-shaped layer where `facts` are given (its PPP, where
// the device gives one, the calibration factor on top); PALEO otherwise, its launch overhead overlapped
// with the GPU's work under the kernel model (`micro`) and added (the flat model, as PALEO has it).
struct LayerTimes {
  PassTime forward, forward_train, backward;
};
// Whether the streaming model (kernels/streaming.hpp) times an op class's kernels under the kernel
// model (its row's `streams`): elementwise, norms, pooling, reductions and copies. Depthwise
// convolutions stay PALEO's.
bool streams(ir::OpClass op_class);

// One pass of a streaming op under the kernel model: kernels::plan_stream's time, the PPP dividing its
// terms where the device calibrated one (stream_plan), the kernels' launches overlapping the GPU's work.
kernels::StreamPlan stream_plan(const PassCost& cost, const kernels::RowKernel& rows, const kernels::GpuFacts& facts,
                                const PeakUsed& peak, const Ppp& ppp);
PassTime time_stream_pass(const PassCost& cost, const kernels::RowKernel& rows, const kernels::GpuFacts& facts,
                          const PeakUsed& peak, double bw, const Ppp& ppp, double launch_s);

// A layer as one device runs it: the class it runs in (a narrow or a native 1x1 convolution moves off
// the matrix units) and its passes' costs with what the device's libraries run beside them (simulate()
// adds them); its GEMMs, fused attention and row kernels are the layer's own (`layer`). A few hundred
// bytes, where the layer's OpCost is a kilobyte: a sweep builds one per group of layers per device.
struct RunCost {
  const OpCost* layer = nullptr;
  ir::OpClass op_class = ir::OpClass::DataMovement;
  bool matrix_unit = false;
  bool flash = false;                           // layer->flash is set (read here, not there, for every layer)
  const kernels::RowKernel* rows = nullptr;     // the forward's row kernel: layer->rows_forward, or a copy of it
  PassCost forward, forward_train, backward;
  // The layer as it stands, nothing added.
  static RunCost of(const OpCost& c) {
    return {&c, c.op_class, c.matrix_unit, c.flash.has_value(), &c.rows_forward, c.forward, c.forward_train, c.backward};
  }
};

struct LayerTimer {
  double bandwidth = 0.0;
  double launch_s = 0.0;
  FreshMemory fresh;
  bool micro = false;                                // the kernel model is in force on this device
  const kernels::GpuFacts* facts = nullptr;          // the matrix units' facts; null: no GEMM is planned
  std::span<const kernels::GemmPlan* const> plans;   // the workload's distinct GEMMs, planned on `facts`
  // `largest`, where given, receives the plan of the forward's largest GEMM (when one was planned).
  // `forward_from_l2`, where given: the inference forward's activations (the values it reads and
  // writes) stay in the GPU's L2 (Workload::l2_span), and this is what it still moves through DRAM
  // (Workload::l2_forward); the kernel model only.
  LayerTimes time(const RunCost& cost, const PeakUsed& peak, const Ppp& forward, const Ppp& forward_train,
                  const Ppp& backward, std::optional<kernels::GemmPlan>* largest = nullptr,
                  const PassCost* forward_from_l2 = nullptr) const;
};

// Whether a measured time beats its pass's roofline time, which nothing real does: a timing error, or
// a peak or bandwidth figure that is wrong. The one judgement of it (the roofline plot flags such
// points; calibrate marks such layers). A time exactly on the roof, to rounding, is on it.
inline constexpr double kRoofTolerance = 1e-9;
inline bool beats_roofline(double measured_s, double roofline_s) { return measured_s * (1 + kRoofTolerance) < roofline_s; }

// PALEO's time of one pass from its two terms at 100 % of peak (F/P and B/BW):
//     t = F/(ppp_c·P) + B/(ppp_m·BW) + λ·kernels
// The formula's one statement: time_pass() and calibrate's fit (validate/fit.cpp) both call it.
inline double paleo_seconds(double compute_at_peak_s, double memory_at_peak_s, double compute_ppp, double memory_ppp,
                            double kernels, double launch_overhead_s) {
  return compute_at_peak_s / compute_ppp + memory_at_peak_s / memory_ppp + kernels * launch_overhead_s;
}

}  // namespace ridge::engine
