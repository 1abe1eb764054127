// The serving simulator (engine/serving/serving.hpp): vLLM's scheduler worked by hand on iteration
// times given as constants, the load's arrivals, and the engine's own iteration times.
#include "engine/serving/deployment.hpp"
#include "engine/serving/step_cost.hpp"
#include "engine/serving/serving.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace ridge;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace serving = ridge::engine::serving;

namespace {

// A prefill takes 1 s and a decode step 0.1 s, whatever their size.
serving::StepCost constant_cost(std::int64_t kv_tokens) {
  serving::StepCost c;
  c.prefill = [](std::int64_t, std::int64_t) { return 1.0; };
  c.decode = [](std::int64_t, double) { return 0.1; };
  c.kv_capacity_tokens = kv_tokens;
  return c;
}

ir::Device h100() { return lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw"); }

// Llama-2-7B elaborated per phase, as simulate does for --prompt/--generate and --serve.
engine::NetworkAt llama2_7b_at() {
  const std::string path = std::string(RIDGE_MODELS_DIR) + "/llama2_7b.net";
  return [path](std::int64_t seq, std::int64_t past) {
    return lang::load_network(path, {{"seq_len", std::to_string(seq)}, {"past", std::to_string(past)}});
  };
}

}  // namespace

TEST_CASE("continuous batching, worked by hand: prefills first, then one token of every running sequence") {
  // A arrives at 0 (10 prompt tokens, 3 output), B at 0.5 (10, 2). A's prefill ends at 1 s with its first
  // token; B has arrived, so B's prefill runs next (ends at 2); then A and B decode together: at 2.1 both
  // have their second token, B its last; A's third and last comes at 2.2.
  const std::vector<serving::Request> load{{0.0, 10, 3}, {0.5, 10, 2}};
  const serving::Served s = serving::serve(load, constant_cost(1000), {}, {.ttft_s = 1.2});
  CHECK(s.iterations == 4);
  CHECK(s.prefill_iterations == 2);
  CHECK(s.preemptions == 0);
  CHECK_THAT(s.makespan_s, WithinRel(2.2, 1e-12));
  // TTFT: A 1, B 1.5; TPOT: A (2.2 - 1) / 2 = 0.6, B (2.1 - 2) / 1 = 0.1; latency: A 2.2, B 1.6.
  CHECK_THAT(s.ttft.mean, WithinRel(1.25, 1e-12));
  CHECK_THAT(s.ttft.p50, WithinRel(1.0, 1e-12));
  CHECK_THAT(s.ttft.p99, WithinRel(1.5, 1e-12));
  CHECK_THAT(s.tpot.mean, WithinRel(0.35, 1e-12));
  CHECK_THAT(s.e2e.p90, WithinRel(2.2, 1e-12));
  CHECK_THAT(s.output_tokens_per_s, WithinRel(5 / 2.2, 1e-12));
  // Only A's first token came within 1.2 s.
  CHECK(s.slo_attainment == 0.5);
  CHECK_THAT(s.goodput_requests_per_s, WithinRel(1 / 2.2, 1e-12));
}

TEST_CASE("a full KV cache preempts the sequence admitted last, which is prefilled again with its tokens") {
  // 25 tokens of cache in blocks of 1; A and B arrive together (10 prompt tokens, 10 output each) and
  // share one prefill (20 tokens, ends at 1 s). Decodes at 1.1 and 1.2 fill 24 blocks; the third needs
  // 26, so B (admitted last) is preempted with 3 tokens made and A decodes alone until its tenth token
  // at 1.9. B's 13 tokens are then prefilled again (ends at 2.9, its fourth token) and it decodes its
  // last six by 3.5. B's first token stays the one at 1 s.
  serving::Scheduler one_token_blocks;
  one_token_blocks.block_size = 1;
  const std::vector<serving::Request> load{{0.0, 10, 10}, {0.0, 10, 10}};
  const serving::Served s = serving::serve(load, constant_cost(25), one_token_blocks, {});
  CHECK(s.preemptions == 1);
  CHECK(s.iterations == 17);
  CHECK(s.prefill_iterations == 2);
  CHECK_THAT(s.makespan_s, WithinRel(3.5, 1e-12));
  CHECK_THAT(s.ttft.p99, WithinRel(1.0, 1e-12));
  CHECK_THAT(s.tpot.p99, WithinRel(2.5 / 9, 1e-12));   // B: (3.5 - 1.0) / 9
  CHECK_THAT(s.tpot.p50, WithinRel(0.9 / 9, 1e-12));   // A: (1.9 - 1.0) / 9
  CHECK(s.kv_peak == 24.0 / 25.0);
}

TEST_CASE("a request the KV cache cannot hold alone is an error, not a hang") {
  const std::vector<serving::Request> load{{0.0, 100, 4}};
  CHECK_THROWS_WITH(serving::serve(load, constant_cost(64), {}, {}), Catch::Contains("does not fit the KV cache"));
}

TEST_CASE("a load repeats with its seed: Poisson arrivals at the rate, lengths uniform over their range") {
  serving::Load load;
  load.rate = 10.0;
  load.duration_s = 100.0;
  load.prompt = {100, 200};
  load.output = {5, 5};
  load.seed = 7;
  const auto a = serving::requests(load), b = serving::requests(load);
  REQUIRE(a.size() == b.size());
  CHECK(std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
    return x.arrival_s == y.arrival_s && x.prompt == y.prompt && x.output == y.output;
  }));
  // 1,000 expected; a Poisson count's standard deviation is its square root (31.6): within 4 of them.
  CHECK(std::abs(static_cast<double>(a.size()) - 1000.0) < 4 * std::sqrt(1000.0));
  std::set<std::int64_t> prompts;
  for (const auto& r : a) {
    CHECK((r.prompt >= 100 && r.prompt <= 200 && r.output == 5 && r.arrival_s >= 0 && r.arrival_s < 100));
    prompts.insert(r.prompt);
  }
  CHECK(prompts.count(100) == 1);
  CHECK(prompts.count(200) == 1);
  load.seed = 8;
  CHECK(serving::requests(load).front().arrival_s != a.front().arrival_s);
  load.rate = 0;
  CHECK_THROWS(serving::requests(load));
}

TEST_CASE("a deployment's iterations are the engine's phase times, and a light load meets the unloaded latency") {
  // Llama-2-7B in bf16 on an H100: one request every 10 s never waits for another, so its first token
  // takes the prefill alone and each later token one decode step of batch 1.
  const ir::Device h100_sxm5 = h100();
  const engine::NetworkAt at = llama2_7b_at();
  engine::Options o;
  o.precision = ir::Precision::BF16;
  serving::Deployment d;
  d.load.rate = 0.1;
  d.load.duration_s = 100;
  d.load.prompt = {128, 128};
  d.load.output = {32, 32};
  const serving::DeploymentRun run = serving::serve(at, h100_sxm5, o, d);
  REQUIRE(run.served.requests > 3);
  CHECK_THAT(run.served.ttft.p50, WithinRel(run.unloaded.prefill_s, 1e-9));
  CHECK_THAT(run.served.tpot.p50, WithinRel(run.unloaded.decode_per_token_s, 0.02));
  CHECK(run.served.preemptions == 0);
  // The KV cache: 90 % of 80 GiB less the 13.5 GB of weights, at 512 KiB a token (Llama-2-7B in bf16).
  CHECK(run.served.kv_capacity_tokens > 100000);
  CHECK(run.served.kv_capacity_tokens < 0.9 * 80.0 * (1 << 30) / (512 * 1024));
}

TEST_CASE("one slot serving one-token requests is an M/D/1 queue: its mean wait is Pollaczek-Khinchine's") {
  // max_num_seqs = 1 and one output token: each request is one prefill of D = 0.1 s, served alone in
  // arrival order. Poisson arrivals at 6/s (utilisation rho = 0.6): the mean wait in queue is
  // rho D / (2 (1 - rho)) = 0.075 s, so the mean TTFT is D + 0.075 = 0.175 s.
  serving::Load load;
  load.rate = 6.0;
  load.duration_s = 20000.0;
  load.prompt = {16, 16};
  load.output = {1, 1};
  serving::StepCost cost = constant_cost(1 << 20);
  cost.prefill = [](std::int64_t sequences, std::int64_t) {
    REQUIRE(sequences == 1);
    return 0.1;
  };
  serving::Scheduler one_slot;
  one_slot.max_num_seqs = 1;
  const serving::Served s = serving::serve(serving::requests(load), cost, one_slot, {});
  REQUIRE(s.requests > 100000);
  CHECK_THAT(s.ttft.mean, WithinRel(0.1 + 0.6 * 0.1 / (2 * 0.4), 0.02));
  CHECK(s.prefill_iterations == s.requests);
}

TEST_CASE("every run keeps Little's law, finishes every request once and counts every token") {
  // Time-averaged requests in the system = throughput x mean time in the system, over a run that starts
  // and ends empty; the mean is integrated from the arrival and last-token steps, not from the latencies.
  serving::Load load;
  load.rate = 100.0;
  load.duration_s = 30.0;
  load.prompt = {20, 200};
  load.output = {1, 40};
  serving::StepCost cost = constant_cost(1500);
  cost.prefill = [](std::int64_t n, std::int64_t tokens) { return 0.01 + 1e-5 * static_cast<double>(n * tokens); };
  cost.decode = [](std::int64_t n, double context) { return 0.005 + 1e-4 * static_cast<double>(n) + 1e-7 * context * static_cast<double>(n); };
  const auto requests = serving::requests(load);
  const serving::Served s = serving::serve(requests, cost, {}, {});
  CHECK(s.completed == s.requests);
  CHECK(s.preemptions > 0);   // the 1,500-token cache fills
  CHECK_THAT(s.mean_in_system, WithinRel(s.requests_per_s * s.e2e.mean, 1e-9));
  std::int64_t tokens = 0;
  for (const auto& r : requests) tokens += r.output;
  CHECK_THAT(s.output_tokens_per_s * s.makespan_s, WithinRel(static_cast<double>(tokens), 1e-12));
}

TEST_CASE("static batching of requests that arrive together is --prompt/--generate at that batch") {
  // Eight requests at once, 128 prompt tokens and 20 output tokens each, one static batch of eight:
  // their first token is the batch's prefill, their last the generation's latency. (The flat model,
  // whose decode time is affine in the cache, as generation.hpp's mean step assumes.)
  const ir::Device h100_sxm5 = h100();
  const engine::NetworkAt at = llama2_7b_at();
  engine::Options o;
  o.precision = ir::Precision::BF16;
  o.kernel_model = engine::KernelModel::Flat;
  o.batch = 8;
  const engine::Generation g = engine::generate(at, h100_sxm5, o, 128, 20);
  const std::vector<serving::Request> together(8, serving::Request{0.0, 128, 20});
  serving::Scheduler batch_of_eight;
  batch_of_eight.batching = serving::Batching::Static;
  batch_of_eight.max_num_seqs = 8;
  const serving::Served s = serving::serve(together, serving::engine_step_cost(at, h100_sxm5, o, {}, 2048), batch_of_eight, {});
  CHECK(s.prefill_iterations == 1);
  CHECK(s.iterations == 20);
  CHECK_THAT(s.ttft.p99, WithinRel(g.prefill_s, 1e-9));
  CHECK_THAT(s.ttft.p50, WithinRel(g.prefill_s, 1e-9));
  CHECK_THAT(s.e2e.p50, WithinRel(g.latency_s, 1e-9));
  CHECK_THAT(s.e2e.p99, WithinRel(g.latency_s, 1e-9));
  // Sixteen such requests make two batches, the second waiting for the first to end.
  const std::vector<serving::Request> twice(16, serving::Request{0.0, 128, 20});
  const serving::Served two = serving::serve(twice, serving::engine_step_cost(at, h100_sxm5, o, {}, 2048), batch_of_eight, {});
  CHECK_THAT(two.e2e.p99, WithinRel(2 * g.latency_s, 1e-9));
}
