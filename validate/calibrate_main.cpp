// calibrate: measure networks in LibTorch on this machine, fit the PPP, write a `.hw` for simulate.
//
//   calibrate --device cpu --batch 8 --out this-cpu.hw alexnet vgg11 resnet18 --holdout resnet50 googlenet
//
// Progress goes to stderr, the report to stdout. Ctrl-C stops between measurements and writes nothing;
// the `.hw` is written atomically, so no reader ever sees half of it.
#include "validate/calibrate.hpp"
#include "validate/hw_writer.hpp"
#include "validate/measurements_csv.hpp"

#include "engine/io/atomic_file.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <vector>

namespace {

using namespace ridge;

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }


std::string today() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s * 1e3);
  return buf;
}

std::string pct(double predicted, double measured) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (predicted - measured) / measured * 100.0);
  return buf;
}

// GPU runs only: where the device time went, by kernel family and by the kernels that took most.
void print_gpu_breakdown(const validate::cupti::LayerActivity& gpu) {
  if (gpu.busy_s <= 0.0) return;
  std::printf("\nGPU time of the measured layer passes by kernel family (%d kernels, %d copies, %s ms):\n",
              gpu.kernels, gpu.copies, ms(gpu.busy_s).c_str());
  for (const auto& [family, s] : gpu.by_family)
    std::printf("  %-14s %10s ms %6.1f%%\n", std::string(validate::cupti::family_name(family)).c_str(), ms(s).c_str(),
                100.0 * s / gpu.busy_s);
  std::vector<std::pair<double, std::string>> kernels;
  for (const auto& [name, s] : gpu.by_kernel) kernels.emplace_back(s, name);
  std::sort(kernels.rbegin(), kernels.rend());
  const std::size_t shown = std::min<std::size_t>(kernels.size(), 10);
  std::printf("Top %zu kernels:\n", shown);
  for (std::size_t i = 0; i < shown; ++i) {
    const std::string algorithm = validate::cupti::conv_algorithm(kernels[i].second);
    const std::string tag = algorithm.empty() ? std::string() : std::string(" [").append(algorithm).append("]");
    std::printf("  %10s ms  %s%s\n", ms(kernels[i].first).c_str(), kernels[i].second.substr(0, 100).c_str(), tag.c_str());
  }
}

std::string cv_text(std::optional<double> cv) {
  if (!cv) return "-";   // a single run: no spread to show
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", *cv * 100.0);
  return buf;
}

// How much the repeats behind each median varied: a fit is only as good as the medians it is given.
void print_spread(const std::vector<validate::NetworkComparison>& networks) {
  std::printf("\nSpread of the repeats (coefficient of variation, stddev/mean; warned above %.0f%%):\n",
              validate::kNoisyCv * 100.0);
  std::printf("  %-20s %8s %8s | %7s %8s %8s  %s\n", "network", "infer", "train", "passes", "median", "worst",
              "worst layer pass");
  for (const auto& n : networks) {
    const auto& l = n.layer_spread;
    std::printf("  %-20s %8s %8s | %7zu %8s %8s  %s\n", n.network.c_str(), cv_text(n.infer_cv).c_str(),
                cv_text(n.train_cv).c_str(), l.passes, cv_text(l.passes ? std::optional(l.median_cv) : std::nullopt).c_str(),
                cv_text(l.passes ? std::optional(l.worst_cv) : std::nullopt).c_str(), l.passes ? l.worst.c_str() : "-");
  }
}

void print_report(const validate::CalibrationResult& r, bool all_layers) {
  std::printf("Ceilings measured: GEMM %.2f GFLOP/s, convolution %.2f GFLOP/s, copy %.2f GB/s", r.gemm_flops / 1e9,
              r.conv_flops / 1e9, r.copy_bandwidth / 1e9);
  if (r.first_touch > 0) std::printf(", fresh pages %.2f GB/s", r.first_touch / 1e9);
  if (r.dispatch_overhead > 0) std::printf(", dispatch %.2f us per op", r.dispatch_overhead * 1e6);
  if (r.conv_flops_end > 0) std::printf("; convolution again at the end %.2f GFLOP/s", r.conv_flops_end / 1e9);
  std::printf("\n");
  if (!r.cache_curve.empty()) {
    std::printf("Copy bandwidth against working set (GB/s):");
    for (const validate::BandwidthPoint& p : r.cache_curve)
      std::printf(" %.0f MiB %.1f%s", p.bytes / (1 << 20), p.bandwidth / 1e9, p.bytes == r.cache_bytes ? " (cache)" : "");
    std::printf("\n");
  }
  std::printf("\n");
  std::printf("Fitted PPP (launch overhead %.2f us per kernel, %s):\n", r.fit.launch_overhead * 1e6,
              r.dispatch_overhead > 0 ? "the measured dispatch" : "fitted");
  for (const auto& [key, g] : r.fit.groups)
    std::printf("  %-14s %-8s compute %-8s memory %-8s (%zu layer passes)\n", std::string(ir::op_class_name(key.first)).c_str(),
                std::string(ir::pass_name(key.second)).c_str(),
                g.compute_ppp ? std::to_string(*g.compute_ppp).substr(0, 6).c_str() : "-",
                g.memory_ppp ? std::to_string(*g.memory_ppp).substr(0, 6).c_str() : "-", g.samples);
  for (const auto& [key, g] : r.fit.groups)
    for (const auto& [what, curve] : {std::pair{"compute", &g.compute_curve}, std::pair{"memory", &g.memory_curve}}) {
      if (!*curve || (*curve)->points.size() < 2) continue;
      std::string points;
      for (const auto& p : (*curve)->points) {
        std::array<char, 48> buf{};
        std::snprintf(buf.data(), buf.size(), "%s%.3g: %.3f", points.empty() ? "" : ", ", p.size, p.fraction);
        points += buf.data();
      }
      std::printf("  %-14s %-8s %-7s by size [%s]\n", std::string(ir::op_class_name(key.first)).c_str(),
                  std::string(ir::pass_name(key.second)).c_str(), what, points.c_str());
    }
  if (all_layers) {
    std::printf("\nPer layer (ms; error = predicted vs measured; '!' = measured below the roofline bound;\n"
                "pass: fwd = inference forward, trn = training-mode forward, bwd = backward):\n");
    std::printf("  %-18s %-34s %-4s %10s %10s %8s %10s %8s %10s\n", "network", "layer", "pass", "measured", "before",
                "err", "after", "err", "roofline");
    for (const auto& l : r.layers)
      std::printf("  %-18s %-34s %-4s %10s %10s %8s %10s %8s %10s%s\n", l.network.c_str(), l.layer.c_str(),
                  l.train ? "trn" : l.pass == ir::Pass::Forward ? "fwd" : "bwd", ms(l.measured_s).c_str(), ms(l.before_s).c_str(),
                  pct(l.before_s, l.measured_s).c_str(), ms(l.after_s).c_str(), pct(l.after_s, l.measured_s).c_str(),
                  ms(l.roofline_s).c_str(), l.below_roofline ? " !" : "");
  }
  std::printf("\nPer network, end to end (ms; predicted = PALEO sum of layers):\n");
  std::printf("  %-20s %-8s %10s %10s %10s %8s %10s %8s | %10s %10s %10s %8s %10s %8s\n", "network", "role", "infer",
              "sum fwd", "before", "err", "after", "err", "train", "sum f+b", "before", "err", "after", "err");
  for (const auto& n : r.networks)
    std::printf("  %-20s %-8s %10s %10s %10s %8s %10s %8s | %10s %10s %10s %8s %10s %8s\n", n.network.c_str(),
                n.holdout ? "held out" : n.probe ? "probe" : "fitted", ms(n.measured_infer_s).c_str(), ms(n.layers_fwd_s).c_str(),
                ms(n.before_infer_s).c_str(), pct(n.before_infer_s, n.measured_infer_s).c_str(),
                ms(n.after_infer_s).c_str(), pct(n.after_infer_s, n.measured_infer_s).c_str(),
                ms(n.measured_train_s).c_str(), ms(n.layers_fwd_s + n.layers_bwd_s).c_str(),
                ms(n.before_train_s).c_str(), pct(n.before_train_s, n.measured_train_s).c_str(),
                ms(n.after_train_s).c_str(), pct(n.after_train_s, n.measured_train_s).c_str());
  for (const bool holdout : {false, true}) {
    const auto b = validate::median_error(r.networks, holdout, false);
    const auto a = validate::median_error(r.networks, holdout, true);
    if (b.networks == 0) continue;
    std::printf("Median error, %s networks (%zu): inference %.1f%% -> %.1f%%, training step %.1f%% -> %.1f%%\n",
                holdout ? "held-out" : "fitted", b.networks, b.infer * 100, a.infer * 100, b.train * 100, a.train * 100);
  }
  // Cross-validation: each fitted network predicted by a fit of the others; beside the fit error, how
  // well the .hw generalises.
  if (const auto loo = validate::leave_one_out_error(r.networks); loo.networks > 0) {
    std::printf("Median error, each fitted network left out of its own fit (%zu fits): inference %.1f%%, training step %.1f%%\n",
                loo.networks, loo.infer * 100, loo.train * 100);
    for (const auto& n : r.networks)
      if (n.left_out_infer_s)
        std::printf("  %-20s left out: inference %s (%s), training step %s (%s)\n", n.network.c_str(), ms(*n.left_out_infer_s).c_str(),
                    pct(*n.left_out_infer_s, n.measured_infer_s).c_str(),
                    n.left_out_train_s ? ms(*n.left_out_train_s).c_str() : "-",
                    n.left_out_train_s ? pct(*n.left_out_train_s, n.measured_train_s).c_str() : "-");
  }
  print_spread(r.networks);
  print_gpu_breakdown(r.gpu_activity);
  for (const auto& note : r.notes) std::printf("note: %s\n", note.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    // Every check of the command, and the networks' loading, before LibTorch is touched.
    const validate::ParsedCommand parsed = validate::parse_calibrate_command(argc, argv, std::cout, std::cerr);
    if (!parsed.command) return parsed.exit_code;
    const validate::CalibrateCommand& c = *parsed.command;
    validate::CalibrateOptions o;
    o.cuda = c.device.cuda;
    o.cuda_index = c.device.index;
    o.batch = c.batch;
    o.precision = c.precision;
    o.base = c.base;
    o.date = today();
    o.threads = c.threads;
    o.probes = c.probes;
    o.cold_cache = c.cold_cache;
    o.measure_dispatch = c.measure_dispatch;
    o.fit = c.fit;
    o.measure.warmup = c.warmup;
    o.measure.repeats = c.repeats;
    o.measure.budget_s = c.budget_s;
    o.measure.stop = &g_stop;
    o.measure.progress = [](const std::string& line) { std::cerr << line << std::endl; };
    o.ceilings.gemm_size = c.gemm_size;
    o.ceilings.stop = &g_stop;
    std::vector<validate::CalibrationNetwork> inputs;
    for (const auto& n : c.networks) inputs.push_back({n.network, n.holdout});

    const validate::CalibrationResult r = validate::calibrate(inputs, o);
    print_report(r, c.layers);
    for (const auto& n : r.networks)
      for (const std::string& w : validate::noise_warnings(n)) std::cerr << "calibrate: warning: " << w << std::endl;
    for (const std::string& w : r.warnings) std::cerr << "calibrate: warning: " << w << std::endl;
    // No signal may cut the write short: block them for the few microseconds it takes.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    engine::io::write_file_atomically(c.out, validate::write_hw(r.device, "Calibrated by ridge calibrate on " + o.date +
                                                                           ". Regenerate rather than edit."));
    std::cerr << "wrote " << c.out << std::endl;
    if (!c.measurements.empty())
      for (const auto& n : r.networks) {
        if (n.probe) continue;   // the user's networks only
        std::vector<validate::MeasuredPass> passes;
        for (const auto& l : r.layers)
          if (l.network == n.network && !l.train) passes.push_back({l.layer, l.pass, l.measured_s});
        const std::string path = c.measurements_path_for(n.network);
        engine::io::write_file_atomically(path, validate::measurements_csv(passes));
        std::cerr << "wrote " << path << std::endl;
      }
    return 0;
  } catch (const validate::Interrupted&) {
    std::cerr << "calibrate: interrupted; nothing written" << std::endl;
    return 130;
  } catch (const lang::Error& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  } catch (const c10::Error& e) {
    // LibTorch's own errors carry a C++ backtrace of its internals: the message alone says what failed.
    std::cerr << "calibrate: error: LibTorch: " << e.what_without_backtrace() << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "calibrate: error: " << e.what() << std::endl;
    return 1;
  }
}
