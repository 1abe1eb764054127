// Helpers for the hostile-input tests: run the front end and the engine on text that must fail, and
// say how it failed, and how long it took.
#pragma once

#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "engine/timing.hpp"
#include "lang/parse.hpp"
#include "tests/support/finite_report.hpp"
#include "tests/support/fixed_device.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace ridge::reliability {

using testing::all_finite;
using testing::finite;

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

// Peak resident memory of this process so far, in MiB. CTest runs each test case as its own process,
// so after a case's work this is that case's peak: hostile inputs must stay under 512 MB (issue 20).
// A test that runs `simulate` counts the largest finished child too.
inline double peak_rss_mib() {
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return static_cast<double>(std::max(self.ru_maxrss, children.ru_maxrss)) / 1024.0;   // Linux reports KiB
}
inline constexpr double kMaxHostileMib = 512.0;

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

// A scratch folder per test process.
inline std::filesystem::path scratch() {
  const auto d = std::filesystem::temp_directory_path() / ("ridge-reliability-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace ridge::reliability
