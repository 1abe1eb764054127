// The engine's entry point: a network and a device in, a Report out. A pure function: no I/O.
//
//   engine::Report r = engine::simulate(net, device, {.batch = 64, .precision = ir::Precision::FP16});
#pragma once

#include "engine/fusion.hpp"
#include "engine/report.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"
#include "lang/ir/runtime.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>
#include <memory>
#include <optional>
#include <string_view>

namespace ridge::engine {

// The training set-up (docs/language-models.md and docs/counting.md): what an optimizer step updates and keeps.
enum class Optimizer { SgdMomentum, Adam, AdamW };
enum class Recompute { None, Selective, Full };   // selective: attention only (Korthikanti et al. 2022)
std::string_view optimizer_name(Optimizer o);     // "sgd", "adam", "adamw"
std::optional<Optimizer> optimizer_from_name(std::string_view name);
std::string_view recompute_name(Recompute r);     // "none", "selective", "full"
std::optional<Recompute> recompute_from_name(std::string_view name);
// How the network's image tensors lie in memory on a GPU. Channels-last (NHWC) is what tensor-core
// convolutions read, and what TensorRT, DeepLearningExamples' mixed-precision runs and `calibrate` use;
// channels-first (NCHW, PyTorch's default contiguous format) makes the library transpose around every
// tensor-core convolution (OpCost::nchw_forward).
enum class MemoryFormat { ChannelsLast, ChannelsFirst };
std::string_view memory_format_name(MemoryFormat f);   // "nhwc", "nchw"
std::optional<MemoryFormat> memory_format_from_name(std::string_view name);   // also "channels_last", "contiguous"

struct Options {
  std::int64_t batch = 1;
  ir::Precision precision = ir::Precision::FP32;
  Optimizer optimizer = Optimizer::SgdMomentum;
  // Mixed precision: an fp32 master copy of the weights beside the compute-precision ones, optimizer
  // states in fp32, gradients in the compute precision. Default: on below 4-byte precisions.
  std::optional<bool> master_weights = std::nullopt;
  Recompute recompute = Recompute::None;
  // Weight-only quantisation for inference (int8: 1, int4: 0.5 bytes per weight; compute stays in
  // `precision`). Default: the precision's width.
  std::optional<double> weight_bytes = std::nullopt;
  // The GPU kernel model (timing.hpp): micro where the device describes its microarchitecture.
  KernelModel kernel_model = KernelModel::Micro;
  // The software stack it runs under (issue #35, engine/runtime.hpp); none: eager PyTorch as the
  // network and the device describe it. Shared: a sweep copies Options per point.
  std::shared_ptr<const ir::Runtime> runtime = nullptr;
  // 2:4 structured sparsity of the weights at inference (engine/sparsity.hpp); the device must declare it.
  bool sparsity = false;
  MemoryFormat memory_format = MemoryFormat::ChannelsLast;
};

// The largest batch simulate() accepts: far beyond any real one, and small enough that a count
// overflowing 2^53 is a network problem, reported as such.
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 24;

// Throws SimulationError: batch outside [1, kMaxBatch], a device without bandwidth or without a peak
// for the precision, PPP outside (0, 1], counts beyond 2^53 (the range where doubles are exact), or a
// malformed network (no layers, inputs that are not earlier layers).
Report simulate(const ir::Network& network, const ir::Device& device, const Options& options);

// A simulation in two halves. The workload is what does not depend on the device: every layer's costs
// at one batch and precision, the optimizer's update, the memory the network needs. Timing it on a
// device gives the Report. simulate() above is the two in a row; a sweep computes each workload once
// and times it on every device. A Workload refers to its network, which must outlive it.
struct Workload {
  const ir::Network* network = nullptr;
  Options options;
  // Every layer's costs, each distinct one kept once: a network repeats its blocks, and a 1,400-layer
  // decoder's costs held per layer were most of what a simulation wrote to memory. cost(id) is layer
  // id's; cost_of[id] its index in `costs`.
  std::vector<OpCost> costs;
  std::vector<std::uint32_t> cost_of;
  const OpCost& cost(std::size_t layer) const { return costs[cost_of[layer]]; }
  // What a device may change about a layer's costs (Group::adds), so that timing a group that none of
  // them touch reads nothing of its kilobyte OpCost beyond what the group's record copies.
  enum Adds : std::uint8_t {
    kConversions = 1,      // nchw_forward or nchw_backward: channels-first layout conversions
    kEagerKernels = 2,     // bias_*, indices_forward or copy_*: eager PyTorch's kernels beside the layer's
    kNarrowInput = 4,      // narrow_input: off the matrix units on a GPU
    kUnitStride1x1 = 8,    // unit_stride_1x1: outside oneDNN on a CPU
  };
  std::vector<bool> recomputed;            // per layer: run again in backward (selective recomputation)
  // Per layer: the activation bytes kept for its backward without recomputation (LayerRow::saved_bytes).
  std::vector<double> saved_bytes;
  // Per layer: how far the forward's live activations rise above their earlier peak while it runs
  // (the sum is the peak): the heap a step must grow, and fault in afresh where the allocator has
  // trimmed it since the last step (FreshMemory::heap_seconds).
  std::vector<double> activation_growth;
  // Per layer: the L2 an inference forward needs for its activations never to reach DRAM (l2_spans in
  // simulate.cpp). A value's span is what the forward brings into L2 (the bytes written and the weights
  // read) from the layer that writes it to the last that reads it; a layer's is the largest span of
  // the values it reads and writes. Where it fits a GPU's L2, the value's reads hit L2, and its lines,
  // once freed, are rewritten by the next value the allocator places there before they are evicted:
  // the layer moves only its weights through DRAM (the kernel model only; infinity where the value is
  // the network's input or its result, which the host writes and reads).
  std::vector<double> l2_span;
  // Per layer: its inference forward with those values taken out of its DRAM traffic (the reads of its
  // inputs and the write of its output, as far as the pass counts them; weights, a KV cache and values
  // made inside the layer stay).
  std::vector<PassCost> l2_forward;
  // The distinct GEMM shapes of every layer's passes (PassGemms::ids index it): a network repeats its
  // blocks, so a device plans each shape once per simulation, not once per layer.
  std::vector<kernels::Gemm> gemms;
  // Layers whose timing depends on nothing that differs (equal costs, heap growth and recomputation):
  // a device times each group once and counts it `size` times.
  struct Group {
    std::size_t first = 0;   // the group's first layer (its costs stand for all)
    double size = 0;         // layers in the group
    // What timing the group on a device reads, copied here from the first layer's entries above so
    // that a device's loop reads one array in order (a sweep's timing loop is bound by the cache lines
    // it touches, not by its arithmetic): its cost's index, class, flags and passes, and its
    // row kernel, whether it is a fused attention, and its l2_span, l2_forward, activation_growth and
    // recomputation.
    std::uint32_t cost = 0;
    ir::OpClass op_class = ir::OpClass::DataMovement;
    bool matrix_unit = false, sparse = false, recomputed = false, flash = false;
    std::uint8_t adds = 0;
    PassCost forward, forward_train, backward, l2_forward;
    kernels::RowKernel rows_forward;
    double l2_span = 0, activation_growth = 0;
  };
  std::vector<Group> groups;               // in the order of their first layers
  std::vector<std::uint32_t> group_of;     // per layer: its index in `groups`
  fusion::Plan fusion;                     // the runtime's kernels (engine/fusion.hpp); empty: one per layer
  PassCost update;                         // the optimizer step
  Totals counts;                           // the device-independent totals: parameters, FLOPs, bytes, memory
  double fixed_train_bytes = 0.0;          // training memory that does not grow with the batch
  int parameterised_layers = 0;
  bool mixed = false;                      // fp32 master weights and optimizer states
};
Workload workload(const ir::Network& network, const Options& options);

// Layers: the per-layer rows and the notes, as simulate() gives them; Totals: the totals alone (the
// same numbers), for sweeps.
enum class Detail { Layers, Totals };
// `plans`: GEMM plans kept between calls (a sweep's); null: each call plans its GEMMs afresh.
Report simulate(const Workload& workload, const ir::Device& device, Detail detail = Detail::Layers,
                kernels::PlanCache* plans = nullptr);

// Many configurations of one network: each (batch, precision) workload computed once, then timed on
// every device asked for. totals() equals simulate(network, device, {batch, precision, ...}).totals.
// A Sweep refers to its network, which must outlive it (a temporary cannot be given).
class Sweep {
 public:
  explicit Sweep(const ir::Network& network, Options options = {});
  explicit Sweep(ir::Network&&, Options = {}) = delete;
  Totals totals(const ir::Device& device, std::int64_t batch, ir::Precision precision);

 private:
  const ir::Network& network_;
  Options options_;
  std::map<std::pair<std::int64_t, ir::Precision>, Workload> workloads_;
  kernels::PlanCache plans_;
};

// The memory a network's activations need at inference: the peak, over the topological order, of the
// bytes of values still to be read (views share their base's storage). Exposed for tests and reports.
double peak_live_activation_bytes(const ir::Network& network, std::int64_t batch, ir::Precision precision);

}  // namespace ridge::engine
