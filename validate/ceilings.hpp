// The device's attainable ceilings, measured: a large GEMM for FLOP/s (per precision) and a large copy
// for bandwidth. They form an empirical roofline beside the datasheet's, and for a CPU with no base
// `.hw` they are the device's figures.
#pragma once

#include "validate/cache_flush.hpp"

#include <ATen/ATen.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ridge::validate {

struct CeilingOptions {
  std::int64_t gemm_size = 2048;        // N of an N x N x N GEMM
  std::int64_t copy_bytes = 256 << 20;  // bytes per copied tensor: far beyond every cache
  int repeats = 5;                      // the best of these is the ceiling
  const std::atomic<bool>* stop = nullptr;
};

// FLOP/s of at::mm on N x N matrices of `dtype` on `device` (2·N³ FLOPs per run): the best run.
double measure_gemm_flops(at::Device device, at::ScalarType dtype, const CeilingOptions& options = {});

// FLOP/s of a large 3x3 convolution (8 x 256 x 28 x 28, 256 output channels): where the BLAS behind
// at::mm is slow (Debian's LibTorch links the reference BLAS) convolutions still run at oneDNN's speed,
// so the attainable peak is the better of the two.
double measure_conv_flops(at::Device device, at::ScalarType dtype, const CeilingOptions& options = {});

// Bandwidth (B/s) of a device-to-device tensor copy, counting bytes read plus bytes written.
double measure_copy_bandwidth(at::Device device, const CeilingOptions& options = {});

// The CPU's copy bandwidth against working set (issue #37), for cache_that_matters: copies whose
// source and destination together span 1 MiB, 2 MiB, 4 MiB, ... up to `largest` bytes; each point
// the best of the repeats of as many copies as move 256 MiB (one copy beyond that).
std::vector<BandwidthPoint> measure_bandwidth_curve(std::size_t largest, const CeilingOptions& options = {});

// Seconds to dispatch one op that does no work: the best of the repeats of kDispatchRun back-to-back
// at::add_out calls on one-element tensors (on a GPU, their launches, synchronised once at the end).
// What each kernel of a layer pass costs beyond its arithmetic and traffic (issue #37): measured
// directly, so the fit does not put into it whatever else its model leaves out.
inline constexpr int kDispatchRun = 2000;
double measure_dispatch_overhead(at::Device device, const CeilingOptions& options = {});

// glibc's largest mmap threshold on 64-bit: blocks above it are always mapped afresh and unmapped on
// free, whatever the threshold has adapted to (malloc/malloc.c, DEFAULT_MMAP_THRESHOLD_MAX).
inline constexpr double kGlibcMmapThresholdMax = 32.0 * 1024 * 1024;

// The rate (B/s) at which fresh pages are written beyond warm ones on the CPU: a 64 MiB tensor (above
// kGlibcMmapThresholdMax, so each is a fresh mapping) allocated and filled, less the same tensor filled
// again; medians of the repeats. 0 when the difference is not measurable (an allocator that keeps
// its memory, as under a preloaded jemalloc or with GLIBC_TUNABLES raising the threshold).
double measure_first_touch(const CeilingOptions& options = {});

}  // namespace ridge::validate
