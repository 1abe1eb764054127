// Hand-worked cases for the parallel model's formulas (issue #33): data-parallel all-reduce volume, ZeRO
// stages' collectives per step, tensor-parallel collectives per layer with and without sequence
// parallelism, the slowest stage's micro-batch time, the pipeline bubble, activation memory on the first
// stage (interleaved or not), the optimizer's share and MFU, and the hierarchical collectives left
// unpinned by parallel_test.cpp. Each case feeds evaluate() a hand-made profile of round numbers on a
// loss-free 100 GB/s link with no latency, so every expected figure follows from the published formula
// in the comment, never from the program's output.
#include "engine/parallel/strategy.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using namespace ridge::engine::parallel;
using Catch::Matchers::WithinRel;

namespace {

constexpr double kLink = 100e9;   // B/s, efficiency 1, latency 0: a collective is its bytes over the link

// One link for every rank, one node however many devices (node_size 0).
Topology one_link() {
  Topology t;
  t.devices = 1024;
  t.intra = {"link", kLink, 1.0, 0.0};
  t.inter = t.intra;
  return t;
}

// 16 ranks in two nodes of 8: 100 GB/s inside a node, 10 GB/s between, no latency.
Topology two_nodes() {
  Topology t;
  t.devices = 16;
  t.node_size = 8;
  t.intra = {"fast", 100e9, 1.0, 0.0};
  t.inter = {"slow", 10e9, 1.0, 0.0};
  return t;
}

const CollectiveUse& traffic(const StepResult& r, Traffic t) { return r.traffic[static_cast<std::size_t>(t)]; }

// A network that is not a transformer: 100 M parameters before any block, mixed-precision Adam
// (2 B weights, 2 B gradients, 12 B master weights and states: ZeRO section 3.1), forward 10 ms and
// backward 20 ms a micro-batch, the optimizer step 8 ms.
MicroBatchProfile flat_profile() {
  MicroBatchProfile p;
  p.before = {10e-3, 20e-3};
  p.params = p.before_params = 100e6;
  p.weight_bytes_per_param = 2;
  p.gradient_bytes_per_param = 2;
  p.optimizer_bytes_per_param = 12;
  p.update_s = 8e-3;
  return p;
}

// A transformer of 8 blocks, 8 heads, s = 1000 tokens, h = 1000: one micro-batch's activation s b h at
// 2 B is 2e6 B. Per block: 4 ms forward / 8 ms backward split by tensor parallelism, 1 ms / 2 ms
// replicated (norms, residual adds), the attention core 1 ms; the embedding 2 ms / 4 ms and 20 M
// parameters, the LM head 3 ms / 6 ms and 20 M; 10 M parameters a block: 120 M in all. Saved per
// block, as Korthikanti et al. count a GPT block (s b h = 1e6, 5 a s^2 b = 40e6): 24 s b h + 5 a s^2 b
// split, 10 s b h repeated, the scores 5 a s^2 b, the block's input 2 s b h; nothing outside the blocks.
TransformerShape gpt_shape() {
  TransformerShape s;
  s.layers = 8;
  s.heads = 8;
  s.seq = 1000;
  s.hidden = 1000;
  s.vocab = 1000;
  return s;
}

MicroBatchProfile gpt_profile() {
  MicroBatchProfile p;
  p.micro_batch = 1;
  p.block_split = {4e-3, 8e-3};
  p.block_replicated = {1e-3, 2e-3};
  p.block_attention_forward = 1e-3;
  p.block_saved_split = 24e6 + 40e6;
  p.block_saved_replicated = 10e6;
  p.block_saved_scores = 40e6;
  p.block_input_bytes = 2e6;
  p.before = {2e-3, 4e-3};
  p.after = {3e-3, 6e-3};
  p.block_params = 10e6;
  p.before_params = 20e6;
  p.after_params = 20e6;
  p.params = 120e6;
  p.flops_forward = 1e12;
  p.flops_backward = 2e12;
  p.attention_flops_forward = 0.1e12;
  p.update_s = 16e-3;
  p.weight_bytes_per_param = 2;
  p.gradient_bytes_per_param = 2;
  p.optimizer_bytes_per_param = 12;
  p.peak_flops = 100e12;
  p.tokens_per_sample = 1000;
  return p;
}

Strategy strategy(int tensor, int pipeline, int data, std::int64_t global_batch) {
  Strategy s;
  s.tensor = tensor;
  s.pipeline = pipeline;
  s.data = data;
  s.global_batch = global_batch;
  return s;
}

StepResult step(const Strategy& s, const MicroBatchProfile& p = gpt_profile(), const TransformerShape& shape = gpt_shape(),
                const Topology& topology = one_link()) {
  check(s, shape);
  return evaluate(s, p, shape, topology, 0);
}

}  // namespace

TEST_CASE("data parallelism ring all-reduces the gradients in 25 MiB buckets, 2(n-1)/n of each bucket per rank") {
  // 100 M parameters x 2 B = 200e6 B of gradients; PyTorch DDP's buckets of 25 MiB = 26,214,400 B:
  // ceil(200e6 / 26,214,400) = ceil(7.63) = 8 buckets of 25e6 B.
  // nccl-tests PERFORMANCE.md: a ring all-reduce of S bytes over n ranks sends 2(n-1)/n S per rank;
  // n = 4: 1.5 x 25e6 = 37.5e6 B a bucket, 375 us at 100 GB/s, 3 ms for the 8.
  const StepResult r = step(strategy(1, 1, 4, 4), flat_profile(), TransformerShape{});
  const CollectiveUse& dp = traffic(r, Traffic::DataParallel);
  CHECK(dp.kind == Collective::AllReduce);
  CHECK(dp.ranks == 4);
  CHECK(dp.bytes == 25e6);
  CHECK(dp.calls == 8);
  CHECK_THAT(dp.seconds * kLink, WithinRel(37.5e6, 1e-12));
  CHECK_THAT(dp.exposed_s, WithinRel(3e-3, 1e-12));
  CHECK(traffic(r, Traffic::ZeroGather).calls == 0);
  // Without ZeRO every rank runs the whole optimizer step (8 ms). The step: forward 10 + backward 20
  // + all-reduce 3 + update 8 = 41 ms.
  CHECK_THAT(r.update_s, WithinRel(8e-3, 1e-12));
  CHECK_THAT(r.step_s, WithinRel(41e-3, 1e-12));
  // Gradients under one bucket go in one call: 10 M parameters = 20e6 B < 26,214,400 B.
  MicroBatchProfile small = flat_profile();
  small.params = small.before_params = 10e6;
  const StepResult one_bucket = step(strategy(1, 1, 4, 4), small, TransformerShape{});
  const CollectiveUse& one = traffic(one_bucket, Traffic::DataParallel);
  CHECK(one.calls == 1);
  CHECK(one.bytes == 20e6);
}

TEST_CASE("ZeRO-1 and ZeRO-2 reduce-scatter the gradients and all-gather the weights once a step, as much as an all-reduce") {
  // ZeRO (Rajbhandari et al. 2020), section 7.2.1: P_os and P_os+g reduce-scatter the gradients (Psi)
  // and all-gather the updated parameters (Psi): 2 Psi, the baseline all-reduce's volume.
  // Per bucket (n = 4): (n-1)/n x 25e6 = 18.75e6 B, 187.5 us; 8 buckets each way: 1.5 ms + 1.5 ms = 3 ms,
  // the all-reduce's 3 ms above. The optimizer states are sharded: each rank updates 1/4: 2 ms.
  for (const int zero : {1, 2}) {
    CAPTURE(zero);
    Strategy s = strategy(1, 1, 4, 4);
    s.zero = zero;
    const StepResult r = step(s, flat_profile(), TransformerShape{});
    const CollectiveUse& dp = traffic(r, Traffic::DataParallel);
    const CollectiveUse& gather = traffic(r, Traffic::ZeroGather);
    CHECK(dp.kind == Collective::ReduceScatter);
    CHECK(dp.bytes == 25e6);
    CHECK(dp.calls == 8);
    CHECK_THAT(dp.seconds * kLink, WithinRel(18.75e6, 1e-12));
    CHECK(gather.kind == Collective::AllGather);
    CHECK(gather.bytes == 25e6);
    CHECK(gather.calls == 8);
    CHECK_THAT(gather.seconds * kLink, WithinRel(18.75e6, 1e-12));
    CHECK_THAT(r.data_parallel_exposed_s, WithinRel(3e-3, 1e-12));
    CHECK_THAT(r.update_s, WithinRel(2e-3, 1e-12));
  }
}

TEST_CASE("ZeRO-3 reduce-scatters the gradients and all-gathers the weights in buckets of their size") {
  // ZeRO section 7.2.2: P_os+g+p reduce-scatters the gradients (Psi) and all-gathers the parameters in
  // forward and again in backward (Psi each), and not after the update: each rank keeps its shard.
  // Sizes: 8 buckets of 25e6 B each way, 18.75e6 B per rank. One micro-batch (4 samples over D = 4):
  // 8 reduce-scatters, 2 x 8 = 16 gathers.
  Strategy s = strategy(1, 1, 4, 4);
  s.zero = 3;
  const StepResult r = step(s, flat_profile(), TransformerShape{});
  const CollectiveUse& dp = traffic(r, Traffic::DataParallel);
  const CollectiveUse& gather = traffic(r, Traffic::ZeroGather);
  CHECK(dp.kind == Collective::ReduceScatter);
  CHECK(dp.bytes == 25e6);
  CHECK(dp.calls == 8);
  CHECK(gather.kind == Collective::AllGather);
  CHECK(gather.bytes == 25e6);
  CHECK(gather.calls == 16);
  CHECK_THAT(gather.seconds * kLink, WithinRel(18.75e6, 1e-12));
  // ZeRO-3 shards weights, gradients and optimizer states: 100e6 x (2 + 2 + 12) / 4 = 400e6 B.
  CHECK_THAT(r.memory.weights + r.memory.gradients + r.memory.optimizer, WithinRel(400e6, 1e-12));
  CHECK_THAT(r.update_s, WithinRel(2e-3, 1e-12));
}

TEST_CASE("with gradient accumulation ZeRO-1 reduces once a step, ZeRO-2 and 3 every micro-batch, ZeRO-3 gathers twice a micro-batch") {
  // 16 samples over D = 4 in micro-batches of 1: m = 4. ZeRO-1 accumulates the whole gradient and
  // reduce-scatters it once (8 buckets); ZeRO-2 and 3 hold only their shard of the gradients, so each
  // micro-batch's are reduce-scattered (DeepSpeed's stages 2 and 3): 4 x 8 = 32. ZeRO-1 and 2 gather the
  // updated weights once (8); ZeRO-3 before every micro-batch's forward and backward: 2 x 4 x 8 = 64.
  // Without overlap, ZeRO-2 exposes 32 x 187.5 us + 8 x 187.5 us = 7.5 ms.
  struct Expect {
    int zero;
    double reduces, gathers;
  };
  for (const Expect e : {Expect{1, 8, 8}, Expect{2, 32, 8}, Expect{3, 32, 64}}) {
    CAPTURE(e.zero);
    Strategy s = strategy(1, 1, 4, 16);
    s.zero = e.zero;
    const StepResult r = step(s, flat_profile(), TransformerShape{});
    CHECK(r.micro_batches == 4);
    CHECK(traffic(r, Traffic::DataParallel).calls == e.reduces);
    CHECK(traffic(r, Traffic::ZeroGather).calls == e.gathers);
    if (e.zero == 2) CHECK_THAT(r.data_parallel_exposed_s, WithinRel(7.5e-3, 1e-12));
  }
}

TEST_CASE("with overlap only the last gradient bucket and the last weight gather are exposed") {
  // strategy.hpp: the buckets reduce under the last micro-batch's backward (20 ms), and the gathers run
  // ahead of the forward (10 ms); what exceeds them, and at least one call, is exposed.
  // ZeRO-0: max(375 us, 3 ms - 20 ms) = 375 us.
  Strategy s = strategy(1, 1, 4, 4);
  s.overlap = true;
  CHECK_THAT(step(s, flat_profile(), TransformerShape{}).data_parallel_exposed_s, WithinRel(375e-6, 1e-12));
  // ZeRO-1: reduce-scatters max(187.5 us, 1.5 ms - 20 ms), gathers max(187.5 us, 1.5 ms - 10 ms): 375 us.
  s.zero = 1;
  CHECK_THAT(step(s, flat_profile(), TransformerShape{}).data_parallel_exposed_s, WithinRel(375e-6, 1e-12));
  // A backward shorter than the reduction leaves the rest exposed: 1 ms of backward, ZeRO-0:
  // 3 ms - 1 ms = 2 ms.
  MicroBatchProfile fast = flat_profile();
  fast.before = {10e-3, 1e-3};
  s.zero = 0;
  CHECK_THAT(step(s, fast, TransformerShape{}).data_parallel_exposed_s, WithinRel(2e-3, 1e-12));
}

TEST_CASE("tensor parallelism: 2 all-reduces of s b h per layer and pass, sequence parallelism 2 all-gathers and 2 reduce-scatters") {
  // Megatron-LM (Shoeybi et al. 2019), section 3: the f and g operators, one all-reduce in the attention
  // and one in the MLP, forward and backward. T = 2, 8 layers, 4 micro-batches, P = 1:
  // 2 x 2 x 8 x 4 = 128 all-reduces of s b h = 1000 x 1 x 1000 x 2 B = 2e6 B; ring, n = 2:
  // 2 (1/2) x 2e6 = 2e6 B a rank, 20 us; 128 x 20 us = 2.56 ms.
  const StepResult plain = step(strategy(2, 1, 1, 4));
  const CollectiveUse& ar = traffic(plain, Traffic::TensorParallel);
  CHECK(ar.kind == Collective::AllReduce);
  CHECK(ar.bytes == 2e6);
  CHECK(ar.calls == 128);
  CHECK_THAT(ar.seconds, WithinRel(20e-6, 1e-12));
  CHECK_THAT(ar.exposed_s, WithinRel(2.56e-3, 1e-12));
  // Korthikanti et al. 2022, section 4.2.2: sequence parallelism turns each all-reduce into a
  // reduce-scatter and an all-gather of the same s b h: 4 a layer and pass, 256 in all, each
  // (1/2) x 2e6 B = 10 us: the same 2.56 ms on the wire.
  Strategy sp = strategy(2, 1, 1, 4);
  sp.sequence_parallel = true;
  const StepResult seq = step(sp);
  const CollectiveUse& rs = traffic(seq, Traffic::TensorParallel);
  CHECK(rs.kind == Collective::ReduceScatter);
  CHECK(rs.bytes == 2e6);
  CHECK(rs.calls == 256);
  CHECK_THAT(rs.seconds, WithinRel(10e-6, 1e-12));
  CHECK_THAT(rs.exposed_s, WithinRel(2.56e-3, 1e-12));
  // Full recomputation runs the forward's 4 again in backward: 12 a layer, 384 in all.
  sp.recompute = engine::Recompute::Full;
  CHECK(traffic(step(sp), Traffic::TensorParallel).calls == 384);
}

TEST_CASE("a micro-batch on the slowest stage: split work over T, replicated work over T only with SP, the heavier end, collectives, p2p") {
  // T = 2, P = 2, D = 1, batch 8 in micro-batches of 1: m = 8, 4 layers a stage.
  // Forward (strategy.hpp): 4 x (4 ms / 2 + 1 ms) = 12 ms; the LM head (3 + 6 ms) outweighs the
  // embedding (2 + 4 ms): 3 ms / 2 = 1.5 ms; 4 x 2 all-reduces x 20 us = 160 us; Megatron's scatter/gather
  // p2p of s b h / T = 1e6 B: 10 us. t_f = 13.67 ms.
  // Backward: 4 x (8 ms / 2 + 2 ms) = 24 ms; 6 ms / 2 = 3 ms; 160 us; 10 us. t_b = 27.17 ms.
  const StepResult r = step(strategy(2, 2, 1, 8));
  CHECK(r.micro_batches == 8);
  CHECK_THAT(r.forward_s, WithinRel(13.67e-3, 1e-12));
  CHECK_THAT(r.backward_s, WithinRel(27.17e-3, 1e-12));
  const CollectiveUse& p2p = traffic(r, Traffic::PipelineP2P);
  CHECK(p2p.kind == Collective::PointToPoint);
  CHECK(p2p.bytes == 1e6);
  CHECK_THAT(p2p.seconds, WithinRel(10e-6, 1e-12));
  // Narayanan et al. SC'21, section 2.2.1: 1F1B takes (m + P - 1) slots of t_f + t_b = 9 x 40.84 ms,
  // of which (P - 1) are the bubble: a fraction (P - 1) / m = 1/8.
  CHECK_THAT(r.pipeline_s, WithinRel(9 * 40.84e-3, 1e-12));
  CHECK_THAT(r.bubble_s, WithinRel(40.84e-3, 1e-12));
  CHECK(r.bubble_fraction == 1.0 / 8);

  // Sequence parallelism splits the replicated 1 ms too: 4 x (2 + 0.5) = 10 ms, + 1.5 ms, + 4 x 4 x 10 us
  // = 160 us, + 10 us: t_f = 11.67 ms.
  Strategy sp = strategy(2, 2, 1, 8);
  sp.sequence_parallel = true;
  CHECK_THAT(step(sp).forward_s, WithinRel(11.67e-3, 1e-12));
  // Selective recomputation runs the attention core again in backward: + 4 x 1 ms / 2 = 2 ms.
  Strategy selective = strategy(2, 2, 1, 8);
  selective.recompute = engine::Recompute::Selective;
  CHECK_THAT(step(selective).backward_s, WithinRel(29.17e-3, 1e-12));
  // Full recomputation runs the whole forward again, its all-reduces too: + 4 x 3 ms + 160 us.
  Strategy full = strategy(2, 2, 1, 8);
  full.recompute = engine::Recompute::Full;
  CHECK_THAT(step(full).backward_s, WithinRel(39.33e-3, 1e-12));
}

TEST_CASE("the interleaved pipeline's bubble is (P-1)/(v m) and each virtual stage sends its own p2p") {
  // Narayanan et al. SC'21, section 2.2.2: v = 2 chunks a device cut the bubble to (P - 1) / (v m).
  // P = 2, m = 8: 1/16; the pipeline (m + (P - 1)/v) (t_f + t_b) = 8.5 x (t_f + t_b). Each micro-batch
  // crosses v = 2 stage boundaries a device each way: t_f = 13.66 + 2 x 10 us = 13.68 ms, t_b 27.18 ms.
  Strategy s = strategy(2, 2, 1, 8);
  s.interleave = 2;
  const StepResult r = step(s);
  CHECK_THAT(r.forward_s, WithinRel(13.68e-3, 1e-12));
  CHECK_THAT(r.backward_s, WithinRel(27.18e-3, 1e-12));
  CHECK(r.bubble_fraction == 1.0 / 16);
  CHECK_THAT(r.pipeline_s, WithinRel(8.5 * 40.86e-3, 1e-12));
  // P = 8 of the 8 layers, v = 1, m = 4: fewer micro-batches than stages, the bubble 7/4 of the work.
  CHECK(step(strategy(1, 8, 1, 4)).bubble_fraction == 7.0 / 4);
}

TEST_CASE("activations per device are Korthikanti et al.'s per layer, times the first stage's layers and micro-batches in flight") {
  // Korthikanti et al. 2022, Table 2, s = 1000, b = 1, h = 1000, a = 8, t = 2 (s b h = 1e6, 5 a s / h = 40):
  //   no recomputation           s b h (10 + 24/t + 5 a s / (h t)) = (10 + 12 + 20) s b h = 42e6 B a layer
  //   sequence parallel          s b h (34 + 5 a s / h) / t = 74 / 2 s b h            = 37e6
  //   selective                  s b h (10 + 24/t)                                      = 22e6
  //   selective + sequence par.  34 s b h / t                                           = 17e6
  //   full                       2 s b h                                                =  2e6
  // Section 4.2.3: with 1F1B the first stage holds P micro-batches of its L/P layers: P = 2, 4 layers,
  // 2 in flight: 8 layers' worth. Full recomputation also rebuilds one block while its backward runs
  // (the paper leaves that out): 64e6 / 2 + 10e6 = 42e6 once.
  using engine::Recompute;
  const auto activations = [](bool sp, Recompute recompute, int interleave = 1) {
    Strategy s = strategy(2, 2, 1, 8);
    s.sequence_parallel = sp;
    s.recompute = recompute;
    s.interleave = interleave;
    return step(s).memory.activations;
  };
  CHECK(activations(false, Recompute::None) == 8 * 42e6);
  CHECK(activations(true, Recompute::None) == 8 * 37e6);
  CHECK(activations(false, Recompute::Selective) == 8 * 22e6);
  CHECK(activations(true, Recompute::Selective) == 8 * 17e6);
  CHECK(activations(false, Recompute::Full) == 8 * 2e6 + 42e6);
  // Interleaving v = 2 chunks: the first stage's memory grows by 1 + (P - 1)/(P v) = 1 + 1/4.
  CHECK_THAT(activations(true, Recompute::None, 2), WithinRel(1.25 * 8 * 37e6, 1e-12));
  CHECK_THAT(activations(true, Recompute::Selective, 2), WithinRel(1.25 * 8 * 17e6, 1e-12));
  // Fewer micro-batches than stages: P = 4 (2 layers a stage), m = 2: 2 in flight, 4 layers' worth.
  CHECK(step(strategy(2, 4, 1, 2)).memory.activations == 4 * 42e6);
  // No pipeline: gradient accumulation keeps one micro-batch of all 8 layers.
  CHECK(step(strategy(2, 1, 1, 8)).memory.activations == 8 * 42e6);
}

TEST_CASE("a stage holds its blocks' and its heavier end's parameters over T, and the step adds update, overhead and MFU") {
  // T = 2, P = 2: 4 blocks x 10 M + max(20 M, 20 M) = 60 M parameters on the stage, 30 M a device:
  // weights 30e6 x 2 B = 60e6, gradients 60e6, master weights and Adam states 30e6 x 12 = 360e6.
  Topology topology = one_link();
  topology.step_overhead_s = 1e-3;
  const StepResult r = step(strategy(2, 2, 1, 8), gpt_profile(), gpt_shape(), topology);
  CHECK(r.memory.weights == 60e6);
  CHECK(r.memory.gradients == 60e6);
  CHECK(r.memory.optimizer == 360e6);
  // The update over the device's 30 M of the 120 M parameters: 16 ms / 4 = 4 ms. The step: pipeline
  // 367.56 ms + no data parallelism + 4 ms + the 1 ms overhead = 372.56 ms.
  CHECK_THAT(r.update_s, WithinRel(4e-3, 1e-12));
  CHECK_THAT(r.step_s, WithinRel(372.56e-3, 1e-12));
  // 8 samples a step of 1000 tokens; MFU = model FLOPs / (step x devices x peak): 8 micro-batches of
  // (1 + 2) TFLOP = 24 TFLOP over 0.37256 s x 4 x 100 TFLOP/s.
  CHECK_THAT(r.samples_per_s, WithinRel(8 / 372.56e-3, 1e-12));
  CHECK_THAT(r.tokens_per_s, WithinRel(8000 / 372.56e-3, 1e-12));
  CHECK_THAT(r.mfu, WithinRel(24e12 / (372.56e-3 * 4 * 100e12), 1e-12));
  // Megatron-LM counts hardware FLOPs with the recomputation: selective adds the attention's 0.1 TFLOP
  // a micro-batch, 24.8 TFLOP per step. The backward grows by 2 ms (above): the step by 9 x 2 ms.
  Strategy selective = strategy(2, 2, 1, 8);
  selective.recompute = engine::Recompute::Selective;
  const StepResult sel = step(selective, gpt_profile(), gpt_shape(), topology);
  CHECK_THAT(sel.step_s, WithinRel(390.56e-3, 1e-12));
  CHECK_THAT(sel.hardware_flops_per_device_s, WithinRel(24.8e12 / (390.56e-3 * 4), 1e-12));
}

TEST_CASE("across nodes all-gather is its two halves and all-to-all sends its off-node share over the slower link") {
  // 16 ranks, 8 a node, S = 1.6e9 B; NVLink-like 100 GB/s inside a node, 10 GB/s between, no latency.
  const Topology t = two_nodes();
  // All-gather: inside the node (7/8) x 1.6e9 / 100e9 = 14 ms, then S/8 = 0.2e9 over the 2 nodes,
  // (1/2) x 0.2e9 / 10e9 = 10 ms: 24 ms.
  CHECK_THAT(collective_seconds(Collective::AllGather, 1.6e9, {16, 8}, t), WithinRel(24e-3, 1e-12));
  // All-to-all: (16 - 8)/16 of S leaves the node, 0.8e9 / 10e9 = 80 ms, while 7/16 stays, 7 ms: 80 ms.
  CHECK_THAT(collective_seconds(Collective::AllToAll, 1.6e9, {16, 8}, t), WithinRel(80e-3, 1e-12));
  // Point-to-point inside a node, then between nodes: S / B.
  CHECK_THAT(collective_seconds(Collective::PointToPoint, 1.6e9, {2, 2}, t), WithinRel(16e-3, 1e-12));
  CHECK_THAT(collective_seconds(Collective::PointToPoint, 1.6e9, {2, 1}, t), WithinRel(160e-3, 1e-12));
  // nccl-tests' bus factors: 2(n-1)/n for all-reduce, (n-1)/n for the others, 1 for send/receive.
  CHECK(bus_factor(Collective::AllReduce, 4) == 1.5);
  CHECK(bus_factor(Collective::ReduceScatter, 4) == 0.75);
  CHECK(bus_factor(Collective::AllGather, 4) == 0.75);
  CHECK(bus_factor(Collective::AllToAll, 4) == 0.75);
  CHECK(bus_factor(Collective::PointToPoint, 4) == 1.0);
}

TEST_CASE("pipeline sends cross nodes wherever the stages' ranks span more than one node") {
  // Stages take T x D consecutive ranks each. T = 2, D = 1, P = 8 on nodes of 8: stage 3 (ranks 6-7)
  // sends to stage 4 (ranks 8-9) across the node boundary, and the slowest send paces the pipeline,
  // although T x D = 2 is less than a node. The activation of a micro-batch, s b h x 2 B = 1000 x 1 x
  // 1000 x 2 = 2e6 B, split over T = 2 adapters: 1e6 B at 10 GB/s between nodes = 100 us (not 10 us at
  // 100 GB/s inside one). P = 4 (8 ranks, one node) sends inside it.
  const Topology t = two_nodes();
  Strategy across = strategy(2, 8, 1, 8);
  CHECK_THAT(traffic(step(across, gpt_profile(), gpt_shape(), t), Traffic::PipelineP2P).seconds, WithinRel(100e-6, 1e-12));
  Strategy inside = strategy(2, 4, 1, 8);
  CHECK_THAT(traffic(step(inside, gpt_profile(), gpt_shape(), t), Traffic::PipelineP2P).seconds, WithinRel(10e-6, 1e-12));
}

TEST_CASE("on a torus a collective is a ring per dimension: the ring's bytes in sum (d_i - 1) steps") {
  // A TPU v5p 4x4x4 slice as hw/tpu-v5p-pod-4x4x4.hw describes it: 600 GB/s each way per chip, 5 us a step.
  const ir::Device slice = lang::load_device(std::string(RIDGE_HW_DIR) + "/tpu-v5p-pod-4x4x4.hw");
  const Topology t = topology_of(slice, "", true);
  REQUIRE(t.torus == std::vector<int>{4, 4, 4});
  const double b = 600e9, alpha = 5e-6, s = 1e9;
  // All 64 chips: 2 x 63/64 x S / B and 2 x (3 + 3 + 3) steps, where one ring would take 2 x 63.
  CHECK_THAT(collective_seconds(Collective::AllReduce, s, {64, 64}, t), WithinRel(2 * 63.0 / 64 * s / b + 18 * alpha, 1e-12));
  CHECK_THAT(collective_seconds(Collective::ReduceScatter, s, {64, 64}, t), WithinRel(63.0 / 64 * s / b + 9 * alpha, 1e-12));
  // Large messages reach the chip's ICI bandwidth as nccl-tests' bus bandwidth, as a ring does.
  const double large = 1e12;
  CHECK_THAT(bus_bandwidth(Collective::AllReduce, large, 64, collective_seconds(Collective::AllReduce, large, {64, 64}, t)),
             WithinRel(b, 1e-4));   // the 18 steps of latency aside
  // A small all-reduce is latency-bound: 18 steps instead of a ring's 126.
  const double small = 1e3;
  CHECK(collective_seconds(Collective::AllReduce, small, {64, 64}, t) < 20 * alpha);
  // Groups take whole dimensions in order: 16 ranks a 4x4 plane (6 steps), 8 ranks a 4x2 (3 + 1), 4 ranks
  // one ring of 4; 6 ranks factor into no dimensions and run as one ring (5 steps).
  CHECK(torus_steps(16, t.torus) == 6);
  CHECK(torus_steps(8, t.torus) == 4);
  CHECK(torus_steps(4, t.torus) == 3);
  CHECK(torus_steps(6, t.torus) == 5);
  CHECK(torus_steps(64, {8, 8, 16}) == 7 + 7 + 0);
  CHECK(torus_steps(1024, {8, 8, 16}) == 7 + 7 + 15);
  CHECK_THAT(collective_seconds(Collective::AllGather, s, {16, 16}, t), WithinRel(15.0 / 16 * s / b + 6 * alpha, 1e-12));
}
