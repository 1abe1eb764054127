#include "validate/calibrate_command.hpp"

#include "validate/measurements_csv.hpp"

#include "engine/io/output_safety.hpp"
#include "simulate/run_options.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <map>
#include <set>
#include <stdexcept>

namespace ridge::validate {

DeviceChoice parse_device(std::string_view text) {
  if (text == "cpu") return {false, 0};
  if (text == "cuda") return {true, 0};
  constexpr std::string_view prefix = "cuda:";
  if (text.starts_with(prefix)) {
    const std::string_view digits = text.substr(prefix.size());
    int index = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (!digits.empty() && ec == std::errc{} && end == digits.data() + digits.size() && index >= 0 && index < 1024)
      return {true, index};
  }
  throw std::invalid_argument("--device must be cpu, cuda or cuda:N, not '" + std::string(text) + "'");
}

std::string CalibrateCommand::measurements_path_for(const std::string& network) const {
  return networks.size() == 1 ? measurements : measurements_path(measurements, network);
}

ParsedCommand parse_calibrate_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"Measure networks in LibTorch, fit PALEO's PPP and write a calibrated .hw"};
  CalibrateCommand c;
  std::string device = "cpu", dtype = "fp32", base;
  std::vector<std::string> nets, holdout, sets;
  std::int64_t seq_len = 0;
  double size_bands = 1.0, smoothing = FitOptions{}.smoothing;
  app.add_option("--device", device, "cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--batch", c.batch, "samples per batch")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  app.add_option("--dtype", dtype, "fp32, fp16, bf16, tf32, fp64")->capture_default_str();
  app.add_option("--base", base, "datasheet .hw the PPP are relative to (default: this machine's measured ceilings)");
  app.add_option("--out", c.out, "the calibrated .hw to write")->required();
  app.add_option("--measurements", c.measurements,
                 "write the per-layer times as CSV layer,pass,seconds for simulate --measured "
                 "(one network: FILE; several: FILE-NETWORK.csv beside it)");
  app.add_option("--threads", c.threads, "CPU threads for LibTorch (0: its own count, as a user's script runs; the .hw records it)")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  app.add_option("-s,--set", sets,
                 "override a network parameter, name=value, in every network that declares it (seq_len=128); "
                 "one per --set")
      ->allow_extra_args(false);
  app.add_option("--seq-len", seq_len, "tokens per sample of the language models: --set seq_len=N")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--holdout", holdout, "networks measured and predicted but not fitted");
  app.add_option("--warmup", c.warmup, "warm-up runs per measurement")->capture_default_str()->check(CLI::Range(0, 1000));
  app.add_option("--repeats", c.repeats, "timed runs per measurement (median)")->capture_default_str()->check(CLI::Range(1, 100000));
  app.add_option("--budget", c.budget_s, "seconds per layer pass before repeats stop")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  app.add_option("--gemm-size", c.gemm_size, "N of the N^3 GEMM ceiling")->capture_default_str()->check(CLI::Range(1, 1 << 14));
  app.add_option("--size-bands", size_bands,
                 "width, in decades of a pass's FLOPs and bytes, of the bands of op sizes a PPP is fitted per "
                 "(written as curves over size); 0: one PPP per op class and pass")
      ->capture_default_str()->check(CLI::Range(0.0, 20.0));
  app.add_option("--smoothing", smoothing, "how strongly neighbouring size bands are tied together (0: not at all)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e6));
  app.add_flag("!--no-layers", c.layers, "leave the per-layer table out of the report");
  app.add_flag("!--no-probes", c.probes,
               "measure only the networks given, not the kernel probes (depthwise convs, global pools): a class the "
               "networks lack then takes its fallback's PPP (depthwise: matmul; reduction: pooling)");
  app.add_flag("!--fit-launch-overhead", c.measure_dispatch,
               "fit the launch overhead per kernel with the PPP, instead of measuring the dispatch of an op that "
               "does no work and fixing it there (the default)");
  app.add_flag("!--warm-cache", c.cold_cache,
               "time each layer pass on the cache its previous run left warm (default on a CPU: before each timed run, "
               "write twice the cache a bandwidth probe finds, so that weights and saved activations come from "
               "memory, then read back the inputs the network has just written, as in a network run)");
  app.add_option("NET", nets, "networks to fit (paths or zoo names)")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return {std::nullopt, app.exit(e, out, err)};
  }

  c.device = parse_device(device);
  c.precision = simulate::precision_named(dtype);   // simulate's rule and message
  c.fit = {.by_size = size_bands > 0, .band_decades = size_bands > 0 ? size_bands : 1.0, .smoothing = smoothing};

  const lang::Overrides overrides = simulate::parameter_overrides(sets, seq_len);
  std::set<std::string> applied;
  std::vector<engine::io::NamedPath> read;   // every file the run reads, for the output-safety rule
  // Each network takes the overrides it declares: --set seq_len=128 shortens the language models and
  // leaves the CNNs beside them as they are.
  for (const bool held : {false, true})
    for (const std::string& name : held ? holdout : nets) {
      const std::string path = lang::resolve_network_path(name);
      lang::Overrides own;
      for (const std::string& declared : lang::network_parameters(path))
        if (const auto it = overrides.find(declared); it != overrides.end()) {
          own.insert(*it);
          applied.insert(declared);
        }
      c.networks.push_back({lang::load_network(path, own), path, held});
      read.push_back({held ? "held-out network" : "network", path});
    }
  if (!base.empty()) {
    const std::string path = lang::resolve_device_path(base);
    c.base = lang::load_device(path);
    read.push_back({"--base device file", path});
  }
  for (const auto& [name, value] : overrides)
    if (!applied.count(name))
      throw std::invalid_argument("--set " + name + "=" + value + ": no network given declares a parameter '" + name + "'");
  // Before anything is measured: no output may be an input, another output, or a link to either.
  std::vector<engine::io::NamedPath> written{{"--out", c.out}};
  if (!c.measurements.empty())
    for (const auto& n : c.networks) written.push_back({"--measurements", c.measurements_path_for(n.network.name)});
  engine::io::check_outputs(read, written);
  return {std::move(c), 0};
}

}  // namespace ridge::validate
