// A parallel training strategy and its step: the one place the step's formulas live (Megatron-LM:
// Shoeybi et al. 2019, Narayanan et al. SC'21; ZeRO: Rajbhandari et al. 2020; activation memory split
// as Korthikanti et al. 2022 split it). Devices are ranked tensor-parallel fastest, then data, then pipeline
// (Megatron's order), so a tensor-parallel group fills a node first.
//
// Per micro-batch on the slowest pipeline stage (L/P blocks, plus the embedding or the LM head):
//   forward   t_f = L/P * (split/T + replicated/(T if SP else 1)) + outside/T
//               + L/P * 2 all-reduce(s m h w) over T     (SP: 2 all-gather + 2 reduce-scatter)
//               + v * p2p(s m h w / T) when P > 1      (Megatron's scatter/gather of activations)
//   backward  t_b = the same with backward times, + recomputation (full: the forward again, its 2
//               collectives too; selective: the attention core), + 2 (full: 4) collectives
// The step (1F1B, interleaved over v virtual stages, m_count = B / (D m) micro-batches):
//   pipeline  = (m_count + (P-1)/v) * (t_f + t_b);  bubble fraction (P-1) / (v m_count)
//   data      = gradients (params on the device x gradient width) reduced over D in 25 MB buckets:
//               all-reduce (ZeRO 0), reduce-scatter + all-gather of the weights (ZeRO 1, 2),
//               + 2 all-gathers of the weights per micro-batch (ZeRO 3). With --overlap the buckets
//               run under the last micro-batch's backward and only what exceeds it (at least the
//               last bucket) is exposed; ZeRO-3's gathers hide under compute.
//   step      = pipeline + exposed data-parallel communication + optimizer update on the device's
//               share + the system's per-step overhead
// Memory per device: weights, gradients and optimizer states of the device's parameters (sharded
// over D by ZeRO stage 3, 2 and 1 respectively) and activations (simulate()'s saved values, split by
// tensor and sequence parallelism as Korthikanti et al. split them) for the micro-batches in flight
// on the first stage: min(P, m_count) of L/P layers, times 1 + (P-1)/(P v) under interleaving; or the
// last stage's, with the LM head's logits, where that is larger.
#pragma once

#include "engine/parallel/collectives.hpp"
#include "engine/parallel/transformer.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace ridge::engine::parallel {

struct Strategy {
  int tensor = 1;
  int pipeline = 1;
  int data = 1;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1;
  int interleave = 1;                 // virtual pipeline stages per device
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
  int zero = 0;                       // ZeRO stage 0..3
  bool overlap = false;               // data-parallel communication overlapped with compute
  int devices() const { return tensor * pipeline * data; }
  std::int64_t micro_batches() const { return global_batch / (static_cast<std::int64_t>(data) * micro_batch); }
};

// "T2 P4 D8 m1 v2 SP selective ZeRO-1"
std::string describe(const Strategy& s);

// Throws SimulationError, naming what does not divide: heads by T, layers by P v, the global batch by
// D m, micro-batches by P under interleaving; T or P above 1 on a network that is not a transformer;
// sequence parallelism without T > 1; interleaving without P > 1; a ZeRO stage outside 0..3.
void check(const Strategy& s, const TransformerShape& shape);

// The time of each kind of collective in one step.
enum class Traffic { TensorParallel, PipelineP2P, DataParallel, ZeroGather, Count };
std::string_view traffic_name(Traffic t);   // "tensor_parallel", "pipeline_p2p", "data_parallel", "zero3_gather"
struct CollectiveUse {
  Collective kind = Collective::AllReduce;
  double bytes = 0.0;          // per call, nccl-tests' size
  int ranks = 1;
  double seconds = 0.0;        // per call
  double calls = 0.0;          // per step, on one device
  double exposed_s = 0.0;      // per step, on the critical path
};

struct Memory {
  double weights = 0.0, gradients = 0.0, optimizer = 0.0, activations = 0.0;
  double total() const { return weights + gradients + optimizer + activations; }
};

struct StepResult {
  Strategy strategy;
  std::int64_t micro_batches = 1;
  double forward_s = 0.0;       // t_f, per micro-batch on the slowest stage, communication included
  double backward_s = 0.0;      // t_b
  double pipeline_s = 0.0;
  double bubble_s = 0.0;
  double bubble_fraction = 0.0;
  double data_parallel_exposed_s = 0.0;   // data-parallel and ZeRO communication not hidden
  double update_s = 0.0;
  double overhead_s = 0.0;
  double step_s = 0.0;
  double samples_per_s = 0.0;
  double tokens_per_s = 0.0;    // 0 for networks without a token sequence
  double mfu = 0.0;             // model FLOPs / (step x devices x peak)
  double hardware_flops_per_device_s = 0.0;   // with recomputation, as Megatron-LM counts its TFLOP/s
  Memory memory;
  double memory_capacity = 0.0; // B per device; 0 when the device gives none
  bool fits = true;
  std::array<CollectiveUse, static_cast<std::size_t>(Traffic::Count)> traffic{};
};

// The step of a checked strategy, from the profile of its micro-batch (profile.micro_batch must be
// s.micro_batch). `memory_capacity` 0: no limit.
StepResult evaluate(const Strategy& s, const MicroBatchProfile& profile, const TransformerShape& shape,
                    const Topology& topology, double memory_capacity);

}  // namespace ridge::engine::parallel
