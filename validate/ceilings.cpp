#include "validate/ceilings.hpp"

#include "validate/cupti/tracer.hpp"
#include "validate/measure.hpp"
#include "validate/spread.hpp"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace ridge::validate {
namespace {

template <class Run>
double best_seconds(at::Device device, const CeilingOptions& o, Run&& run) {
  run();   // warm-up: first-touch page faults, library initialisation, GPU clocks
  if (device.is_cuda()) cupti::device_synchronize();
  double best = 1e300;
  for (int r = 0; r < std::max(1, o.repeats); ++r) {
    if (o.stop && o.stop->load()) throw Interrupted();
    const auto t0 = std::chrono::steady_clock::now();
    run();
    if (device.is_cuda()) cupti::device_synchronize();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

double measure_gemm_flops(at::Device device, at::ScalarType dtype, const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  const auto opts = at::TensorOptions().device(device).dtype(dtype);
  const std::int64_t n = o.gemm_size;
  const at::Tensor a = at::randn({n, n}, opts);
  const at::Tensor b = at::randn({n, n}, opts);
  at::Tensor c = at::empty({n, n}, opts);
  const double s = best_seconds(device, o, [&] { at::mm_out(c, a, b); });
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / s;
}

double measure_conv_flops(at::Device device, at::ScalarType dtype, const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  const auto opts = at::TensorOptions().device(device).dtype(dtype);
  constexpr std::int64_t n = 8, c = 256, hw = 28, k = 3;
  const at::Tensor x = at::randn({n, c, hw, hw}, opts);
  const at::Tensor w = at::randn({c, c, k, k}, opts).mul_(0.02);
  const double s = best_seconds(device, o, [&] { (void)at::conv2d(x, w, {}, 1, 1); });
  return 2.0 * n * c * c * k * k * hw * hw / s;
}

double measure_dispatch_overhead(at::Device device, const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  const auto opts = at::TensorOptions().device(device).dtype(at::kFloat);
  const at::Tensor a = at::ones({1}, opts);
  const at::Tensor b = at::ones({1}, opts);
  at::Tensor c = at::empty({1}, opts);
  const double s = best_seconds(device, o, [&] {
    for (int i = 0; i < kDispatchRun; ++i) at::add_out(c, a, b);
  });
  return s / kDispatchRun;
}

double measure_first_touch(const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  constexpr std::int64_t bytes = 64 << 20;
  std::vector<double> fresh, warm;
  const auto seconds_since = [](auto t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  for (int r = 0; r < std::max(3, 2 * o.repeats + 1); ++r) {
    if (o.stop && o.stop->load()) throw Interrupted();
    const auto t0 = std::chrono::steady_clock::now();
    at::Tensor t = at::empty({bytes / 4}, at::kFloat);
    t.fill_(1.0f);
    double fresh_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    t.fill_(2.0f);
    warm.push_back(seconds_since(t1));
    const auto t2 = std::chrono::steady_clock::now();
    t.reset();   // the block goes back to the system: unmapping is part of what a fresh block costs
    fresh_s += seconds_since(t2);
    fresh.push_back(fresh_s);
  }
  const double extra = median(fresh) - median(warm);
  // Below a tenth of the warm write the difference is noise, not page faults.
  return extra > 0.1 * median(warm) ? static_cast<double>(bytes) / extra : 0.0;
}

double measure_copy_bandwidth(at::Device device, const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  const auto opts = at::TensorOptions().device(device).dtype(at::kFloat);
  const std::int64_t n = o.copy_bytes / 4;
  const at::Tensor src = at::randn({n}, opts);
  at::Tensor dst = at::empty({n}, opts);
  const double s = best_seconds(device, o, [&] { dst.copy_(src); });
  return 2.0 * static_cast<double>(n) * 4.0 / s;
}

std::vector<BandwidthPoint> measure_bandwidth_curve(std::size_t largest, const CeilingOptions& o) {
  const at::NoGradGuard no_grad;
  constexpr std::size_t kSmallest = std::size_t{1} << 20, kMoved = std::size_t{256} << 20;
  std::vector<BandwidthPoint> curve;
  for (std::size_t span = kSmallest; span <= largest; span *= 2) {
    const std::int64_t n = static_cast<std::int64_t>(span / 2 / sizeof(float));
    const at::Tensor src = at::randn({n}, at::kFloat);
    at::Tensor dst = at::empty({n}, at::kFloat);
    const std::size_t copies = std::max<std::size_t>(1, kMoved / span);
    const double s = best_seconds(at::Device(at::kCPU), o, [&] {
      for (std::size_t i = 0; i < copies; ++i) dst.copy_(src);
    });
    curve.push_back({static_cast<double>(span), static_cast<double>(span) * static_cast<double>(copies) / s});
  }
  return curve;
}

}  // namespace ridge::validate
