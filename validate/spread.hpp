// The spread of repeated timings: the median calibrate fits to, and the coefficient of variation that
// says whether that median can be trusted. Torch-free, so it is tested everywhere; the one place the
// formulas live (validate/scripts/torch_truth.py computes the same CV: sample stddev over mean).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::validate {

// Median of a sample; 0 for an empty one.
double median(std::vector<double> values);

// Coefficient of variation, sample standard deviation (n - 1) over the mean. Absent for fewer than two
// values or a non-positive mean: one run has no spread to report, and claiming 0 would read as "quiet".
std::optional<double> coefficient_of_variation(const std::vector<double>& values);

// Above this CV a median of repeats is not a measurement to fit to: on an idle machine repeats of a
// whole network or a typical layer pass agree within a few percent.
inline constexpr double kNoisyCv = 0.05;

// The warning calibrate prints when `cv` (of `what`, in `network`) is above kNoisyCv; none otherwise.
std::optional<std::string> noise_warning(std::string_view network, std::string_view what, double cv);

// The CVs of many layer passes summarised: the median says how noisy the machine was, the worst names
// the pass that varied most (tiny passes of a few microseconds jitter most, so the worst is reported
// rather than warned on).
struct SpreadSummary {
  std::size_t passes = 0;            // layer passes with a CV (two runs or more)
  double median_cv = 0.0;
  double worst_cv = 0.0;
  std::string worst;                 // the label of the worst pass
};
struct LabelledCv {
  std::string label;
  std::optional<double> cv;
};
SpreadSummary summarise(const std::vector<LabelledCv>& cvs);

}  // namespace ridge::validate
