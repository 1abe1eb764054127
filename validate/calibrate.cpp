#include "validate/calibrate.hpp"

#include "validate/cache_flush.hpp"
#include "validate/probes.hpp"
#include "validate/cupti/tracer.hpp"

#include "engine/cpu_dispatch.hpp"
#include "engine/simulate.hpp"
#include "engine/timing.hpp"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace ridge::validate {
namespace {

// What calibrate writes on a GPU before each timed layer pass: 256 MiB, four times the largest GPU L2
// in hw/ (the H200's 60 MiB), about 60 us at an H200's copy rate, outside the pass's CUPTI window.
constexpr std::size_t kGpuFlushBytes = std::size_t{256} << 20;

std::string format_fixed(double v, int digits) {
  std::ostringstream s;
  s.precision(digits);
  s << std::fixed << v;
  return s.str();
}

std::string percent(double v) { return format_fixed(v * 100.0, 1) + " %"; }

std::string mebibytes(double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB"; }
std::string gigabytes_per_s(double bandwidth) { return format_fixed(bandwidth / 1e9, 1) + " GB/s"; }

// Why the CPU flush is the size it is, for the .hw's provenance: the cache the probe found (with its
// bandwidth there and at the probe's largest set), else what sysfs reports.
std::string flush_reason(const std::vector<BandwidthPoint>& curve, double cache, std::size_t reported) {
  const std::string sysfs = reported > 0 ? mebibytes(static_cast<double>(reported)) : std::string("no size");
  if (cache > 0) {
    const auto at = std::find_if(curve.begin(), curve.end(), [&](const BandwidthPoint& p) { return p.bytes == cache; });
    return "twice the " + mebibytes(cache) + " the cache probe found: copies ran at " + gigabytes_per_s(at->bandwidth) +
           " there and " + gigabytes_per_s(curve.back().bandwidth) + " at " + mebibytes(curve.back().bytes) +
           "; Linux reports " + sysfs;
  }
  if (reported > 0)
    return "twice the " + sysfs + " last-level cache Linux reports; the cache probe found no working set copied " +
           format_fixed(kCacheSpeedup, 1) + " times as fast as memory";
  return "Linux reports no cache size and the cache probe found none";
}

std::string join_names(const std::vector<CalibrationNetwork>& nets, bool holdout) {
  std::string out;
  std::size_t probes = 0;
  std::map<std::int64_t, std::size_t> probes_at;   // probes measured at a batch of their own
  for (const auto& n : nets)
    if (n.probe) {
      ++probes;
      if (n.batch > 0) ++probes_at[n.batch];
    } else if (n.holdout == holdout) out += (out.empty() ? "" : ", ") + n.network.name;
  if (!holdout && probes > 0) {
    out += (out.empty() ? "" : " and ") + std::to_string(probes) + " kernel probes";
    for (const auto& [batch, count] : probes_at)
      out += " (" + std::to_string(count) + " of them at batch " + std::to_string(batch) + ")";
  }
  return out.empty() ? "none" : out;
}

// The device the PPP are fitted against: the base `.hw`, or, without one, this machine described by
// its measured ceilings (how a `.hw` for "this CPU" is made).
ir::Device starting_device(const CalibrateOptions& o, double gemm, double bw) {
  if (o.base) return *o.base;
  ir::Device d;
  d.id = o.cuda ? "this-gpu" : "this-cpu";
  d.name = o.cuda ? cupti::cuda_device_name(o.cuda_index) : cpu_model_name();
  if (d.name.empty()) d.name = o.cuda ? "CUDA device" : "this CPU";
  d.kind = o.cuda ? ir::DeviceKind::GPU : ir::DeviceKind::CPU;
  const std::string src = "measured by ridge calibrate on " + o.date;
  d.vector_peak[o.precision] = {gemm, src + " (best of a " + std::to_string(o.ceilings.gemm_size) +
                                          "^3 GEMM and a 256-channel 3x3 convolution)"};
  d.memory_bandwidth = ir::Figure{bw, src + " (large tensor copy, read + write)"};
  return d;
}

// The error summary of one comparison direction.
double rel(double predicted, double measured) { return relative_error(predicted, measured); }

}  // namespace

namespace {

// Where --device cuda cannot run, say why before anything is measured: Debian's LibTorch has no CUDA,
// and its CUDA stubs would otherwise fail deep inside the first tensor op.
void require_cuda_device(int index) {
  const auto count = static_cast<int>(torch::cuda::device_count());
  if (!at::hasCUDA())
    throw std::invalid_argument("this LibTorch (" + libtorch_version() +
                                ") was built without CUDA; Debian's libtorch-dev is CPU-only. Build calibrate "
                                "against a CUDA LibTorch to measure a GPU (docs/gpu.md, \"`calibrate` on a GPU\")");
  if (index >= count)
    throw std::invalid_argument("--device cuda:" + std::to_string(index) + ": this machine has " +
                                std::to_string(count) + " CUDA device(s)");
}

}  // namespace

at::ScalarType torch_dtype(ir::Precision p) {
  switch (p) {
    case ir::Precision::FP64: return at::kDouble;
    case ir::Precision::FP32: return at::kFloat;
    case ir::Precision::TF32: return at::kFloat;   // fp32 tensors; TF32 is enabled on the matmul units
    case ir::Precision::FP16: return at::kHalf;
    case ir::Precision::BF16: return at::kBFloat16;
    case ir::Precision::FP8: case ir::Precision::INT8: case ir::Precision::FP6: case ir::Precision::FP4:
    case ir::Precision::MXFP8: case ir::Precision::MXFP6: case ir::Precision::MXFP4: break;
  }
  throw std::invalid_argument("LibTorch cannot run the networks in " + std::string(ir::precision_name(p)));
}

std::string libtorch_version() { return TORCH_VERSION; }

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return {};
}

std::vector<std::string> bound_warnings(const FitResult& fit, const std::vector<FitSample>& samples) {
  // Below this a PPP says the class runs a hundred times slower than its roofline: not a property of
  // the hardware but time the model does not explain (dispatch, allocation, a slow path).
  constexpr double kImplausiblyLow = 0.01;
  constexpr double kAtCeiling = 0.999;
  std::vector<std::string> out;
  for (const auto& [key, g] : fit.groups) {
    double predicted = 0.0, measured = 0.0, roofline = 0.0;
    for (const FitSample& s : samples)
      if (s.op_class == key.first && s.pass == key.second) {
        predicted += predict(fit, s);
        measured += s.measured;
        roofline += std::max(s.compute_time, s.memory_time);
      }
    if (!(measured > 0)) continue;
    const std::string name = "ppp." + std::string(ir::op_class_name(key.first)) + "." + std::string(ir::pass_name(key.second));
    const auto extremes = [](const std::optional<double>& ppp, const std::optional<ir::SizeCurve>& curve) {
      double lo = ppp.value_or(1.0), hi = ppp.value_or(0.0);
      if (curve)
        for (const auto& p : curve->points) lo = std::min(lo, p.fraction), hi = std::max(hi, p.fraction);
      return std::pair{lo, hi};
    };
    for (const auto& [term, ppp, curve] : {std::tuple{"compute", &g.compute_ppp, &g.compute_curve},
                                           std::tuple{"memory", &g.memory_ppp, &g.memory_curve}}) {
      if (!*ppp && !*curve) continue;
      const auto [lo, hi] = extremes(*ppp, *curve);
      const double over = predicted / measured - 1.0;
      std::array<char, 320> line{};
      if (hi >= kAtCeiling && over > 0.05) {
        std::snprintf(line.data(), line.size(),
                      "%s.%s ended at its bound, 1.0 (the measured ceiling), and the model still predicts its %zu layer "
                      "passes %.0f %% slower than measured: the fit took that time out of other figures",
                      name.c_str(), term, g.samples, 100.0 * over);
        out.emplace_back(line.data());
      }
      if (lo < kImplausiblyLow) {
        std::snprintf(line.data(), line.size(),
                      "%s.%s fell to %.4f: its %zu layer passes took %.3g ms, %.0fx their roofline; that is time the "
                      "model does not explain (dispatch, allocation, a slow path), absorbed by this figure",
                      name.c_str(), term, lo, g.samples, measured * 1e3, roofline > 0 ? measured / roofline : 0.0);
        out.emplace_back(line.data());
      }
    }
  }
  return out;
}

ErrorSummary median_error(const std::vector<NetworkComparison>& nets, bool holdout, bool after) {
  std::vector<double> infer, train;
  for (const auto& n : nets) {
    if (n.holdout != holdout || n.probe) continue;
    infer.push_back(rel(after ? n.after_infer_s : n.before_infer_s, n.measured_infer_s));
    if (n.measured_train_s > 0) train.push_back(rel(after ? n.after_train_s : n.before_train_s, n.measured_train_s));
  }
  return {median(infer), median(train), infer.size()};
}

std::optional<std::string> ceiling_drift_warning(double start_flops, double end_flops) {
  if (!(start_flops > 0.0) || !(end_flops > 0.0)) return std::nullopt;
  const double drift = end_flops / start_flops - 1.0;
  if (std::abs(drift) <= kCeilingDrift) return std::nullopt;
  char line[400];
  std::snprintf(line, sizeof line,
                "the machine's speed moved while calibrate measured: the convolution ceiling was %.1f GFLOP/s at the "
                "start and %.1f GFLOP/s once the layers were timed (%+.0f %%); the fitted PPP are relative to the first. "
                "Calibrate again on an idle machine before trusting this .hw",
                start_flops / 1e9, end_flops / 1e9, drift * 100.0);
  return std::string(line);
}

std::vector<std::string> noise_warnings(const NetworkComparison& n) {
  std::vector<std::string> out;
  const auto add = [&](std::string_view what, std::optional<double> cv) {
    if (!cv) return;
    if (auto w = noise_warning(n.network, what, *cv)) out.push_back(std::move(*w));
  };
  add("end-to-end inference", n.infer_cv);
  add("end-to-end training step", n.train_cv);
  if (n.layer_spread.passes > 0) add("the median layer pass", n.layer_spread.median_cv);
  if (n.dropped_records > 0)
    out.push_back(n.network + ": CUPTI dropped " + std::to_string(n.dropped_records) +
                  " activity records while its layer passes were timed: some passes' device times are short");
  return out;
}

ErrorSummary leave_one_out_error(const std::vector<NetworkComparison>& nets) {
  std::vector<double> infer, train;
  for (const auto& n : nets) {
    if (n.holdout || n.probe || !n.left_out_infer_s) continue;
    infer.push_back(rel(*n.left_out_infer_s, n.measured_infer_s));
    if (n.measured_train_s > 0 && n.left_out_train_s) train.push_back(rel(*n.left_out_train_s, n.measured_train_s));
  }
  return {median(infer), median(train), infer.size()};
}

namespace {

// `before` with a fit's PPP and launch overhead, each figure's source `fitted` and its sample count.
// `launch_source`, when not empty, is where a launch overhead the fit was given (not fitted) came from.
ir::Device with_fit(const ir::Device& before, const FitResult& fit, const std::string& fitted, const CalibrateOptions& o,
                    const std::string& launch_source) {
  ir::Device d = before;
  for (const auto& [key, g] : fit.groups) {
    ir::Efficiency e;
    const std::string source = fitted + ", " + std::to_string(g.samples) + " layers";
    const auto by_size = [&](const ir::SizeCurve& c, std::string_view of) {
      ir::SizeCurve out = c;
      out.source = source + ", by " + std::string(of) + " in bands of " + std::to_string(o.fit.band_decades).substr(0, 3) + " decade";
      return out;
    };
    if (g.compute_curve) e.compute_curve = by_size(*g.compute_curve, "FLOPs");
    else if (g.compute_ppp) e.compute = ir::Figure{*g.compute_ppp, source};
    if (g.memory_curve) e.memory_curve = by_size(*g.memory_curve, "bytes");
    else if (g.memory_ppp) e.memory = ir::Figure{*g.memory_ppp, source};
    if (e.compute || e.memory || e.compute_curve || e.memory_curve) d.ppp[{key.first, key.second}] = e;
  }
  // A `.hw` figure must be positive: a fit that finds no launch overhead leaves the figure out.
  if (fit.launch_overhead > 0)
    d.launch_overhead = ir::Figure{fit.launch_overhead, (launch_source.empty() ? fitted : launch_source) + ", per kernel"};
  else d.launch_overhead.reset();
  return d;
}

}  // namespace

CalibrationResult calibrate(const std::vector<CalibrationNetwork>& networks, const CalibrateOptions& o) {
  std::vector<CalibrationNetwork> nets = networks;
  if (o.probes)
    for (ir::Network& probe : kernel_probes()) nets.push_back({std::move(probe), false, true});
  if (o.cuda) require_cuda_device(o.cuda_index);
  const at::Device device = o.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(o.cuda_index)) : at::Device(at::kCPU);
  const at::ScalarType dtype = torch_dtype(o.precision);
  if (o.precision == ir::Precision::TF32) {
    at::globalContext().setAllowTF32CuBLAS(true);
    at::globalContext().setAllowTF32CuDNN(true);
  } else if (o.precision == ir::Precision::FP32) {
    // fp32 means fp32: torch 1.13 lets cuDNN convolutions use TF32 by default.
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(false);
  }
  if (o.threads > 0) at::set_num_threads(o.threads);
  at::globalContext().setFlushDenormal(true);   // denormal inputs would time a slow path no real run takes

  const auto say = [&](const std::string& s) {
    if (o.measure.progress) o.measure.progress(s);
  };
  CalibrationResult result;
  say("measuring ceilings (GEMM " + std::to_string(o.ceilings.gemm_size) + "^3, copy)");
  result.gemm_flops = measure_gemm_flops(device, dtype, o.ceilings);
  result.conv_flops = measure_conv_flops(device, dtype, o.ceilings);
  result.peak_flops = std::max(result.gemm_flops, result.conv_flops);
  result.copy_bandwidth = measure_copy_bandwidth(device, o.ceilings);
  result.before = starting_device(o, result.peak_flops, result.copy_bandwidth);
  if (!o.cuda) {
    // Which kernels LibTorch picks can turn on the thread count (engine/cpu_dispatch.hpp).
    result.before.measured_threads = ir::Figure{static_cast<double>(at::get_num_threads()),
                                                "measured by ridge calibrate on " + o.date + " (at::get_num_threads())"};
    // Where LibTorch runs the pointwise probes natively at this batch, measure them at the batch from
    // which it runs oneDNN too, so that both classes are fitted.
    if (o.probes && engine::libtorch_runs_1x1_natively(result.before, o.batch, o.precision))
      for (ir::Network& probe : pointwise_probes("_b" + std::to_string(engine::kLibTorchOneDnnBatch)))
        nets.push_back({std::move(probe), false, true, engine::kLibTorchOneDnnBatch});
  }
  if (!o.cuda) {   // the CUDA caching allocator keeps its memory: no fresh pages to pay for
    result.first_touch = measure_first_touch(o.ceilings);
    if (result.first_touch > 0) {
      result.before.first_touch = ir::Figure{result.first_touch, "measured by ridge calibrate on " + o.date +
                                                                     " (a fresh 64 MiB block allocated, written and freed, less the same block rewritten)"};
      result.before.mmap_threshold = ir::Figure{
          kGlibcMmapThresholdMax, "glibc malloc: DEFAULT_MMAP_THRESHOLD_MAX, 4 * 1024 * 1024 * sizeof(long) on 64-bit "
                                  "(malloc/malloc.c; mallopt(3) M_MMAP_THRESHOLD); larger blocks are mapped afresh"};
    }
  }

  FitOptions fit_options = o.fit;
  std::string launch_source;
  if (o.measure_dispatch) {
    say("measuring the dispatch of an op that does no work");
    result.dispatch_overhead = measure_dispatch_overhead(device, o.ceilings);
    fit_options.fit_launch_overhead = false;
    fit_options.launch_overhead = result.dispatch_overhead;
    launch_source = "measured by ridge calibrate on " + o.date + " (" + std::to_string(kDispatchRun) +
                    " at::add_out of one-element tensors in a row, the best of " + std::to_string(std::max(1, o.ceilings.repeats)) +
                    " runs)";
  }

  MeasureOptions measure_options = o.measure;
  std::string cold_timing;
  if (!o.cuda && o.cold_cache) {
    // The cache that matters from a probe of copy bandwidth against working set; sysfs (on a VM, the
    // host's cache) only where the probe finds none.
    const std::size_t reported = last_level_cache_bytes();
    say("measuring copy bandwidth against working set");
    result.cache_curve = measure_bandwidth_curve(std::max(std::size_t{1} << 30, 4 * reported), o.ceilings);
    result.cache_bytes = cache_that_matters(result.cache_curve);
    const auto cache = static_cast<std::size_t>(result.cache_bytes);
    measure_options.flush_bytes = cold_cache_flush_bytes(cache > 0 ? cache : reported);
    cold_timing = "layer passes timed cold: " + std::to_string(measure_options.flush_bytes >> 20) +
                  " MiB written before each timed run (" + flush_reason(result.cache_curve, result.cache_bytes, reported) +
                  "), then what the network has just written (the inputs, the incoming gradient) read back";
    result.notes.push_back(cold_timing + "; --warm-cache times them warm");
  }
  if (o.cuda && o.cold_cache) {
    // A GPU's L2 (60 MiB on an H200) holds a layer's weights and inputs between its repeats; in a
    // network other layers' data pass through it first.
    measure_options.device_flush_bytes = kGpuFlushBytes;
    result.notes.push_back("layer passes timed cold: " + std::to_string(kGpuFlushBytes >> 20) +
                           " MiB of device memory written before each timed run, beyond any catalogue GPU's L2; "
                           "--warm-cache times them warm");
  }

  const auto options_for = [&](const CalibrationNetwork& cn) {
    return engine::Options{.batch = cn.batch > 0 ? cn.batch : o.batch, .precision = o.precision};
  };
  struct Measured {
    const CalibrationNetwork* net;
    engine::Report before;
    NetworkTiming timing;
    std::size_t first_sample = 0, end_sample = 0;   // its rows in `samples` (none when held out)
  };
  std::vector<Measured> measured;
  std::vector<FitSample> samples;
  for (const auto& cn : nets) {
    const engine::Options sim = options_for(cn);
    say("measuring " + cn.network.name + (cn.holdout ? " (held out)" : cn.probe ? " (probe)" : "") + " at batch " +
        std::to_string(sim.batch));
    TorchProgram program(cn.network, {.device = device, .dtype = dtype});
    Measured m{&cn, engine::simulate(cn.network, result.before, sim), measure(program, sim.batch, measure_options)};
    for (const LayerTiming& lt : m.timing.layers) {
      const auto add_gpu = [&](const PassTiming& t) {
        if (t.gpu) cupti::accumulate(result.gpu_activity, *t.gpu);
      };
      add_gpu(lt.forward);
      if (lt.forward_train) add_gpu(*lt.forward_train);
      if (lt.backward) add_gpu(*lt.backward);
    }
    const double bw = m.before.device.bandwidth;
    // Three kinds of sample: eval forward, training-mode forward and backward, each fitting the PPP of
    // its pass; each kind's network time T weights its rows (fit.hpp).
    std::array<std::vector<FitSample>, 3> kinds;
    for (const LayerTiming& lt : m.timing.layers) {
      const engine::LayerRow& row = m.before.layers.at(lt.id);
      // A layer is timed on resident memory (heap_cushion.hpp); the fresh pages it still faulted in
      // were counted, and their time at the measured first-touch rate comes out of its measurement.
      const auto add = [&](std::size_t kind, const engine::PassCost& cost, ir::Pass pass, const PassTiming& t) {
        if (cost.kernels == 0 || !(t.median_s > 0) || cn.holdout) return;   // views run nothing to fit
        const double fresh_s = result.first_touch > 0 ? t.fresh_bytes / result.first_touch : 0.0;
        kinds[kind].push_back({row.op_class, pass, cost.flops / row.peak.flops_per_s, cost.bytes() / bw,
                               static_cast<double>(cost.kernels), t.median_s, 0.0, cost.flops, cost.bytes(), fresh_s});
      };
      add(0, row.fwd, ir::Pass::Forward, lt.forward);
      if (lt.forward_train) add(1, row.fwd_train, ir::Pass::ForwardTrain, *lt.forward_train);
      if (lt.backward) add(2, row.bwd, ir::Pass::Backward, *lt.backward);
    }
    m.first_sample = samples.size();
    for (auto& kind : kinds) {
      double total = 0.0;
      for (const FitSample& s : kind) total += s.measured;
      for (FitSample& s : kind) s.network_time = total;
      samples.insert(samples.end(), kind.begin(), kind.end());
    }
    m.end_sample = samples.size();
    measured.push_back(std::move(m));
  }
  if (samples.empty()) throw std::invalid_argument("calibrate: no network to fit (all are held out, or none runs a kernel)");
  std::string resident_timing;
  if (!o.cuda && measure_options.cushion && measure_options.per_layer) {
    double fresh_s = 0.0, measured_s = 0.0;
    for (const FitSample& s : samples) {
      fresh_s += s.fresh_time;
      measured_s += s.measured;
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "layer passes timed on resident heap memory (validate/heap_cushion.hpp); the fresh pages they still "
                  "faulted in, %.1f ms of their %.1f ms at the measured first-touch rate, came out before the fit",
                  fresh_s * 1e3, measured_s * 1e3);
    resident_timing = line;
    result.notes.push_back(resident_timing);
  }

  say("measuring the convolution ceiling again");
  result.conv_flops_end = measure_conv_flops(device, dtype, o.ceilings);

  say("fitting PPP to " + std::to_string(samples.size()) + " layer passes");
  result.fit = fit_ppp(samples, fit_options);
  result.warnings = bound_warnings(result.fit, samples);
  if (auto drift = ceiling_drift_warning(result.conv_flops, result.conv_flops_end)) result.warnings.push_back(std::move(*drift));

  const std::string fitted = "fitted by ridge calibrate on " + o.date + " to " + join_names(nets, false) + " (batch " +
                             std::to_string(o.batch) + ", " + std::string(ir::precision_name(o.precision)) + ")";
  result.device = with_fit(result.before, result.fit, fitted, o, launch_source);
  ir::Device& d = result.device;
  const std::string msrc = "measured by ridge calibrate on " + o.date;
  d.measured_peak[o.precision] = {result.peak_flops, msrc + " (GEMM " + std::to_string(result.gemm_flops / 1e9) +
                                                        " GFLOP/s, convolution " + std::to_string(result.conv_flops / 1e9) + " GFLOP/s)"};
  d.measured_bandwidth = ir::Figure{result.copy_bandwidth, msrc + " (large tensor copy)"};

  // Predictions before and after, per layer and per network.
  for (const Measured& m : measured) {
    const engine::Report after = engine::simulate(m.net->network, d, options_for(*m.net));
    NetworkComparison nc;
    nc.network = m.net->network.name;
    nc.holdout = m.net->holdout;
    nc.probe = m.net->probe;
    nc.measured_infer_s = m.timing.inference_s;
    nc.measured_train_s = m.timing.training_step_s;
    nc.layers_fwd_s = m.timing.sum_forward_s();
    nc.layers_bwd_s = m.timing.sum_backward_s();
    nc.before_infer_s = m.before.totals.time_fwd_s;
    nc.after_infer_s = after.totals.time_fwd_s;
    nc.before_train_s = m.before.totals.time_train_step_s;
    nc.after_train_s = after.totals.time_train_step_s;
    nc.infer_cv = m.timing.inference_cv;
    nc.dropped_records = m.timing.dropped_records;
    nc.train_cv = m.timing.training_step_cv;
    std::vector<LabelledCv> cvs;
    for (const LayerTiming& lt : m.timing.layers) {
      const std::string& name = m.net->network.layers.at(lt.id).name;
      cvs.push_back({name + " fwd", lt.forward.cv});
      if (lt.forward_train) cvs.push_back({name + " trn", lt.forward_train->cv});
      if (lt.backward) cvs.push_back({name + " bwd", lt.backward->cv});
    }
    nc.layer_spread = summarise(cvs);
    result.networks.push_back(nc);
    for (const LayerTiming& lt : m.timing.layers) {
      const auto add = [&](ir::Pass pass, const engine::PassTime& b, const engine::PassTime& a, double t, bool train = false) {
        const engine::LayerRow& row = after.layers.at(lt.id);
        result.layers.push_back({nc.network, row.name, row.op, row.op_class, pass, train, nc.holdout, t, b.paleo_s,
                                 a.paleo_s, a.roofline_s, engine::beats_roofline(t, a.roofline_s)});
      };
      add(ir::Pass::Forward, m.before.layers.at(lt.id).time_fwd, after.layers.at(lt.id).time_fwd, lt.forward.median_s);
      if (lt.forward_train)
        add(ir::Pass::Forward, m.before.layers.at(lt.id).time_fwd_train, after.layers.at(lt.id).time_fwd_train,
            lt.forward_train->median_s, true);
      if (lt.backward)
        add(ir::Pass::Backward, m.before.layers.at(lt.id).time_bwd, after.layers.at(lt.id).time_bwd, lt.backward->median_s);
    }
  }

  // Cross-validation (issue #37): each fitted network predicted by a fit of every other network's
  // layers (and the probes'), so a user sees how the .hw holds on a network it never saw.
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const Measured& m = measured[i];
    if (m.net->holdout || m.net->probe || m.first_sample == m.end_sample) continue;
    std::vector<FitSample> others(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(m.first_sample));
    others.insert(others.end(), samples.begin() + static_cast<std::ptrdiff_t>(m.end_sample), samples.end());
    if (others.empty()) continue;
    say("cross-validating: fitting without " + m.net->network.name);
    ir::Device without = with_fit(result.before, fit_ppp(others, fit_options), fitted, o, launch_source);
    without.measured_peak = d.measured_peak;
    without.measured_bandwidth = d.measured_bandwidth;
    const engine::Report predicted = engine::simulate(m.net->network, without, options_for(*m.net));
    result.networks[i].left_out_infer_s = predicted.totals.time_fwd_s;
    result.networks[i].left_out_train_s = predicted.totals.time_train_step_s;
  }

  const std::size_t below = static_cast<std::size_t>(
      std::count_if(result.layers.begin(), result.layers.end(), [](const LayerComparison& l) { return l.below_roofline; }));
  if (below > 0)
    result.notes.push_back(std::to_string(below) +
                           " layer passes measured faster than their roofline bound: a counting or device-figure "
                           "error (or data served from cache faster than the memory bandwidth)");

  const ErrorSummary fb = median_error(result.networks, false, false), fa = median_error(result.networks, false, true);
  d.provenance.push_back("calibrated by ridge calibrate on " + o.date + " (LibTorch " + libtorch_version() + ", device " +
                         (o.cuda ? "cuda:" + std::to_string(o.cuda_index) : std::string("cpu")) + ", " +
                         std::to_string(at::get_num_threads()) + " CPU threads)");
  d.provenance.push_back("device measured: " + result.before.name);
  // The stack the figures hold for (issue #35): its PPP fold in eager dispatch and unfused kernels.
  d.provenance.push_back("runtime measured: pytorch-eager (LibTorch eager, one kernel per op; runtimes/pytorch-eager.rt)");
  if (!cold_timing.empty()) d.provenance.push_back(cold_timing);
  if (!resident_timing.empty()) d.provenance.push_back(resident_timing);
  d.provenance.push_back("fitted on: " + join_names(nets, false) + "; held out: " + join_names(nets, true) + "; batch " +
                         std::to_string(o.batch) + ", " + std::string(ir::precision_name(o.precision)));
  d.provenance.push_back("median error on fitted networks, inference " + percent(fb.infer) + " -> " + percent(fa.infer) +
                         ", training step " + percent(fb.train) + " -> " + percent(fa.train));
  if (median_error(result.networks, true, true).networks > 0) {
    const ErrorSummary hb = median_error(result.networks, true, false), ha = median_error(result.networks, true, true);
    d.provenance.push_back("median error on held-out networks, inference " + percent(hb.infer) + " -> " +
                           percent(ha.infer) + ", training step " + percent(hb.train) + " -> " + percent(ha.train));
  }
  if (const ErrorSummary loo = leave_one_out_error(result.networks); loo.networks > 0)
    d.provenance.push_back("median error leaving each fitted network out of the fit (" + std::to_string(loo.networks) +
                           " fits), inference " + percent(loo.infer) + ", training step " + percent(loo.train));
  return result;
}

}  // namespace ridge::validate
