#include "validate/fit.hpp"

#include "engine/timing.hpp"

#include <cmath>
#include <limits>
#include <tuple>
#include <stdexcept>

namespace ridge::validate {

Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations) {
  const Eigen::Index n = a.cols();
  if (a.rows() != b.size()) throw std::invalid_argument("nnls: A and b disagree in rows");
  if (max_iterations <= 0) max_iterations = static_cast<int>(3 * n + 10);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<std::size_t>(n), false);
  const double tol = 1e-12 * std::max(1.0, a.norm() * b.norm());

  // Least squares on the passive columns only; the others are held at zero.
  const auto solve_passive = [&] {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < n; ++j)
      if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
    const Eigen::VectorXd zs = sub.colPivHouseholderQr().solve(b);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    for (std::size_t k = 0; k < cols.size(); ++k) z[cols[k]] = zs[static_cast<Eigen::Index>(k)];
    return z;
  };

  for (int outer = 0; outer < max_iterations; ++outer) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index best = -1;
    double best_w = tol;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!passive[static_cast<std::size_t>(j)] && w[j] > best_w) best_w = w[j], best = j;
    if (best < 0) break;   // Kuhn-Tucker conditions hold: x is optimal
    passive[static_cast<std::size_t>(best)] = true;
    for (int inner = 0; inner < max_iterations; ++inner) {
      const Eigen::VectorXd z = solve_passive();
      bool feasible = true;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && z[j] <= 0) feasible = false;
      if (feasible) {
        x = z;
        break;
      }
      // Step from x toward z as far as feasibility allows, then drop the columns that hit zero.
      double alpha = std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && z[j] <= 0) alpha = std::min(alpha, x[j] / (x[j] - z[j]));
      x += alpha * (z - x);
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && std::abs(x[j]) <= 1e-15) passive[static_cast<std::size_t>(j)] = false, x[j] = 0;
    }
  }
  return x;
}

namespace {

enum Term { kCompute = 0, kMemory = 1 };

// One unknown u − 1 of the fit: a term of an op class and pass, in one band of sizes (band 0 for all
// sizes when the fit is not by size).
struct ColumnKey {
  GroupKey group;
  Term term;
  int band;
  friend auto operator<=>(const ColumnKey&, const ColumnKey&) = default;
};

struct ColumnInfo {
  Eigen::Index index = 0;
  double signal = 0.0;       // the term's time at peak, summed over the column's samples
  double log_size = 0.0;     // sum of ln(size) over the samples with signal
  std::size_t sized = 0;     // how many
};

int band_of(double size, const FitOptions& o) {
  if (!o.by_size || !(size > 0)) return 0;
  return static_cast<int>(std::floor(std::log10(size) / o.band_decades));
}

}  // namespace

FitResult fit_ppp(const std::vector<FitSample>& samples, const FitOptions& options) {
  if (options.by_size && !(options.band_decades > 0 && options.smoothing >= 0))
    throw std::invalid_argument("fit_ppp: bands must be wider than 0 decades and smoothing not negative");
  std::map<ColumnKey, ColumnInfo> columns;
  const auto keys_of = [&](const FitSample& s) {
    const GroupKey g{s.op_class, s.pass};
    return std::pair{ColumnKey{g, kCompute, band_of(s.flops, options)}, ColumnKey{g, kMemory, band_of(s.bytes, options)}};
  };
  for (const auto& s : samples) {
    if (!(s.measured > 0) || !std::isfinite(s.measured))
      throw std::invalid_argument("fit_ppp: every measurement must be positive and finite");
    const auto [c, m] = keys_of(s);
    for (const auto& [key, time, size] : {std::tuple{c, s.compute_time, s.flops}, std::tuple{m, s.memory_time, s.bytes}}) {
      ColumnInfo& info = columns[key];
      info.signal += time;
      if (time > 0 && size > 0) info.log_size += std::log(size), ++info.sized;
    }
  }
  Eigen::Index next = 0;
  for (auto& [key, info] : columns) info.index = next++;
  const Eigen::Index unknowns = next;
  const Eigen::Index n = unknowns + (options.fit_launch_overhead ? 1 : 0);

  // Smoothing rows tie each band to the next band of the same term that has samples.
  std::vector<std::pair<Eigen::Index, Eigen::Index>> neighbours;
  if (options.by_size && options.smoothing > 0) {
    const ColumnKey* previous = nullptr;
    for (const auto& [key, info] : columns) {
      if (info.signal <= 0) continue;
      if (previous && previous->group == key.group && previous->term == key.term)
        neighbours.emplace_back(columns.at(*previous).index, info.index);
      previous = &key;
    }
  }

  const auto data_rows = static_cast<Eigen::Index>(samples.size());
  const Eigen::Index rows = data_rows + static_cast<Eigen::Index>(neighbours.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, n);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(rows);
  for (Eigen::Index r = 0; r < data_rows; ++r) {
    const FitSample& s = samples[static_cast<std::size_t>(r)];
    const auto [c, m] = keys_of(s);
    // Residuals are in seconds; see fit.hpp for why this weight.
    const double w = s.network_time > 0 ? 1.0 / std::sqrt(s.measured * s.network_time) : 1.0 / s.measured;
    a(r, columns.at(c).index) += s.compute_time * w;
    a(r, columns.at(m).index) += s.memory_time * w;
    // u = 1 + y: the 100 %-of-peak part of the prediction moves to the right-hand side.
    double rhs = s.measured - s.compute_time - s.memory_time - s.fresh_time;
    if (options.fit_launch_overhead) a(r, n - 1) = s.kernels * w;
    else rhs -= options.launch_overhead * s.kernels;
    b[r] = rhs * w;
  }
  for (std::size_t k = 0; k < neighbours.size(); ++k) {
    const Eigen::Index r = data_rows + static_cast<Eigen::Index>(k);
    a(r, neighbours[k].first) = options.smoothing;
    a(r, neighbours[k].second) = -options.smoothing;
  }
  // Scale columns to unit norm so the active-set tolerances mean the same for every unknown.
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const double norm = a.col(j).norm();
    if (norm > 0) scale[j] = norm, a.col(j) /= norm;
  }
  Eigen::VectorXd y = rows > 0 ? nnls(a, b) : Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < n; ++j) y[j] /= scale[j];

  FitResult result;
  result.launch_overhead = options.fit_launch_overhead ? y[n - 1] : options.launch_overhead;
  for (const auto& s : samples) ++result.groups[{s.op_class, s.pass}].samples;
  // Per group and term: the PPP over all its samples (signal over time), and the curve by size.
  std::map<std::pair<GroupKey, Term>, std::pair<double, double>> overall;   // signal, signal·u
  for (const auto& [key, info] : columns) {
    if (info.signal <= 0) continue;
    const double u = 1.0 + y[info.index];
    auto& [signal, time] = overall[{key.group, key.term}];
    signal += info.signal;
    time += info.signal * u;
    if (!options.by_size) continue;
    GroupFit& g = result.groups.at(key.group);
    auto& curve = key.term == kCompute ? g.compute_curve : g.memory_curve;
    if (!curve) curve.emplace();
    const double size = info.sized > 0 ? std::exp(info.log_size / static_cast<double>(info.sized)) : 0.0;
    if (size > 0) curve->points.push_back({size, 1.0 / u});
  }
  for (const auto& [key, st] : overall) {
    GroupFit& g = result.groups.at(key.first);
    (key.second == kCompute ? g.compute_ppp : g.memory_ppp) = st.first / st.second;
  }
  for (auto& [key, g] : result.groups)   // a curve with no sized point says nothing
    for (auto* c : {&g.compute_curve, &g.memory_curve})
      if (*c && (*c)->points.empty()) c->reset();
  return result;
}

double predict(const FitResult& fit, const FitSample& s) {
  double compute_ppp = 1.0, memory_ppp = 1.0;
  if (const auto it = fit.groups.find({s.op_class, s.pass}); it != fit.groups.end()) {
    const GroupFit& g = it->second;
    compute_ppp = g.compute_curve ? engine::fraction_at(*g.compute_curve, s.flops) : g.compute_ppp.value_or(1.0);
    memory_ppp = g.memory_curve ? engine::fraction_at(*g.memory_curve, s.bytes) : g.memory_ppp.value_or(1.0);
  }
  return engine::paleo_seconds(s.compute_time, s.memory_time, compute_ppp, memory_ppp, s.kernels, fit.launch_overhead) +
         s.fresh_time;
}

double relative_error(double predicted, double measured) {
  return measured > 0 ? std::abs(predicted - measured) / measured : std::numeric_limits<double>::infinity();
}

}  // namespace ridge::validate
