// Rank statistics across reports: Spearman's rank correlation with ties, and the table of it between
// FLOPs, parameters and predicted latency across several networks ("does FLOPs predict latency?").
#pragma once

#include "engine/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

// Ranks 1..n; tied values share the mean of the ranks they span ([10, 20, 20, 30] -> [1, 2.5, 2.5, 4]).
std::vector<double> ranks(const std::vector<double>& values);

// Spearman's rho: Pearson's correlation of the ranks, which is exact with ties (the 1 - 6Σd²/(n(n²-1))
// shortcut is not). Absent for fewer than two values, sizes that differ, or a constant variable.
std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y);

struct RankCorrelation {
  std::vector<std::string> networks;                  // the samples
  std::vector<std::string> variables;                 // "FLOPs (forward)", "parameters", "latency ..."
  std::vector<std::vector<double>> values;            // values[variable][network]
  std::vector<std::vector<std::optional<double>>> rho;   // rho[i][j], symmetric, 1 on the diagonal
};

// One sample per network. Variables: forward FLOPs, parameters, then the PALEO inference latency of
// every (device, precision, batch) the reports share. Reports of one network must share its FLOPs
// per sample; batch differences are fine (FLOPs are taken per sample).
RankCorrelation rank_correlation(const std::vector<Report>& reports);

}  // namespace ridge::engine
