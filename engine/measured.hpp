// Measured layer times (calibrate --measurements, or any CSV of layer,pass,seconds) beside the
// report's predictions: the engine pairs them and computes the errors; renderers show them.
#pragma once

#include "engine/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

struct Measurement {
  std::string layer;
  ir::Pass pass = ir::Pass::Forward;
  double seconds = 0.0;
};

struct MeasuredRow {
  std::string name;
  std::string op;
  double predicted_fwd_s = 0.0, predicted_bwd_s = 0.0;   // PALEO: inference forward, backward
  std::optional<double> measured_fwd_s, measured_bwd_s;  // absent where the CSV has no time
  // (predicted - measured) / measured, where measured.
  std::optional<double> error_fwd() const;
  std::optional<double> error_bwd() const;
};

struct MeasuredComparison {
  std::vector<MeasuredRow> rows;                 // every layer but the input, in network order
  std::size_t matched_fwd = 0, matched_bwd = 0;  // layer passes with a measurement
  std::vector<std::string> unknown;             // measured names the network has no layer of
  std::optional<double> median_abs_error_fwd, median_abs_error_bwd;
  // Sums over the matched layer passes only, so the two sides cover the same work.
  double predicted_fwd_s = 0.0, measured_fwd_s = 0.0, predicted_bwd_s = 0.0, measured_bwd_s = 0.0;
};

// Pairs measurements with layers by name; a layer measured twice takes the last time given.
MeasuredComparison compare_measured(const Report& report, const std::vector<Measurement>& measurements);

}  // namespace ridge::engine
