#include "engine/parallel/strategy.hpp"

#include "engine/timing.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::parallel {

namespace {

// PyTorch DistributedDataParallel's default bucket (bucket_cap_mb = 25): gradients are reduced in
// buckets of this size as backward produces them.
constexpr double kBucketBytes = 25.0 * 1024 * 1024;

// Far beyond any machine, and small enough that T x P x D stays an int.
constexpr std::int64_t kMaxDevices = std::int64_t{1} << 20;

std::string str(std::int64_t v) { return std::to_string(v); }

CollectiveUse& use(StepResult& r, Traffic t) { return r.traffic[static_cast<std::size_t>(t)]; }

}  // namespace

std::string describe(const Strategy& s) {
  std::string d = "T" + str(s.tensor) + " P" + str(s.pipeline) + " D" + str(s.data) + " m" + str(s.micro_batch);
  if (s.interleave > 1) d += " v" + str(s.interleave);
  if (s.sequence_parallel) d += " SP";
  if (s.recompute != Recompute::None) d += " " + std::string(recompute_name(s.recompute));
  if (s.zero > 0) d += " ZeRO-" + str(s.zero);
  return d;
}

std::string_view traffic_name(Traffic t) {
  switch (t) {
    case Traffic::TensorParallel: return "tensor_parallel";
    case Traffic::PipelineP2P: return "pipeline_p2p";
    case Traffic::DataParallel: return "data_parallel";
    case Traffic::ZeroGather: return "zero_gather";
    case Traffic::Count: break;
  }
  return "?";
}

void check(const Strategy& s, const TransformerShape& shape) {
  if (s.tensor < 1 || s.pipeline < 1 || s.data < 1)
    throw SimulationError("tensor, pipeline and data parallel sizes must be at least 1");
  const std::int64_t devices = std::int64_t{s.tensor} * s.pipeline * s.data;
  if (devices > kMaxDevices)
    throw SimulationError("T x P x D = " + str(devices) + " devices; a strategy may use at most " + str(kMaxDevices));
  if (s.micro_batch < 1 || s.global_batch < 1) throw SimulationError("micro-batch and global batch must be at least 1");
  if (s.interleave < 1) throw SimulationError("--interleave must be at least 1");
  if (s.zero < 0 || s.zero > 3) throw SimulationError("--zero takes a ZeRO stage: 0, 1, 2 or 3; got " + str(s.zero));
  if (!shape.is_transformer() && (s.tensor > 1 || s.pipeline > 1 || s.sequence_parallel))
    throw SimulationError("the network has no attention layer, so no transformer blocks to split: only data "
                          "parallelism applies (--tensor-parallel 1 --pipeline-parallel 1)");
  if (shape.is_transformer()) {
    if (shape.heads % s.tensor != 0)
      throw SimulationError("--tensor-parallel " + str(s.tensor) + " does not divide the " + str(shape.heads) +
                            " attention heads; Megatron splits whole heads over the tensor-parallel ranks");
    if (shape.hidden % s.tensor != 0)
      throw SimulationError("--tensor-parallel " + str(s.tensor) + " does not divide the hidden size " + str(shape.hidden));
    if (shape.layers % (s.pipeline * s.interleave) != 0)
      throw SimulationError("the " + str(shape.layers) + " layers do not divide into --pipeline-parallel " + str(s.pipeline) +
                            " x --interleave " + str(s.interleave) + " = " + str(s.pipeline * s.interleave) + " stages");
  }
  const std::int64_t per_step = static_cast<std::int64_t>(s.data) * s.micro_batch;
  if (s.global_batch % per_step != 0)
    throw SimulationError("the global batch " + str(s.global_batch) + " does not divide into --data-parallel " + str(s.data) +
                          " x --micro-batch " + str(s.micro_batch) + " = " + str(per_step) + " samples per micro-batch step");
  if (s.interleave > 1 && s.pipeline < 2) throw SimulationError("--interleave needs --pipeline-parallel 2 or more");
  if (s.interleave > 1 && s.micro_batches() % s.pipeline != 0)
    throw SimulationError("the interleaved schedule needs the micro-batches per step (" + str(s.micro_batches()) +
                          ") to be a multiple of --pipeline-parallel " + str(s.pipeline));
  if (s.sequence_parallel && s.tensor < 2) throw SimulationError("--sequence-parallel needs --tensor-parallel 2 or more");
  if (s.sequence_parallel && shape.seq % s.tensor != 0)
    throw SimulationError("--sequence-parallel: the sequence of " + str(shape.seq) + " tokens does not divide by --tensor-parallel " +
                          str(s.tensor));
}

StepResult evaluate(const Strategy& s, const MicroBatchProfile& p, const TransformerShape& shape, const Topology& topo,
                    double memory_capacity) {
  StepResult r;
  r.strategy = s;
  const int N = s.devices();
  const double T = s.tensor, P = s.pipeline, D = s.data, v = s.interleave;
  const double m_count = static_cast<double>(s.micro_batches());
  r.micro_batches = s.micro_batches();
  const int node = topo.node_devices(N);

  // Compute on the slowest stage: its blocks, and the embedding or the LM head, whichever is heavier.
  const double L_stage = shape.is_transformer() ? shape.layers / P : 0.0;
  const double replicated_split = s.sequence_parallel ? T : 1.0;
  const double f_block = p.block_split.forward / T + p.block_replicated.forward / replicated_split;
  const double b_block = p.block_split.backward / T + p.block_replicated.backward / replicated_split;
  const double recompute_block = s.recompute == Recompute::Full        ? f_block
                                 : s.recompute == Recompute::Selective ? p.block_attention_forward / T
                                                                       : 0.0;
  PassPair outside{p.before.forward + p.after.forward, p.before.backward + p.after.backward};
  double outside_params = p.before_params + p.after_params;
  if (s.pipeline > 1) {
    const bool first_heavier = p.before.forward + p.before.backward >= p.after.forward + p.after.backward;
    outside = first_heavier ? p.before : p.after;
    outside_params = std::max(p.before_params, p.after_params);
  }
  const double f_compute = L_stage * f_block + outside.forward / T;
  const double b_compute = L_stage * (b_block + recompute_block) + outside.backward / T;

  // Tensor parallelism: two all-reduces of the micro-batch's activations per block and pass (or, with
  // sequence parallelism, two all-gathers and two reduce-scatters: the same bytes on the wire).
  const double width = p.weight_bytes_per_param;   // the compute precision's bytes per element
  const double activation = static_cast<double>(shape.seq) * s.micro_batch * shape.hidden * width;
  const Group tp_group{s.tensor, std::min(s.tensor, node)};
  CollectiveUse& tp = use(r, Traffic::TensorParallel);
  tp.kind = s.sequence_parallel ? Collective::ReduceScatter : Collective::AllReduce;
  tp.bytes = activation;
  tp.ranks = s.tensor;
  tp.seconds = s.tensor > 1 && shape.is_transformer() ? collective_seconds(tp.kind, activation, tp_group, topo) : 0.0;
  const double tp_per_block_pass = (s.sequence_parallel ? 4.0 : 2.0) * tp.seconds;   // SP: RS and AG take the same time
  const double backward_collectives = s.recompute == Recompute::Full ? 2.0 : 1.0;
  const double tp_f = L_stage * tp_per_block_pass;
  const double tp_b = L_stage * tp_per_block_pass * backward_collectives;

  // Pipeline: each micro-batch's activations cross each stage boundary forward, and their gradients
  // backward, once per virtual stage; split over the tensor-parallel ranks (each on its own adapter).
  CollectiveUse& p2p = use(r, Traffic::PipelineP2P);
  p2p.kind = Collective::PointToPoint;
  p2p.bytes = activation / T;
  p2p.ranks = 2;
  // Stages are laid out one after another over the ranks (tensor ranks innermost, then data): some
  // boundary crosses a node wherever all the ranks do not fit in one node, and the slowest send paces
  // the pipeline.
  const bool crosses_nodes = T * D * P > node;
  p2p.seconds = s.pipeline > 1 ? collective_seconds(Collective::PointToPoint, p2p.bytes, {2, crosses_nodes ? 1 : 2}, topo) : 0.0;
  const double p2p_each_pass = v * p2p.seconds;

  r.forward_s = f_compute + tp_f + p2p_each_pass;
  r.backward_s = b_compute + tp_b + p2p_each_pass;
  const double slots = m_count + (P - 1.0) / v;
  r.pipeline_s = slots * (r.forward_s + r.backward_s);
  r.bubble_s = (P - 1.0) / v * (r.forward_s + r.backward_s);
  r.bubble_fraction = (P - 1.0) / (v * m_count);
  // What one device runs in a step: every micro-batch's collectives (the bubble's slots run none).
  tp.calls = tp.seconds > 0 ? m_count * (s.sequence_parallel ? 4.0 : 2.0) * L_stage * (1.0 + backward_collectives) : 0.0;
  tp.exposed_s = m_count * (tp_f + tp_b);
  p2p.calls = s.pipeline > 1 ? 2.0 * v * m_count : 0.0;
  p2p.exposed_s = m_count * 2.0 * p2p_each_pass;

  // Data parallelism and ZeRO over the device's parameters.
  const double params_device = (p.block_params * L_stage + outside_params) / T;
  const double gradient_bytes = params_device * p.gradient_bytes_per_param;
  const double weight_bytes = params_device * width;
  const Group dp_group{s.data, s.tensor >= node ? 1 : std::min(s.data, node / s.tensor)};
  const double buckets = std::max(1.0, std::ceil(gradient_bytes / kBucketBytes));
  CollectiveUse& dp = use(r, Traffic::DataParallel);
  dp.kind = s.zero == 0 ? Collective::AllReduce : Collective::ReduceScatter;
  dp.bytes = gradient_bytes / buckets;
  dp.ranks = s.data;
  dp.seconds = s.data > 1 ? collective_seconds(dp.kind, dp.bytes, dp_group, topo) : 0.0;
  // ZeRO-2 and 3 keep only their shard of the gradients, so every micro-batch's gradients are
  // reduce-scattered as its backward makes them (DeepSpeed's stage 2 and 3 under gradient
  // accumulation); plain data parallelism and ZeRO-1 accumulate and reduce once a step.
  const double reduce_rounds = s.zero >= 2 ? m_count : 1.0;
  dp.calls = s.data > 1 ? reduce_rounds * buckets : 0.0;
  const double reduce_s = dp.calls * dp.seconds;
  CollectiveUse& gather = use(r, Traffic::ZeroGather);
  gather.kind = Collective::AllGather;
  gather.bytes = weight_bytes / buckets;
  gather.ranks = s.data;
  gather.seconds = s.data > 1 && s.zero > 0 ? collective_seconds(Collective::AllGather, gather.bytes, dp_group, topo) : 0.0;
  // ZeRO 1 and 2 gather the updated weights once a step. ZeRO 3 keeps only its shard after the update
  // and gathers the weights before every micro-batch's forward and again before its backward
  // (Rajbhandari et al. 2020, section 7.2.2): 2 m gathers, none after the update.
  const double gathers_per_step = s.zero == 0 ? 0.0 : s.zero < 3 ? 1.0 : 2.0 * m_count;
  gather.calls = gather.seconds > 0 ? gathers_per_step * buckets : 0.0;
  if (s.overlap) {
    // Buckets reduce under their micro-batch's backward (the last one's, where gradients accumulate);
    // the last bucket of each round always waits for it.
    const double round_s = reduce_s / reduce_rounds;
    dp.exposed_s = reduce_s > 0 ? reduce_rounds * std::max(dp.seconds, round_s - b_compute) : 0.0;
    // The weights' gathers run ahead of the compute that needs them (prefetch).
    const double gather_s = gather.calls * gather.seconds;
    const double hidden_under = s.zero == 3 ? m_count * (f_compute + b_compute) : f_compute;
    gather.exposed_s = gather_s > 0 ? std::max(gather.seconds, gather_s - hidden_under) : 0.0;
  } else {
    dp.exposed_s = reduce_s;
    gather.exposed_s = gather.calls * gather.seconds;
  }
  r.data_parallel_exposed_s = dp.exposed_s + gather.exposed_s;

  const double optimizer_share = s.zero >= 1 ? D : 1.0;
  r.update_s = p.params > 0 ? p.update_s * params_device / p.params / optimizer_share : 0.0;
  r.overhead_s = topo.step_overhead_s;
  r.step_s = r.pipeline_s + r.data_parallel_exposed_s + r.update_s + r.overhead_s;

  const double samples = static_cast<double>(s.global_batch);
  r.samples_per_s = r.step_s > 0 ? samples / r.step_s : 0.0;
  r.tokens_per_s = r.samples_per_s * p.tokens_per_sample;
  const double per_micro = static_cast<double>(s.micro_batch);
  const double model_flops = (p.flops_forward + p.flops_backward) * samples / per_micro;
  const double recomputed = s.recompute == Recompute::Full        ? p.flops_forward
                            : s.recompute == Recompute::Selective ? p.attention_flops_forward
                                                                  : 0.0;
  const double hardware_flops = model_flops + recomputed * samples / per_micro;
  if (r.step_s > 0 && p.peak_flops > 0) r.mfu = model_flops / (r.step_s * N * p.peak_flops);
  if (r.step_s > 0) r.hardware_flops_per_device_s = hardware_flops / (r.step_s * N);

  // Memory per device.
  r.memory.weights = weight_bytes / (s.zero >= 3 ? D : 1.0);
  r.memory.gradients = gradient_bytes / (s.zero >= 2 ? D : 1.0);
  r.memory.optimizer = params_device * p.optimizer_bytes_per_param / optimizer_share;
  if (shape.is_transformer()) {
    // simulate()'s saved activations, split as tensor and sequence parallelism split them (at T = P = 1
    // without recomputation, exactly simulate()'s total). Per block on a device:
    //   none       split / T + repeated / (T with SP, else 1)
    //   selective  the same without the attention's scores (run again in backward)
    //   full       the value entering the block (/ T with SP), and once per device one block's whole
    //              set, rebuilt while its backward runs
    // The first stage keeps min(P, micro-batches) micro-batches in flight (1 + (P-1)/(P v) more under
    // interleaving) and the embedding's values; the last stage one, and the LM head's (logits split T
    // ways). A device's figure is the larger of the two.
    const double block_none = p.block_saved_split / T + p.block_saved_replicated / replicated_split;
    const double per_block = s.recompute == Recompute::Full        ? p.block_input_bytes / replicated_split
                             : s.recompute == Recompute::Selective ? block_none - p.block_saved_scores / T
                                                                   : block_none;
    const double working = s.recompute == Recompute::Full ? block_none : 0.0;
    const double in_flight = s.pipeline > 1 ? std::min(P, m_count) : 1.0;
    const double interleaving = s.interleave > 1 ? 1.0 + (P - 1.0) / (P * v) : 1.0;
    const double after = p.after_saved_split / T + p.after_saved_replicated / replicated_split;
    const double first = (L_stage * per_block + p.before_saved) * in_flight * interleaving + working;
    const double last = L_stage * per_block + after + working;
    r.memory.activations = s.pipeline > 1 ? std::max(first, last) : first + after;
  } else {
    r.memory.activations = p.saved_activation_bytes;
  }
  r.memory_capacity = memory_capacity;
  r.fits = memory_capacity <= 0 || r.memory.total() <= memory_capacity;
  return r;
}

}  // namespace ridge::engine::parallel
