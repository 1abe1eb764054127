// Helpers for the hostile-input tests: run the front end and the engine on text that must fail, and
// say how it failed, and how long it took.
#pragma once

#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "engine/timing.hpp"
#include "parse.hpp"
#include "support/fixed_device.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace ridge::reliability {

// The rendered diagnostics of a `.net` text that must fail, or "" if it elaborated.
inline std::string net_error(const std::string& text) {
  try {
    lang::parse_network(text, "hostile.net");
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

inline std::string hw_error(const std::string& text) {
  try {
    lang::parse_device(text, "hostile.hw");
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

inline std::string repeat(const std::string& s, std::size_t n) {
  std::string r;
  r.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) r += s;
  return r;
}

// Wall time of f(), in seconds: hostile inputs must be refused quickly, not after a long grind.
template <typename F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A device with every precision, the one the fuzz targets use.
inline ir::Device test_device() {
  return lang::parse_device(testing::kFixedDeviceHw, "test.hw");
}

// Every figure a report carries must be finite and non-negative: no inf or NaN reaches a user (the
// JSON writer would print them as null, hiding the problem, so look at the numbers themselves).
inline bool finite(double v) { return std::isfinite(v) && v >= 0.0; }
inline bool finite(const engine::PassTime& t) { return finite(t.roofline_s) && finite(t.paleo_s) && finite(t.intensity); }
inline bool finite(const engine::PassCost& c) { return finite(c.flops) && finite(c.bytes_read) && finite(c.bytes_written); }

inline bool all_finite(const engine::Report& r) {
  const engine::Totals& t = r.totals;
  for (const double v : {t.params, t.macs, t.flops_fwd, t.flops_fwd_train, t.flops_bwd, t.flops_update, t.bytes_fwd,
                         t.bytes_fwd_train, t.bytes_bwd, t.bytes_update, t.roofline_fwd_s, t.roofline_bwd_s,
                         t.time_fwd_s, t.time_bwd_s, t.time_update_s, t.time_train_step_s, t.roofline_train_step_s,
                         t.throughput_infer, t.throughput_train, t.weight_bytes, t.peak_activation_bytes,
                         t.saved_activation_bytes, t.memory_infer_bytes, t.memory_train_bytes})
    if (!finite(v)) return false;
  for (const engine::LayerRow& l : r.layers)
    if (!finite(l.params) || !finite(l.macs) || !finite(l.fwd) || !finite(l.bwd) || !finite(l.fwd_train) ||
        !finite(l.time_fwd) || !finite(l.time_bwd) || !finite(l.time_fwd_train))
      return false;
  return true;
}

// A scratch folder per test process.
inline std::filesystem::path scratch() {
  const auto d = std::filesystem::temp_directory_path() / ("ridge-reliability-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace ridge::reliability
