#include "validate/spread.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ridge::validate {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2.0;
}

std::optional<double> coefficient_of_variation(const std::vector<double>& v) {
  if (v.size() < 2) return std::nullopt;
  const double n = static_cast<double>(v.size());
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  if (!(mean > 0.0)) return std::nullopt;
  const double squares =
      std::accumulate(v.begin(), v.end(), 0.0, [mean](double s, double x) { return s + (x - mean) * (x - mean); });
  return std::sqrt(squares / (n - 1.0)) / mean;
}

std::optional<std::string> noise_warning(std::string_view network, std::string_view what, double cv) {
  if (!(cv > kNoisyCv)) return std::nullopt;
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.2f %%", cv * 100.0);   // 2 places: 5.04 % must not read "5.0 %"
  return std::string(network) + ": " + std::string(what) + " varies by CV " + pct + " over its repeats (above " +
         std::to_string(static_cast<int>(kNoisyCv * 100)) +
         " %): the machine is noisy; close other work or raise --repeats";
}

SpreadSummary summarise(const std::vector<LabelledCv>& cvs) {
  SpreadSummary s;
  std::vector<double> values;
  for (const LabelledCv& c : cvs) {
    if (!c.cv) continue;
    if (values.empty() || *c.cv > s.worst_cv) {
      s.worst_cv = *c.cv;
      s.worst = c.label;
    }
    values.push_back(*c.cv);
  }
  s.passes = values.size();
  s.median_cv = median(std::move(values));
  return s;
}

}  // namespace ridge::validate
