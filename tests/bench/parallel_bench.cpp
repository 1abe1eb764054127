// The parallel planner's speed (issue 15: --search at no less than 10,000 strategies per second on
// one core). Run ./tests/parallel_bench from the build folder; the counter `strategies/s` is the rate.
//   search/gpt3_175b_1024  a whole --search for GPT-3 175B on 1024 A100s of a DGX SuperPOD (global
//                          batch 1536), simulations of each micro-batch size included; goal >= 10,000/s
//   evaluate/gpt3_175b     one strategy's step and memory from a ready profile
#include "engine/parallel/plan.hpp"
#include "lang/parse.hpp"

#include <benchmark/benchmark.h>

#include <string>

using namespace ridge;
using namespace ridge::engine::parallel;

namespace {

const ir::Network& gpt3() {
  static const ir::Network net = lang::load_network(std::string(RIDGE_MODELS_DIR) + "/gpt.net",
                                                    {{"layers", "96"}, {"hidden", "12288"}, {"heads", "96"}});
  return net;
}
const ir::Device& pod() {
  static const ir::Device d = lang::load_device(std::string(RIDGE_HW_DIR) + "/superpod-a100-80gb.hw");
  return d;
}
engine::Options mixed_adam() {
  engine::Options o;
  o.precision = ir::Precision::BF16;
  o.optimizer = engine::Optimizer::Adam;
  return o;
}

void search_gpt3_175b_1024(benchmark::State& state) {
  SearchOptions so;
  so.devices = 1024;
  so.global_batch = 1536;
  so.overlap = true;
  std::size_t evaluated = 0;
  for (auto _ : state) {
    const PlanReport r = search(gpt3(), pod(), mixed_adam(), so);
    evaluated += r.evaluated;
    benchmark::DoNotOptimize(r.strategies.data());
  }
  state.counters["strategies/s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(search_gpt3_175b_1024)->Name("search/gpt3_175b_1024")->Unit(benchmark::kMillisecond);

void evaluate_gpt3_175b(benchmark::State& state) {
  const TransformerShape shape = describe_transformer(gpt3());
  const MicroBatchProfile profile = profile_micro_batch(gpt3(), pod(), mixed_adam(), 1, shape);
  const Topology topology = topology_of(pod(), "", true);
  Strategy s;
  s.tensor = 8;
  s.pipeline = 16;
  s.data = 8;
  s.global_batch = 1536;
  s.interleave = 2;
  s.recompute = engine::Recompute::Selective;
  s.sequence_parallel = true;
  s.zero = 1;
  s.overlap = true;
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(s, profile, shape, topology, 80.0 * (1 << 30)).step_s);
  state.counters["strategies/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(evaluate_gpt3_175b)->Name("evaluate/gpt3_175b");

}  // namespace

BENCHMARK_MAIN();
