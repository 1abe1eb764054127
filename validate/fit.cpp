#include "validate/fit.hpp"

#include "engine/timing.hpp"

#include <cmath>
#include <limits>
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

FitResult fit_ppp(const std::vector<FitSample>& samples, const FitOptions& options) {
  // Columns: per group [y_c, y_m], then λ (when fitted).
  std::map<GroupKey, Eigen::Index> column;
  for (const auto& s : samples) {
    if (!(s.measured > 0) || !std::isfinite(s.measured))
      throw std::invalid_argument("fit_ppp: every measurement must be positive and finite");
    const GroupKey key{s.op_class, s.pass};
    if (!column.contains(key)) {
      const auto next = static_cast<Eigen::Index>(2 * column.size());
      column.emplace(key, next);
    }
  }
  const auto groups = static_cast<Eigen::Index>(column.size());
  const Eigen::Index n = 2 * groups + (options.fit_launch_overhead ? 1 : 0);
  const auto rows = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, n);
  Eigen::VectorXd b(rows);
  std::vector<double> signal_c(static_cast<std::size_t>(groups), 0.0), signal_m(static_cast<std::size_t>(groups), 0.0);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const FitSample& s = samples[static_cast<std::size_t>(r)];
    const Eigen::Index c = column.at({s.op_class, s.pass});
    // Residuals are in seconds; see fit.hpp for why this weight.
    const double w = s.network_time > 0 ? 1.0 / std::sqrt(s.measured * s.network_time) : 1.0 / s.measured;
    a(r, c) = s.compute_time * w;
    a(r, c + 1) = s.memory_time * w;
    // u = 1 + y: the 100 %-of-peak part of the prediction moves to the right-hand side.
    double rhs = s.measured - s.compute_time - s.memory_time;
    if (options.fit_launch_overhead) a(r, n - 1) = s.kernels * w;
    else rhs -= options.launch_overhead * s.kernels;
    b[r] = rhs * w;
    signal_c[static_cast<std::size_t>(c / 2)] += s.compute_time;
    signal_m[static_cast<std::size_t>(c / 2)] += s.memory_time;
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
  for (const auto& [key, c] : column) {
    GroupFit g;
    for (const auto& s : samples)
      if (s.op_class == key.first && s.pass == key.second) ++g.samples;
    if (signal_c[static_cast<std::size_t>(c / 2)] > 0) g.compute_ppp = 1.0 / (1.0 + y[c]);
    if (signal_m[static_cast<std::size_t>(c / 2)] > 0) g.memory_ppp = 1.0 / (1.0 + y[c + 1]);
    result.groups.emplace(key, g);
  }
  return result;
}

double predict(const FitResult& fit, const FitSample& s) {
  double compute_ppp = 1.0, memory_ppp = 1.0;
  if (const auto it = fit.groups.find({s.op_class, s.pass}); it != fit.groups.end()) {
    compute_ppp = it->second.compute_ppp.value_or(1.0);
    memory_ppp = it->second.memory_ppp.value_or(1.0);
  }
  return engine::paleo_seconds(s.compute_time, s.memory_time, compute_ppp, memory_ppp, s.kernels, fit.launch_overhead);
}

double relative_error(double predicted, double measured) {
  return measured > 0 ? std::abs(predicted - measured) / measured : std::numeric_limits<double>::infinity();
}

}  // namespace ridge::validate
