// The serving simulator (engine/serving/serving.hpp): vLLM's scheduler worked by hand on iteration
// times given as constants, the load's arrivals, and the engine's own iteration times.
#include "engine/serving/deployment.hpp"
#include "engine/serving/search.hpp"
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

// Iteration times that grow with the work (a prefill with its tokens, a decode step with its sequences
// and their context, a chunk with its tokens and past, a hand-over with its tokens), small enough that
// a load of tens of requests a second fills a 1,500-token cache.
serving::StepCost affine_cost() {
  serving::StepCost c = constant_cost(1500);
  c.prefill = [](std::int64_t n, std::int64_t tokens) { return 0.01 + 1e-5 * static_cast<double>(n * tokens); };
  c.decode = [](std::int64_t n, double context) { return 0.005 + 1e-4 * static_cast<double>(n) + 1e-7 * context * static_cast<double>(n); };
  c.chunk = [](std::int64_t tokens, double past) { return 0.01 + 1e-5 * static_cast<double>(tokens) + 1e-8 * past * static_cast<double>(tokens); };
  c.transfer = [](std::int64_t tokens) { return 1e-3 + 1e-6 * static_cast<double>(tokens); };
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
  const serving::StepCost cost = affine_cost();
  const auto requests = serving::requests(load);
  std::int64_t tokens = 0;
  for (const auto& r : requests) tokens += r.output;
  // Every scheduler, on one replica and on three behind either router (the cache per replica).
  for (const serving::Batching batching : {serving::Batching::Continuous, serving::Batching::Chunked, serving::Batching::Static})
    for (const std::int64_t replicas : {1, 3})
      for (const serving::Router router : {serving::Router::RoundRobin, serving::Router::LeastOutstanding}) {
        CAPTURE(serving::batching_name(batching), replicas, serving::router_name(router));
        serving::Scheduler scheduler;
        scheduler.batching = batching;
        scheduler.max_batched_tokens = serving::default_max_batched_tokens(batching);
        const serving::Served s = serving::serve(requests, cost, scheduler, {}, {replicas, router});
        CHECK(s.completed == s.requests);
        if (batching != serving::Batching::Static && replicas == 1) CHECK(s.preemptions > 0);   // the 1,500-token cache fills
        CHECK_THAT(s.mean_in_system, WithinRel(s.requests_per_s * s.e2e.mean, 1e-9));
        CHECK_THAT(s.output_tokens_per_s * s.makespan_s, WithinRel(static_cast<double>(tokens), 1e-12));
        CHECK(s.utilisation > 0.0);
        CHECK(s.utilisation <= 1.0 + 1e-12);
        CHECK(s.kv_peak <= 1.0);
      }
}

TEST_CASE("chunked prefill, worked by hand: decodes first, then prompt chunks within the token budget") {
  // chunk(t, p) = 0.2 + 1e-4 p, decode(n, L) = 0.1 + 1e-5 L, a budget of 512 tokens. A arrives at 0 (10
  // prompt tokens, 3 output), B at 0.05 (1000, 2).
  //   1: [0, 0.2]          A's prompt in one chunk: chunk(10, 0) = 0.2; A's first token.
  //   2: [0.2, 0.4001]     A decodes (context 10), then B's first 511 tokens:
  //                        chunk(1 + 511, 0) + decode(1, 10) - decode(1, 0) = 0.2 + 1e-4.
  //   3: [0.4001, 0.65131] A decodes (context 11; its last token), B's other 489 tokens at past 511:
  //                        chunk(490, 511) + decode(1, 11) - decode(1, 0) = 0.2511 + 1.1e-4; B's first token.
  //   4: [0.65131, 0.76131] B decodes alone (context 1000): 0.1 + 0.01; B's last token.
  serving::StepCost cost = constant_cost(1 << 20);
  cost.chunk = [](std::int64_t, double past) { return 0.2 + 1e-4 * past; };
  cost.decode = [](std::int64_t, double context) { return 0.1 + 1e-5 * context; };
  serving::Scheduler chunked;
  chunked.batching = serving::Batching::Chunked;
  chunked.max_batched_tokens = 512;
  const std::vector<serving::Request> load{{0.0, 10, 3}, {0.05, 1000, 2}};
  const serving::Served s = serving::serve(load, cost, chunked, {});
  CHECK(s.iterations == 4);
  CHECK(s.prefill_iterations == 3);
  CHECK_THAT(s.makespan_s, WithinRel(0.76131, 1e-12));
  CHECK_THAT(s.ttft.p50, WithinRel(0.2, 1e-12));              // A
  CHECK_THAT(s.ttft.p99, WithinRel(0.65131 - 0.05, 1e-12));   // B
  CHECK_THAT(s.e2e.p50, WithinRel(0.65131, 1e-12));           // A's last token came with B's first
  CHECK_THAT(s.tpot.p50, WithinRel(0.11, 1e-12));                // B
  CHECK_THAT(s.tpot.p99, WithinRel((0.65131 - 0.2) / 2, 1e-12));  // A
  // The same two under prefill first: B's 1,000-token prompt runs whole, A's decodes wait behind it.
  const serving::Served whole = serving::serve(load, cost, {}, {});
  CHECK(whole.prefill_iterations == 2);
}

TEST_CASE("chunked prefill needs a budget of at least one token a sequence, as vLLM asks") {
  serving::Scheduler chunked;
  chunked.batching = serving::Batching::Chunked;
  chunked.max_batched_tokens = 100;
  serving::StepCost cost = constant_cost(1000);
  cost.chunk = [](std::int64_t, double) { return 1.0; };
  CHECK_THROWS_WITH(serving::serve({{0.0, 10, 3}}, cost, chunked, {}), Catch::Contains("at least as many batched tokens"));
}

TEST_CASE("replicas, worked by hand: round robin sends a request behind a long one, least outstanding does not") {
  // One sequence at a time per replica; a prefill 1 s, a decode step 0.1 s. r0 at 0 runs 100 tokens
  // (until 10.9); r1 at 0.5, r2 at 3, r3 at 4.5 want one token each.
  serving::Scheduler one_slot;
  one_slot.max_num_seqs = 1;
  const std::vector<serving::Request> load{{0.0, 10, 100}, {0.5, 10, 1}, {3.0, 10, 1}, {4.5, 10, 1}};
  const auto served = [&](serving::Router router) { return serving::serve(load, constant_cost(1 << 20), one_slot, {}, {2, router}); };
  // Round robin: r0, r2 on one replica, r1, r3 on the other. r2 waits for r0: its token at 11.9 (8.9 s).
  // Latencies 10.9, 1, 8.9, 1.
  const serving::Served rr = served(serving::Router::RoundRobin);
  CHECK_THAT(rr.e2e.mean, WithinRel((10.9 + 1 + 8.9 + 1) / 4, 1e-12));
  CHECK_THAT(rr.makespan_s, WithinRel(11.9, 1e-12));
  // Least outstanding: r1, r2, r3 all go to the idle replica (r1 finished at 1.5, r2 at 4); each waits for nothing.
  const serving::Served lo = served(serving::Router::LeastOutstanding);
  CHECK_THAT(lo.e2e.mean, WithinRel((10.9 + 1 + 1 + 1) / 4, 1e-12));
  CHECK_THAT(lo.makespan_s, WithinRel(10.9, 1e-12));
  // One replica busy 10.9 s, the other 3 s, over a makespan of 10.9 s.
  CHECK_THAT(lo.utilisation, WithinRel((10.9 + 3) / (2 * 10.9), 1e-12));
}

TEST_CASE("disaggregated serving, worked by hand: the prompt on a prefill replica, the KV cache handed over, the rest decoded") {
  // A prefill 1 s, a decode step 0.1 s, a hand-over 0.5 s; one prefill and one decode replica. A arrives
  // at 0 (10 prompt tokens, 3 output): prefilled on [0, 1] (its first token), handed over, on the decode
  // replica at 1.5, decoded on [1.5, 1.6] and [1.6, 1.7]. B arrives at 0.2 (10, 1): it waits for the
  // prefill replica, is prefilled on [1, 2], and its one token ends it there.
  serving::StepCost cost = constant_cost(1000);
  cost.transfer = [](std::int64_t tokens) {
    CHECK(tokens == 10);   // A's prompt, cached
    return 0.5;
  };
  serving::Replicas split;
  split.prefill = 1;
  split.decode = 1;
  const std::vector<serving::Request> load{{0.0, 10, 3}, {0.2, 10, 1}};
  const serving::Served s = serving::serve(load, cost, {}, {}, split);
  CHECK(s.iterations == 4);
  CHECK(s.prefill_iterations == 2);
  CHECK_THAT(s.makespan_s, WithinRel(2.0, 1e-12));
  CHECK_THAT(s.ttft.p50, WithinRel(1.0, 1e-12));   // A
  CHECK_THAT(s.ttft.p99, WithinRel(1.8, 1e-12));   // B: 2.0 - 0.2
  CHECK_THAT(s.e2e.mean, WithinRel((1.7 + 1.8) / 2, 1e-12));
  CHECK_THAT(s.tpot.mean, WithinRel(0.35, 1e-12));   // A only: (1.7 - 1) / 2
  CHECK_THAT(s.transfer_mean_s, WithinRel(0.5, 1e-12));
  CHECK_THAT(s.utilisation, WithinRel((2.0 + 0.2) / (2 * 2.0), 1e-12));
  // Every request finishes once, and Little's law holds, under a load that fills the decode side.
  serving::Load busy;
  busy.rate = 60.0;
  busy.duration_s = 20.0;
  busy.prompt = {20, 200};
  busy.output = {1, 40};
  const serving::StepCost costs = affine_cost();
  for (const serving::Router router : {serving::Router::RoundRobin, serving::Router::LeastOutstanding}) {
    serving::Replicas two_to_one;
    two_to_one.prefill = 1;
    two_to_one.decode = 2;
    two_to_one.router = router;
    const serving::Served many = serving::serve(serving::requests(busy), costs, {}, {}, two_to_one);
    CHECK(many.completed == many.requests);
    CHECK_THAT(many.mean_in_system, WithinRel(many.requests_per_s * many.e2e.mean, 1e-9));
  }
  serving::Scheduler chunked;
  chunked.batching = serving::Batching::Chunked;
  chunked.max_batched_tokens = 512;
  cost.chunk = [](std::int64_t, double) { return 1.0; };
  CHECK_THROWS_WITH(serving::serve(load, cost, chunked, {}, split), Catch::Contains("continuous batching"));
}

TEST_CASE("bursty arrivals: gamma gaps keep the rate, their squared coefficient of variation is 1 / burstiness") {
  for (const double burstiness : {0.25, 1.0, 4.0}) {
    CAPTURE(burstiness);
    serving::Load load;
    load.rate = 10.0;
    load.duration_s = 20000.0;
    load.burstiness = burstiness;
    const auto requests = serving::requests(load);
    double sum = 0.0, squares = 0.0;
    for (std::size_t i = 1; i < requests.size(); ++i) {
      const double gap = requests[i].arrival_s - requests[i - 1].arrival_s;
      sum += gap;
      squares += gap * gap;
    }
    const double n = static_cast<double>(requests.size() - 1), mean = sum / n;
    CHECK_THAT(mean, WithinRel(0.1, 0.02));
    CHECK_THAT((squares / n - mean * mean) / (mean * mean), WithinRel(1.0 / burstiness, 0.05));
  }
  serving::Load bad;
  bad.burstiness = 0.0;
  CHECK_THROWS_WITH(serving::requests(bad), Catch::Contains("burstiness"));
}

TEST_CASE("a trace replays as it is, and lengths sampled from a list take only its values") {
  serving::Load load;
  load.trace = {{0.0, 5, 2}, {0.5, 7, 3}, {0.5, 9, 1}};
  CHECK(serving::requests(load).size() == 3);
  CHECK(serving::requests(load)[1].prompt == 7);
  load.trace = {{1.0, 5, 2}, {0.5, 7, 3}};
  CHECK_THROWS_WITH(serving::requests(load), Catch::Contains("in order"));

  serving::Load sampled;
  sampled.rate = 50.0;
  sampled.prompt.samples = {3, 300, 3000};
  const auto requests = serving::requests(sampled);
  std::set<std::int64_t> seen;
  for (const auto& r : requests) seen.insert(r.prompt);
  CHECK(seen == std::set<std::int64_t>{3, 300, 3000});
  CHECK(serving::mean_tokens(sampled.prompt) == 1101);
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

TEST_CASE("a deployment search finds the fewest replicas that meet the goals and ranks by price") {
  const engine::NetworkAt at = llama2_7b_at();
  const std::vector<ir::Device> devices{h100(), lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw")};
  engine::Options o;
  o.precision = ir::Precision::BF16;
  serving::Deployment base;
  base.load.rate = 20;
  base.load.duration_s = 30;
  base.load.output = {64, 64};
  base.slo = {.ttft_s = 0.3, .tpot_s = 0.02};
  const serving::SearchResult found = serving::search(at, devices, o, base, {});
  REQUIRE(found.by_price);
  REQUIRE(found.candidates.size() == 2);   // 2 device files x 1 split (one GPU each), the best of 3 batch sizes each
  for (std::size_t i = 0; i < found.candidates.size(); ++i) {
    const serving::DeploymentRun& run = found.candidates[i].run;
    CAPTURE(i, run.deployment.replicas.count, run.deployment.scheduler.max_num_seqs);
    REQUIRE(run.meets_slo());
    CHECK_THAT(*run.price_per_hour(), WithinRel(static_cast<double>(run.deployment.replicas.count) *
                                                    devices[found.candidates[i].device].price->value, 1e-12));
    if (i > 0) CHECK(*found.candidates[i - 1].run.price_per_hour() <= *run.price_per_hour());
    // The fewest: one replica fewer misses a goal.
    REQUIRE(run.deployment.replicas.count > 1);
    serving::Deployment fewer = run.deployment;
    --fewer.replicas.count;
    CHECK_FALSE(serving::serve(at, devices[found.candidates[i].device], o, fewer).meets_slo());
  }
  // A device file without a price ranks by devices instead.
  const std::vector<ir::Device> unpriced{h100(), lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-pcie.hw")};
  serving::SearchSpace one_size;
  one_size.max_num_seqs = {256};
  const serving::SearchResult by_devices = serving::search(at, unpriced, o, base, one_size);
  CHECK_FALSE(by_devices.by_price);
  REQUIRE(by_devices.candidates.size() == 2);
  CHECK(by_devices.candidates[0].run.devices() <= by_devices.candidates[1].run.devices());
  // Nothing to meet is an error, as is a model no split fits (refused, with the reason).
  serving::Deployment no_goal = base;
  no_goal.slo = {};
  CHECK_THROWS_WITH(serving::search(at, devices, o, no_goal, {}), Catch::Contains("needs a goal"));
}
