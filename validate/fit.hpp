// Fitting PALEO's PPP to measurements. Torch-free and GPU-free: it sees only numbers.
//
// PALEO (DESIGN.md "Timing models") predicts a layer pass as
//     t = F/(ppp_c·P) + B/(ppp_m·BW) + λ·kernels
// With u_c = 1/ppp_c and u_m = 1/ppp_m the unknowns enter linearly. One joint non-negative least
// squares fits u_c and u_m per (op class, pass) and one launch overhead λ shared by all (a `.hw` has
// one). Each row's residual is weighted by 1/sqrt(t·T), t the layer pass's time and T its network's
// (the sum over the network's layers for that pass): the geometric mean of relative error (1/t, which
// lets a 20 us ReLU pull as hard as a 200 ms convolution although the network time is their sum, and
// punishes over-prediction without bound but under-prediction by at most 100 %) and error as a share
// of the network (1/T, which ignores small layers and lets their PPP go anywhere). Chosen, with PPP
// per pass rather than per class, by leave-one-network-out error on the calibration networks alone
// (fit two of alexnet, vgg11, resnet18 on one CPU thread at batch 8, predict the third end to end;
// median inference / training-step error): 1/t 17.3 / 29.5 %, 1/T 25.6 / 31.7 %, 1/sqrt(tT) 4.5 /
// 10.3 %; per class instead of per pass, 1/sqrt(tT): 14.6 / 19.5 %. A sample without T
// (network_time 0) falls back to 1/t.
// A PPP cannot exceed 1 (nothing beats the peak), so u = 1 + y with y >= 0 is what NNLS solves.
#pragma once

#include "lang/ir/device.hpp"

#include <Eigen/Dense>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ridge::validate {

// One measured layer pass, with the two PALEO terms evaluated at 100 % of peak.
struct FitSample {
  ir::OpClass op_class = ir::OpClass::Elementwise;
  ir::Pass pass = ir::Pass::Forward;
  double compute_time = 0.0;   // F / P   (s)
  double memory_time = 0.0;    // B / BW  (s)
  double kernels = 0.0;        // kernel launches
  double measured = 0.0;       // s, > 0
  double network_time = 0.0;   // s: the network's time for this pass (sum of its layers); 0: unknown
  double flops = 0.0;          // the pass's size, for a PPP over size: FLOPs (compute) ...
  double bytes = 0.0;          // ... and bytes (memory)
  double fresh_time = 0.0;     // s of the fresh-memory term (engine::FreshMemory), not fitted
};

using GroupKey = std::pair<ir::OpClass, ir::Pass>;

struct GroupFit {
  // Absent where the group's samples carry no signal for that term (e.g. no FLOPs at all). Fitted by
  // size, the PPP the group's samples reached together (their compute or memory time at peak over
  // the time the curve gives them).
  std::optional<double> compute_ppp;
  std::optional<double> memory_ppp;
  // Fitted by size (FitOptions::by_size): the PPP over the pass's FLOPs and bytes, a point per band
  // of sizes that has samples, at the geometric mean of their sizes. Source left empty.
  std::optional<ir::SizeCurve> compute_curve;
  std::optional<ir::SizeCurve> memory_curve;
  std::size_t samples = 0;
};

struct FitOptions {
  bool fit_launch_overhead = true;
  // Used instead of a fitted λ when fit_launch_overhead is false (s per kernel).
  double launch_overhead = 0.0;
  // A PPP per band of op sizes (issue #16: one PPP cannot hold for a 3x3 convolution on a 56x56 map
  // and a 1x1 convolution on a 1x1 map). Bands are `band_decades` wide in log10 of the pass's FLOPs
  // (compute) and bytes (memory). Neighbouring bands are tied by `smoothing`: a row
  // smoothing·(u_b − u_b+1) = 0 per pair, so a band with few samples leans on its neighbours
  // rather than swinging between runs. u = 1/PPP.
  bool by_size = false;
  double band_decades = 1.0;
  double smoothing = 0.1;
};

struct FitResult {
  std::map<GroupKey, GroupFit> groups;
  double launch_overhead = 0.0;   // s per kernel
};

// min ||A x - b|| subject to x >= 0 (Lawson and Hanson's active-set method).
Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations = 0);

// Throws std::invalid_argument for a sample with a non-positive or non-finite measurement.
FitResult fit_ppp(const std::vector<FitSample>& samples, const FitOptions& options = {});

// PALEO's time for a sample under a fit; a term whose PPP the fit could not determine counts at 100 %.
double predict(const FitResult& fit, const FitSample& sample);

// The relative error |predicted - measured| / measured.
double relative_error(double predicted, double measured);

}  // namespace ridge::validate
