// The engine's speed, on the zoo (models/*.net) and the catalogue (hw/*.hw):
//   parse_simulate/<net>  parse + elaborate the .net, then simulate on the A100 at batch 64, or 1 sequence
//                         for a language model (what one `simulate` call does, less rendering);
//                         goal: well under a millisecond
//   simulate/<net>        the engine alone on an elaborated network;          goal: < 1 ms per network
//   sweep_10k             10,000 (network, device, batch, dtype) configurations through engine::Sweep, on
//                         one core; goal: < 100 ms (100,000 configurations per second)
//   sweep_10k_flat        sweep_10k with the flat model (the kernel model's cost is the difference)
//   simulate_10k          the same, each a whole simulate() with per-layer rows (for comparison)
//   serve_10min_100rps    ten minutes of serving traffic at 100 requests/s (engine/serving/); goal: < 1 s
#include "engine/serving/deployment.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace ridge;

namespace {

std::vector<fs::path> files(const char* dir, const char* ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

struct Config {
  const ir::Network* network;
  const ir::Device* device;
  std::int64_t batch;
  ir::Precision precision;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<ir::Network> networks;
  std::vector<std::string> network_paths;
  for (const auto& p : files(RIDGE_MODELS_DIR, ".net")) {
    try {
      networks.push_back(lang::load_network(p.string()));
      network_paths.push_back(p.string());
    } catch (const std::exception& e) {
      std::cerr << "skipping " << p << ": " << e.what() << "\n";
    }
  }
  std::vector<ir::Device> devices;
  for (const auto& p : files(RIDGE_HW_DIR, ".hw")) {
    try {
      devices.push_back(lang::load_device(p.string()));
    } catch (const std::exception& e) {
      std::cerr << "skipping " << p << ": " << e.what() << "\n";
    }
  }
  if (networks.empty() || devices.empty()) {
    std::cerr << "engine_bench: no networks or devices found\n";
    return 1;
  }
  const auto a100 = std::find_if(devices.begin(), devices.end(), [](const ir::Device& d) { return d.id == "a100-sxm4-40gb"; });
  const ir::Device& reference = a100 != devices.end() ? *a100 : devices.front();

  for (std::size_t i = 0; i < networks.size(); ++i) {
    const std::string name = networks[i].name;
    // A language model's sample is a whole sequence (Llama-2-70B: 4096 tokens); 64 of them would pass
    // the engine's 2^53 exact-count limit, which a single device's step never needs.
    const std::int64_t batch = networks[i].input().output.size() == 1 ? 1 : 64;
    benchmark::RegisterBenchmark(("parse_simulate/" + name).c_str(), [&, i, batch](benchmark::State& s) {
      for (auto _ : s) {
        const ir::Network net = lang::load_network(network_paths[i]);
        benchmark::DoNotOptimize(engine::simulate(net, reference, {.batch = batch}));
      }
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("simulate/" + name).c_str(), [&, i, batch](benchmark::State& s) {
      for (auto _ : s) benchmark::DoNotOptimize(engine::simulate(networks[i], reference, {.batch = batch}));
      s.counters["layers"] = static_cast<double>(networks[i].layers.size());
    })->Unit(benchmark::kMicrosecond);
  }

  // Every configuration the catalogue can run (a device without any figure for a precision is left out).
  std::vector<Config> configs;
  for (const auto& n : networks)
    for (const auto& d : devices)
      for (const std::int64_t b : {1, 8, 64, 256})
        for (const auto p : {ir::Precision::FP32, ir::Precision::TF32, ir::Precision::FP16, ir::Precision::BF16,
                             ir::Precision::INT8, ir::Precision::FP64}) {
          try {
            (void)engine::simulate(n, d, {.batch = b, .precision = p});
            configs.push_back({&n, &d, b, p});
          } catch (const std::exception&) {
          }
        }
  std::cerr << configs.size() << " runnable configurations (" << networks.size() << " networks x " << devices.size()
            << " devices x 4 batches x 6 dtypes)\n";
  // A sweep as engine::Sweep runs one: each (network, batch, dtype) workload computed once and timed on
  // every device. The Sweeps are made inside the timed loop, so their workloads are paid for.
  // sweep_10k_flat: the same with the flat model (--kernel-model flat), for the kernel model's cost.
  for (const auto model : {engine::KernelModel::Micro, engine::KernelModel::Flat}) {
    const std::string name = model == engine::KernelModel::Micro ? "sweep_10k" : "sweep_10k_flat";
    benchmark::RegisterBenchmark(name.c_str(), [&, model](benchmark::State& s) {
      for (auto _ : s) {
        std::map<const ir::Network*, engine::Sweep> sweeps;
        double total = 0;
        for (std::size_t i = 0; i < 10000; ++i) {
          const Config& c = configs[i % configs.size()];
          engine::Sweep& sweep = sweeps.try_emplace(c.network, *c.network, engine::Options{.kernel_model = model}).first->second;
          total += sweep.totals(*c.device, c.batch, c.precision).time_train_step_s;
        }
        benchmark::DoNotOptimize(total);
      }
    })->Unit(benchmark::kMillisecond);
  }
  // The same configurations, each a whole simulate() with its per-layer rows: what a sweep cost before.
  benchmark::RegisterBenchmark("simulate_10k", [&](benchmark::State& s) {
    for (auto _ : s) {
      double total = 0;
      for (std::size_t i = 0; i < 10000; ++i) {
        const Config& c = configs[i % configs.size()];
        total += engine::simulate(*c.network, *c.device, {.batch = c.batch, .precision = c.precision}).totals.time_train_step_s;
      }
      benchmark::DoNotOptimize(total);
    }
  })->Unit(benchmark::kMillisecond);

  // serve_10min_100rps: ten minutes of traffic at 100 requests/s (about 60,000 requests; prompts of
  // 100..1000 tokens, outputs of 50..300) served by Llama-2-7B on one H100 (simulate --serve), the
  // engine's phase times included; goal: under 1 s (issue #36).
  const auto llama = std::find(network_paths.begin(), network_paths.end(), std::string(RIDGE_MODELS_DIR) + "/llama2_7b.net");
  const auto h100 = std::find_if(devices.begin(), devices.end(), [](const ir::Device& d) { return d.id == "h100-sxm5"; });
  if (llama != network_paths.end() && h100 != devices.end()) {
    const std::string path = *llama;
    benchmark::RegisterBenchmark("serve_10min_100rps", [&, path](benchmark::State& s) {
      const engine::NetworkAt at = [&](std::int64_t seq, std::int64_t past) {
        return lang::load_network(path, {{"seq_len", std::to_string(seq)}, {"past", std::to_string(past)}});
      };
      engine::serving::Deployment d;
      d.load.rate = 100;
      d.load.duration_s = 600;
      d.load.prompt = {100, 1000};
      d.load.output = {50, 300};
      for (auto _ : s) {
        const auto run = engine::serving::serve(at, *h100, {.precision = ir::Precision::BF16}, d);
        benchmark::DoNotOptimize(run.served.e2e.mean);
        s.counters["requests"] = static_cast<double>(run.served.requests);
      }
    })->Unit(benchmark::kMillisecond);
  }

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
