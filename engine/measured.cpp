#include "engine/measured.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ridge::engine {
namespace {

std::optional<double> relative_error(double predicted, const std::optional<double>& measured) {
  if (!measured || !(*measured > 0.0)) return std::nullopt;
  return (predicted - *measured) / *measured;
}

std::optional<double> median_abs(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  for (double& x : v) x = std::abs(x);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::optional<double> MeasuredRow::error_fwd() const { return relative_error(predicted_fwd_s, measured_fwd_s); }
std::optional<double> MeasuredRow::error_bwd() const { return relative_error(predicted_bwd_s, measured_bwd_s); }

MeasuredComparison compare_measured(const Report& report, const std::vector<Measurement>& measurements) {
  std::map<std::string, std::size_t> row_of;
  MeasuredComparison c;
  for (const LayerRow& l : report.layers) {
    if (l.op == ir::Op{}) continue;
    row_of.emplace(l.name, c.rows.size());
    c.rows.push_back({l.name, std::string(ir::op_name(l.op)), l.time_fwd.paleo_s, l.time_bwd.paleo_s, {}, {}});
  }
  for (const Measurement& m : measurements) {
    const auto it = row_of.find(m.layer);
    if (it == row_of.end()) {
      if (std::find(c.unknown.begin(), c.unknown.end(), m.layer) == c.unknown.end()) c.unknown.push_back(m.layer);
      continue;
    }
    (m.pass == ir::Pass::Forward ? c.rows[it->second].measured_fwd_s : c.rows[it->second].measured_bwd_s) = m.seconds;
  }
  std::vector<double> errors_fwd, errors_bwd;
  for (const MeasuredRow& r : c.rows) {
    if (const auto e = r.error_fwd()) {
      errors_fwd.push_back(*e);
      ++c.matched_fwd;
      c.predicted_fwd_s += r.predicted_fwd_s;
      c.measured_fwd_s += *r.measured_fwd_s;
    }
    if (const auto e = r.error_bwd()) {
      errors_bwd.push_back(*e);
      ++c.matched_bwd;
      c.predicted_bwd_s += r.predicted_bwd_s;
      c.measured_bwd_s += *r.measured_bwd_s;
    }
  }
  c.median_abs_error_fwd = median_abs(errors_fwd);
  c.median_abs_error_bwd = median_abs(errors_bwd);
  return c;
}

}  // namespace ridge::engine
