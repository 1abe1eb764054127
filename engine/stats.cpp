#include "engine/stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace ridge::engine {

std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> r(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nullopt;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

RankCorrelation rank_correlation(const std::vector<Report>& reports) {
  RankCorrelation c;
  std::map<std::string, std::size_t> net_index;
  std::vector<double> flops, params;
  // Latency columns keyed by device, precision, batch, in first-seen order.
  std::vector<std::string> lat_keys;
  std::map<std::string, std::map<std::string, double>> latency;   // key -> network -> seconds
  for (const Report& r : reports) {
    if (!net_index.contains(r.network)) {
      net_index[r.network] = c.networks.size();
      c.networks.push_back(r.network);
      flops.push_back(r.totals.flops_fwd / static_cast<double>(r.batch));
      params.push_back(r.totals.params);
    }
    const std::string key = "latency " + r.device.id + " " + std::string(ir::precision_name(r.precision)) +
                            " b" + std::to_string(r.batch);
    if (!latency.contains(key)) lat_keys.push_back(key);
    latency[key][r.network] = r.totals.time_fwd_s;
  }
  c.variables = {"FLOPs (forward, per sample)", "parameters"};
  c.values = {flops, params};
  for (const std::string& key : lat_keys) {
    if (latency[key].size() != c.networks.size()) continue;   // a column needs every network
    std::vector<double> v(c.networks.size());
    for (const auto& [net, s] : latency[key]) v[net_index[net]] = s;
    c.variables.push_back(key);
    c.values.push_back(std::move(v));
  }
  const std::size_t k = c.variables.size();
  c.rho.assign(k, std::vector<std::optional<double>>(k));
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) c.rho[i][j] = spearman(c.values[i], c.values[j]);
  return c;
}

}  // namespace ridge::engine
