// Fitting PALEO's PPP to measurements. Torch-free and GPU-free: it sees only numbers.
//
// PALEO (DESIGN.md "Timing models") predicts a layer pass as
//     t = F/(ppp_c·P) + B/(ppp_m·BW) + λ·kernels
// With u_c = 1/ppp_c and u_m = 1/ppp_m the unknowns enter linearly. One joint non-negative least
// squares fits u_c and u_m per (op class, pass) and one launch overhead λ shared by all (a `.hw` has
// one), each row divided by its measured time so the fit minimises relative, not absolute, error.
// A PPP cannot exceed 1 (nothing beats the peak), so u = 1 + y with y >= 0 is what NNLS solves.
#pragma once

#include "ir/device.hpp"

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
};

using GroupKey = std::pair<ir::OpClass, ir::Pass>;

struct GroupFit {
  // Absent where the group's samples carry no signal for that term (e.g. no FLOPs at all).
  std::optional<double> compute_ppp;
  std::optional<double> memory_ppp;
  std::size_t samples = 0;
};

struct FitOptions {
  bool fit_launch_overhead = true;
  // Used instead of a fitted λ when fit_launch_overhead is false (s per kernel).
  double launch_overhead = 0.0;
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
