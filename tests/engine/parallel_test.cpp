// Parallel training (issue 15): collectives against nccl-tests' formulas, activation memory against
// Korthikanti et al. 2022, ZeRO's memory against Rajbhandari et al. 2020, the pipeline bubble, the
// strategy checks, and a search at GPT-3 scale. Every expected figure is worked by hand in the comments
// from the formula's source, not copied from the program's output.
#include "engine/parallel/plan.hpp"
#include "engine/parallel/schedule.hpp"
#include "engine/render/pipeline_trace.hpp"

#include "tests/engine/json_parse.hpp"
#include "tests/engine/parallel_fixtures.hpp"

#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace ridge;
using namespace ridge::engine::parallel;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

const std::string kHw = RIDGE_HW_DIR;
const std::string kModels = RIDGE_MODELS_DIR;

// DGX A100 figures (hw/dgx-a100-80gb.hw): NVLink 300 GB/s at 80 %, 5 us a step; HDR 25 GB/s at 96 %, 10 us.
const LinkModel kNvlink{"nvlink", 300e9, 0.8, 5e-6};
const LinkModel kHdr{"infiniband", 25e9, 0.96, 10e-6};
constexpr double kGiB = 1073741824.0;

Topology superpod() {
  Topology t;
  t.devices = 1120;
  t.node_size = 8;
  t.intra = kNvlink;
  t.inter = kHdr;
  return t;
}

// A small decoder: 4 blocks of hidden 64, 4 heads, 16 tokens.
ir::Network decoder(int layers = 4) {
  return lang::parse_network(
      "block layer(x) {\n"
      "  h = x -> layernorm\n"
      "  q, k, v = h -> linear(192) -> split(3, axis: 1)\n"
      "  x = add(x, attention(q, k, v, heads: 4, causal: true) -> linear(64))\n"
      "  return add(x, x -> layernorm -> linear(256) -> gelu -> linear(64))\n"
      "}\n"
      "network tiny_lm(seq_len = 16) {\n"
      "  input ids: [seq_len]\n"
      "  x = ids -> embedding(100, 64)\n"
      "  for i in 0 .. " + std::to_string(layers) + " { x = layer(x) }\n"
      "  return x -> layernorm -> linear(100, bias: false)\n"
      "}\n",
      "tiny_lm.net");
}

using testing::dgx;
using testing::mixed_adam;

// The engine's schedule of a plan's first strategy, as engine::run gives it to the trace.
PipelineSchedule schedule_of(const PlanReport& r) {
  const StepResult& s = r.strategies.front();
  return pipeline_schedule(s.strategy.pipeline, s.strategy.interleave, s.micro_batches, s.forward_s, s.backward_s);
}

}  // namespace

TEST_CASE("ring collectives take nccl-tests' bus-bandwidth formulas") {
  // nccl-tests PERFORMANCE.md: all-reduce busbw = algbw * 2(n-1)/n, so a ring all-reduce of S bytes on
  // n ranks takes 2(n-1)/n * S / B, plus one latency per ring step (2(n-1) of them).
  // S = 1 GiB, n = 8, B = 300 GB/s * 0.8 = 240 GB/s:
  //   1.75 * 1073741824 / 240e9 = 7.829368e-3 s, + 14 * 5 us = 7.899368e-3 s
  CHECK_THAT(flat_seconds(Collective::AllReduce, kGiB, 8, kNvlink, Algorithm::Ring), WithinRel(7.899368e-3, 1e-6));
  // Reduce-scatter and all-gather: (n-1)/n * S / B + (n-1) steps = 3.914684e-3 + 35 us
  CHECK_THAT(flat_seconds(Collective::ReduceScatter, kGiB, 8, kNvlink, Algorithm::Ring), WithinRel(3.949684e-3, 1e-6));
  CHECK_THAT(flat_seconds(Collective::AllGather, kGiB, 8, kNvlink, Algorithm::Ring), WithinRel(3.949684e-3, 1e-6));
  CHECK_THAT(flat_seconds(Collective::AllToAll, kGiB, 8, kNvlink, Algorithm::Ring), WithinRel(3.949684e-3, 1e-6));
  // Point-to-point: S / B + one latency = 4.473924e-3 + 5 us
  CHECK_THAT(flat_seconds(Collective::PointToPoint, kGiB, 2, kNvlink, Algorithm::Ring), WithinRel(4.478924e-3, 1e-6));
  // Double binary tree: 2 S / B + 2 ceil(log2 8) = 6 latencies = 8.947849e-3 + 30 us
  CHECK_THAT(flat_seconds(Collective::AllReduce, kGiB, 8, kNvlink, Algorithm::Tree), WithinRel(8.977849e-3, 1e-6));
  // One rank: nothing to do.
  CHECK(flat_seconds(Collective::AllReduce, kGiB, 1, kNvlink, Algorithm::Ring) == 0.0);
}

TEST_CASE("large all-reduces reach the link's bus bandwidth, small ones are latency-bound and go by tree") {
  // nccl-tests' busbw of a large all-reduce tends to the link's achievable bandwidth whatever n:
  // 8 GiB on 8 ranks: t = 1.75 * 8589934592 / 240e9 + 70 us = 0.0627049 s, busbw = 239.73 GB/s.
  const double big = 8 * kGiB;
  const double t = best_flat_seconds(Collective::AllReduce, big, 8, kNvlink);
  CHECK_THAT(bus_bandwidth(Collective::AllReduce, big, 8, t), WithinRel(239.73e9, 1e-4));
  // 8 bytes: ring 70 us of latency, tree 30 us: NCCL's tuner (and the model) takes the tree.
  const double small = best_flat_seconds(Collective::AllReduce, 8, 8, kNvlink);
  CHECK_THAT(small, WithinRel(30e-6 + 16 / 240e9, 1e-9));
  CHECK(bus_bandwidth(Collective::AllReduce, 8, 8, small) < 1e6);   // under 1 MB/s: latency, not bandwidth
}

TEST_CASE("an all-reduce across nodes is reduce-scatter inside, all-reduce across, all-gather inside") {
  // 16 ranks, 8 per node, S = 1 GiB:
  //   reduce-scatter in the node   0.875 * S / 240e9 + 7 * 5 us  = 3.949684e-3
  //   all-reduce of S/8 over 2 nodes on each GPU's own HDR adapter (24 GB/s):
  //                                2 * 1/2 * 134217728 / 24e9 + 2 * 10 us = 5.612405e-3
  //   all-gather in the node       = 3.949684e-3                       total 13.511773e-3
  const Topology t = superpod();
  CHECK_THAT(collective_seconds(Collective::AllReduce, kGiB, {16, 8}, t), WithinRel(13.511773e-3, 1e-6));
  // Inside one node it is the flat ring; one rank per node, the flat ring over InfiniBand.
  CHECK_THAT(collective_seconds(Collective::AllReduce, kGiB, {8, 8}, t), WithinRel(7.899368e-3, 1e-6));
  //   2 * 15/16 * S / 24e9 + 30 * 10 us = 0.083886 + 0.0003 = 0.084186
  CHECK_THAT(collective_seconds(Collective::AllReduce, kGiB, {16, 1}, t), WithinRel(0.0841864, 1e-5));
  // Reduce-scatter: its two halves, 3.949684e-3 + (1/2 * 134217728 / 24e9 + 10 us) = 6.755886e-3
  CHECK_THAT(collective_seconds(Collective::ReduceScatter, kGiB, {16, 8}, t), WithinRel(6.755886e-3, 1e-6));
}

TEST_CASE("ZeRO's memory per device is Rajbhandari et al.'s Figure 1") {
  // ZeRO, Figure 1: a 7.5 B-parameter model, mixed-precision Adam (K = 12), 64 data-parallel devices:
  // baseline (2 + 2 + K) psi = 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
  MicroBatchProfile p;
  p.params = p.before_params = 7.5e9;
  p.weight_bytes_per_param = 2;
  p.gradient_bytes_per_param = 2;
  p.optimizer_bytes_per_param = 12;
  const TransformerShape not_a_transformer;
  Strategy s;
  s.data = 64;
  s.global_batch = 64;
  const double expected[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  for (int zero = 0; zero <= 3; ++zero) {
    s.zero = zero;
    const StepResult r = evaluate(s, p, not_a_transformer, superpod(), 0);
    CAPTURE(zero);
    CHECK_THAT(r.memory.weights + r.memory.gradients + r.memory.optimizer, WithinRel(expected[zero], 1e-12));
  }
}

TEST_CASE("the pipeline bubble is (P-1)/(v m) of the micro-batches' time") {
  // Narayanan et al. SC'21, section 2.2: 1F1B takes (m + P - 1) micro-batch slots, the interleaved
  // schedule (m + (P - 1)/v). 4 blocks, P = 2, v = 2, batch 8 in micro-batches of 1: m = 8,
  // bubble fraction (2 - 1) / (2 * 8) = 1/16, step pipeline time (8 + 1/2) (t_f + t_b).
  Strategy s;
  s.pipeline = 2;
  s.interleave = 2;
  s.global_batch = 8;
  const PlanReport r = plan(decoder(), dgx(), mixed_adam(), s);
  const StepResult& step = r.strategies.front();
  CHECK(step.micro_batches == 8);
  CHECK(step.bubble_fraction == 1.0 / 16);
  CHECK_THAT(step.pipeline_s, WithinRel(8.5 * (step.forward_s + step.backward_s), 1e-12));
  CHECK_THAT(step.bubble_s, WithinRel(0.5 * (step.forward_s + step.backward_s), 1e-12));
  // Two point-to-point transfers (activations forward, gradients back) per virtual stage and
  // micro-batch, on one device: the bubble's slots send nothing.
  CHECK(step.traffic[static_cast<int>(Traffic::PipelineP2P)].calls == 2 * 2 * 8);
}

TEST_CASE("tensor parallelism adds two all-reduces per layer forward and two backward") {
  // Megatron-LM (Shoeybi et al. 2019), Figure 4: f and g operators, one all-reduce each in the
  // attention and the MLP, forward and backward: 4 per layer and micro-batch, of s b h elements.
  Strategy s;
  s.tensor = 2;
  s.global_batch = 4;
  const PlanReport r = plan(decoder(), dgx(), mixed_adam(), s);
  const CollectiveUse& tp = r.strategies.front().traffic[static_cast<int>(Traffic::TensorParallel)];
  CHECK(tp.kind == Collective::AllReduce);
  CHECK(tp.bytes == 16 * 1 * 64 * 2);        // s b h at 2 bytes (bf16)
  CHECK(tp.calls == 4 * 4 * 4);              // 4 per layer x 4 layers x 4 micro-batches
  // Two ranks in one node: 2 (1/2) S / B + 2 latencies, or the tree's 2 S / B + 2 latencies.
  CHECK_THAT(tp.seconds, WithinRel(2048.0 / 240e9 + 2 * 5e-6, 1e-12));
  // Full recomputation runs the forward's two again in backward.
  s.recompute = engine::Recompute::Full;
  const PlanReport full = plan(decoder(), dgx(), mixed_adam(), s);
  CHECK(full.strategies.front().traffic[static_cast<int>(Traffic::TensorParallel)].calls == 6 * 4 * 4);
}

TEST_CASE("memory per device follows the strategy: activations of the micro-batches in flight") {
  // 4 layers, P = 2, batch 8, micro-batch 1: the first stage holds min(P, m) = 2 micro-batches of its
  // 2 layers. The decoder has no dropout: Korthikanti et al.'s 34 s b h + 5 a s^2 b bytes (s b h =
  // 16 x 64 = 1024, a s^2 b = 4 x 256) without the two 1-byte dropout masks (2 s b h) and the dropped
  // scores with their mask (3 a s^2 b): 32 x 1024 + 2 x 1024 = 34,816 B, plus each norm's mean and
  // rstd (2 norms x 2 x 16 values of 2 B = 128 B): 34,944 B a layer. And, outside the blocks, what
  // the first stage keeps of each micro-batch: the embedding's output, which the first norm reads
  // (16 x 64 x 2 B = 2,048 B), and the token ids the embedding reads (16 x 2 B = 32 B).
  Strategy s;
  s.pipeline = 2;
  s.global_batch = 8;
  const StepResult step = plan(decoder(), dgx(), mixed_adam(), s).strategies.front();
  CHECK(step.memory.activations == 2 * (2 * 34'944.0 + 2'048.0 + 32.0));
  // Mixed-precision Adam: 2 + 2 + 12 bytes per parameter on the device.
  CHECK_THAT(step.memory.optimizer, WithinRel(6 * step.memory.weights, 1e-12));
}

TEST_CASE("strategies that do not divide the model are refused, saying what does not divide") {
  const auto refused = [](Strategy s, const std::string& why) {
    if (s.global_batch == 1) s.global_batch = 8;
    CAPTURE(why);
    CHECK_THROWS_WITH(plan(decoder(), dgx(), mixed_adam(), s), Contains(why));
  };
  Strategy heads;
  heads.tensor = 3;
  refused(heads, "does not divide the 4 attention heads");
  Strategy layers;
  layers.pipeline = 3;
  refused(layers, "the 4 layers do not divide into --pipeline-parallel 3");
  Strategy interleaved;
  interleaved.pipeline = 2;
  interleaved.interleave = 4;
  refused(interleaved, "x --interleave 4 = 8 stages");
  Strategy batch;
  batch.data = 3;
  refused(batch, "the global batch 8 does not divide into --data-parallel 3");
  Strategy sp;
  sp.sequence_parallel = true;
  refused(sp, "--sequence-parallel needs --tensor-parallel 2");
  // A network without attention is data parallel only.
  Strategy tp;
  tp.tensor = 2;
  tp.global_batch = 8;
  CHECK_THROWS_WITH(plan(lang::load_network(kModels + "/resnet50.net"), dgx(), mixed_adam(), tp), Contains("only data parallelism"));
}

TEST_CASE("the transformer's shape is read from the IR") {
  const ir::Network gpt3 = lang::load_network(kModels + "/gpt.net",
                                             {{"layers", "96"}, {"hidden", "12288"}, {"heads", "96"}});
  const TransformerShape s = describe_transformer(gpt3);
  // GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288, 96 heads, n_ctx 2048, vocab 50257.
  CHECK(s.layers == 96);
  CHECK(s.hidden == 12288);
  CHECK(s.heads == 96);
  CHECK(s.seq == 2048);
  CHECK(s.vocab == 50257);
  CHECK_FALSE(describe_transformer(lang::load_network(kModels + "/resnet50.net")).is_transformer());
}

TEST_CASE("a search finds strategies for GPT-3 175B on 1024 A100s") {
  // Narayanan et al. SC'21 train GPT-3 175B on 1024 A100s (Table 1 ff.); every strategy found must use
  // all 1024 devices and fit in 80 GiB.
  const ir::Network gpt3 = lang::load_network(kModels + "/gpt.net",
                                             {{"layers", "96"}, {"hidden", "12288"}, {"heads", "96"}});
  const ir::Device pod = lang::load_device(kHw + "/superpod-a100-80gb.hw");
  engine::Options o = mixed_adam();
  SearchOptions so;
  so.devices = 1024;
  so.global_batch = 1536;
  so.overlap = true;
  so.max_micro_batch = 8;
  const PlanReport r = search(gpt3, pod, o, so);
  REQUIRE_FALSE(r.strategies.empty());
  CHECK(r.evaluated > 1000);
  CHECK(r.fitting > 0);
  for (const StepResult& s : r.strategies) {
    CHECK(s.strategy.devices() == 1024);
    CHECK(s.fits);
    CHECK(s.memory.total() <= 80 * kGiB);
  }
  for (std::size_t i = 1; i < r.strategies.size(); ++i) CHECK(r.strategies[i - 1].step_s <= r.strategies[i].step_s);
  // Narayanan et al.'s first takeaway: tensor parallelism up to the node's 8 GPUs, not across nodes.
  CHECK(r.strategies.front().strategy.tensor <= 8);
}

TEST_CASE("the DGX files predict nccl-tests' published all-reduce bus bandwidths") {
  // all_reduce_perf, 8 GPUs in one node, 1 GiB (large enough to be bandwidth-bound):
  // - 8x A100 SXM4: busbw 200-208 GB/s (NVIDIA/nccl-tests issues 149 and 178). Predicted:
  //   1.75 S / (1.75 S / 240e9 + 70 us) = 237.9 GB/s, 14 % above 208: NCCL's A100 rings lose more
  //   than the ~20 % protocol overhead the file's efficiency assumes (left as a known error).
  // - 8x H100 SXM5, ring: ~370 GB/s (S. Jeaugey, NVIDIA/nccl-tests issue 212). Predicted:
  //   1.75 S / (1.75 S / 369e9 + 70 us) = 364.0 GB/s.
  const auto busbw = [](const std::string& stem) {
    const Topology t = topology_of(lang::load_device(kHw + "/" + stem + ".hw"), "", true);
    const double s = collective_seconds(Collective::AllReduce, kGiB, {8, 8}, t);
    return bus_bandwidth(Collective::AllReduce, kGiB, 8, s);
  };
  CHECK_THAT(busbw("dgx-a100-80gb"), WithinRel(208e9, 0.15));
  CHECK_THAT(busbw("dgx-h100"), WithinRel(370e9, 0.05));
}

TEST_CASE("the pipeline trace draws 1F1B and ends where the bubble formula says") {
  // Narayanan et al. SC'21, Figure 4 (top): stage i runs P - i - 1 warm-up forwards, then one forward
  // and one backward in turn. Scheduled with each op waiting for its input, the last backward ends
  // at (m + P - 1)(t_f + t_b): the formula the plan's pipeline time uses (v = 1).
  Strategy s;
  s.pipeline = 4;
  s.global_batch = 6;
  const PlanReport r = plan(decoder(), dgx(), mixed_adam(), s);
  const auto trace = ridge::testing::parse_json(engine::render::pipeline_trace(r, schedule_of(r)));
  double end = 0;
  int slices = 0;
  for (const auto& e : trace["traceEvents"].array)
    if (e["ph"].string == "X" && e["tid"].number <= 4) {
      end = std::max(end, e["ts"].number + e["dur"].number);
      ++slices;
    }
  CHECK(slices == 2 * 4 * 6);
  CHECK_THAT(end * 1e-6, WithinRel(r.strategies.front().pipeline_s, 1e-9));

  // Interleaved (Figure 4, bottom): it was drawn without interleaving, so the trace's step was longer
  // than the plan's; now it is the engine's schedule, two chunks per stage, and ends where the plan does.
  s.pipeline = 2;   // the decoder's 4 blocks over 2 stages x 2 chunks
  s.interleave = 2;
  s.global_batch = 8;
  const PlanReport v2 = plan(decoder(), dgx(), mixed_adam(), s);
  const auto interleaved = ridge::testing::parse_json(engine::render::pipeline_trace(v2, schedule_of(v2)));
  end = 0;
  slices = 0;
  for (const auto& e : interleaved["traceEvents"].array)
    if (e["ph"].string == "X" && e["tid"].number <= 2) {
      end = std::max(end, e["ts"].number + e["dur"].number);
      ++slices;
    }
  CHECK(slices == 2 * 2 * 2 * 8);
  CHECK_THAT(end * 1e-6, WithinRel(v2.strategies.front().pipeline_s, 1e-9));
}

TEST_CASE("a search over a device count that divides nothing says so, and names a count that would") {
  // Issue #41: GPT-2 small (12 heads, 12 layers) at global batch 1 over a SuperPOD's 1,016 GPUs found "0
  // strategies that divide the model", then said "no strategy fits in memory". With D = 1 (the batch),
  // T x P must be 1,016 = 8 x 127 with T | 12 and P | 12: impossible. The largest count below that is
  // whole nodes of 8 or a power of two and is a T x P: 144 = 12 x 12 = 18 nodes.
  const ir::Network gpt2 = lang::load_network(kModels + "/gpt2.net");
  SearchOptions so;
  so.devices = 1016;
  so.global_batch = 1;
  const PlanReport r = search(gpt2, lang::load_device(kHw + "/superpod-h100.hw"), mixed_adam(), so);
  CHECK(r.evaluated == 0);
  std::string notes;
  for (const engine::Note& n : r.notes) notes += n.text + "\n";
  CHECK_THAT(notes, Contains("no strategy divides the model over 1016 devices") && Contains("144 devices would"));
  CHECK_THAT(notes, !Contains("no strategy fits in memory"));

  // The count being the system's own (no --devices), the search runs on those 144 and says so.
  so.devices_from_system = true;
  const PlanReport taken = search(gpt2, lang::load_device(kHw + "/superpod-h100.hw"), mixed_adam(), so);
  CHECK(taken.devices == 144);
  CHECK(taken.evaluated > 0);
  REQUIRE_FALSE(taken.strategies.empty());
  CHECK(taken.strategies.front().strategy.devices() == 144);
  std::string taken_notes;
  for (const engine::Note& n : taken.notes) taken_notes += n.text + "\n";
  CHECK_THAT(taken_notes, Contains("nothing divides the model over the system's 1016 devices; searched 144 of them "
                                   "(18 whole nodes of 8)"));
}
