// Calibration: measure networks in LibTorch, fit PALEO's PPP (and the launch overhead) per op class and
// pass to the per-layer measurements, and return the calibrated device with everything a report needs
// (per layer measured vs predicted with the roofline bound; per network error before and after, for
// the networks in the fit and those held out of it). No printing: calibrate_main.cpp renders.
#pragma once

#include "validate/calibrate_command.hpp"
#include "validate/ceilings.hpp"
#include "validate/fit.hpp"
#include "validate/measure.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::validate {

struct CalibrationNetwork {
  ir::Network network;
  bool holdout = false;   // measured and predicted, never fitted
  bool probe = false;     // fitted by its layers, but no network a user asked about (probes.hpp)
  std::int64_t batch = 0;   // the batch it is measured at; 0: CalibrateOptions::batch
};

struct CalibrateOptions {
  bool cuda = false;
  int cuda_index = 0;
  std::int64_t batch = 8;
  ir::Precision precision = ir::Precision::FP32;
  std::optional<ir::Device> base;   // the datasheet device the PPP are relative to; none: measure this machine
  MeasureOptions measure;
  CeilingOptions ceilings;
  std::string date;                 // provenance, "2025-01-31"
  // CPU threads LibTorch (and the BLAS under it) may use; 0 (the default) leaves LibTorch's own count,
  // which is what a user's script runs with (issue #16: a device calibrated at one thread predicted
  // two-thread runs twice as badly). The calibrated .hw records the count it was fitted for. One
  // thread measures more steadily on a shared machine, where a team of threads waits for its slowest.
  int threads = 0;
  // How the PPP are fitted: by default one per band of op sizes (FitOptions::by_size), written to the
  // .hw as curves over size.
  FitOptions fit{.by_size = true};
  // Fix the launch overhead at the measured cost of dispatching an op that does no work
  // (measure_dispatch_overhead) rather than fit it: fitted, it took whatever else the model left out
  // (275.6 us per kernel on one VM, issue #37). false fits it, as before.
  bool measure_dispatch = true;
  // Measure the probes (probes.hpp) beside the networks and fit their layers too, so that the
  // depthwise and reduction classes have layers to fit when the networks have none.
  bool probes = true;
  // CPU: time each layer pass cold, writing twice the cache the probe finds before each timed run,
  // then reading back the inputs the network has just written (cache_flush.hpp); false times it on the
  // cache its previous run left warm.
  bool cold_cache = true;
};

struct LayerComparison {
  std::string network;
  std::string layer;
  ir::Op op;                        // the input op by default
  ir::OpClass op_class = ir::OpClass::Elementwise;
  ir::Pass pass = ir::Pass::Forward;
  bool train = false;         // the training-mode forward (pass is Forward)
  bool holdout = false;
  double measured_s = 0.0;
  double before_s = 0.0;      // PALEO with the PPP before calibration
  double after_s = 0.0;       // PALEO with the fitted PPP
  double roofline_s = 0.0;    // the bound nothing real beats
  bool below_roofline = false;
};

struct NetworkComparison {
  std::string network;
  bool holdout = false;
  bool probe = false;         // in no median error: a probe is no network a user asked about
  double measured_infer_s = 0.0, measured_train_s = 0.0;   // end to end
  double layers_fwd_s = 0.0, layers_bwd_s = 0.0;           // sums of the per-layer medians
  double before_infer_s = 0.0, after_infer_s = 0.0;
  double before_train_s = 0.0, after_train_s = 0.0;
  // How far the repeats behind each median spread (spread.hpp): end to end, and over the layer passes.
  std::optional<double> infer_cv, train_cv;
  SpreadSummary layer_spread;
  std::size_t dropped_records = 0;   // CUPTI records lost while its layer passes were timed (GPU)
  // Cross-validation: a fitted network's times as predicted by a fit without its own layer passes
  // (absent for held-out networks and probes, which no fit saw anyway).
  std::optional<double> left_out_infer_s, left_out_train_s;
};

// calibrate's warnings for a noisy measurement of one network: its end-to-end CVs and the median CV of
// its layer passes, each above kNoisyCv. (Not the worst layer pass: a pass of a few microseconds
// jitters more than that on any machine, and a warning that always fires is read by nobody.)
std::vector<std::string> noise_warnings(const NetworkComparison& network);

struct CalibrationResult {
  ir::Device before;           // the device the fit started from (base, or this machine's ceilings)
  ir::Device device;           // calibrated
  FitResult fit;
  double gemm_flops = 0.0;     // measured ceilings, at the calibrated precision
  double conv_flops = 0.0;
  double conv_flops_end = 0.0;   // the same ceiling measured again once the layers are timed (0: not)
  double peak_flops = 0.0;     // the better of the two: the attainable peak
  double copy_bandwidth = 0.0;
  double first_touch = 0.0;    // B/s of fresh pages (CPU; 0 on a GPU or where not measurable)
  double dispatch_overhead = 0.0;   // s per op that does no work (0 when not measured)
  // CPU, timed cold: copy bandwidth against working set, and the cache that matters it found
  // (cache_flush.hpp; 0: none).
  std::vector<BandwidthPoint> cache_curve;
  double cache_bytes = 0.0;
  std::vector<LayerComparison> layers;
  std::vector<NetworkComparison> networks;
  // GPU only: device time of every measured layer pass (the median run of each), summed, by kernel
  // family and by kernel name, for the report's breakdown. Empty on the CPU.
  cupti::LayerActivity gpu_activity;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;   // bound_warnings of the fit
};

CalibrationResult calibrate(const std::vector<CalibrationNetwork>& networks, const CalibrateOptions& options);

// Median relative error of inference and of training-step time over the networks that are (or are
// not) held out, before or after calibration. Probes are left out.
struct ErrorSummary {
  double infer = 0.0;
  double train = 0.0;
  std::size_t networks = 0;
};
ErrorSummary median_error(const std::vector<NetworkComparison>& networks, bool holdout, bool after);
// A fitted figure that ended at the edge physics allows (a PPP of 1: the class ran at the measured
// ceiling, and its model still predicts it slower than measured), each with the share of its layer
// passes' measured time the model overshoots by there: time the fit had to take out of other figures.
std::vector<std::string> bound_warnings(const FitResult& fit, const std::vector<FitSample>& samples);

// A warning where the machine's speed moved while calibrate measured: the convolution ceiling at the
// start and again once every layer was timed, more than kCeilingDrift apart. The fit scales every
// measured pass to the ceiling taken at the start; on a VM whose host is busy the two can be a third
// apart (issue #37: the 2-vCPU Xeon VM, 214 against 322-340 GFLOP/s in other runs that day), and such
// a .hw then predicts a quiet machine's runs 15-50 % slow. nullopt where they agree or one is missing.
inline constexpr double kCeilingDrift = 0.10;
std::optional<std::string> ceiling_drift_warning(double start_flops, double end_flops);

// The same over the fitted networks' leave-one-out predictions (NetworkComparison::left_out_*_s): the
// error to expect on a network like them that the fit never saw.
ErrorSummary leave_one_out_error(const std::vector<NetworkComparison>& networks);


// The torch dtype of a precision; throws std::invalid_argument for one LibTorch cannot run (int8).
at::ScalarType torch_dtype(ir::Precision precision);

// Library versions and the machine, for provenance.
std::string libtorch_version();
std::string cpu_model_name();

}  // namespace ridge::validate
