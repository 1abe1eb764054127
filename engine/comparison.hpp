// Several simulations side by side (devices x batches): what `simulate NET HW1 HW2 --batch 1,8,64`
// shows. Built from Reports, so every figure is the one a single-device report would give.
#pragma once

#include "engine/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ridge::engine {

struct ComparisonRow {
  std::string device;            // display name
  std::string device_id;
  std::int64_t batch = 1;
  ir::Precision precision = ir::Precision::FP32;
  double time_infer_s = 0.0;     // PALEO forward
  double time_train_s = 0.0;     // PALEO training step
  double roofline_infer_s = 0.0;
  double roofline_train_s = 0.0;
  double throughput_infer = 0.0; // samples/s
  double throughput_train = 0.0;
  double memory_infer_bytes = 0.0;
  double memory_train_bytes = 0.0;
  std::optional<double> memory_device_bytes;
  std::optional<bool> fits_infer;
  std::optional<bool> fits_train;
};

struct Comparison {
  std::string network;
  std::vector<ComparisonRow> rows;   // in the order the reports were given
};

Comparison compare(const std::vector<Report>& reports);

}  // namespace ridge::engine
