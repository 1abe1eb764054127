// Timing a layer cold (issue #16). In a network, a layer's weights, and the saved activations its
// backward reads, were last touched many layers ago: other layers' data have passed through the cache
// since. Timed again and again on the same tensors, a layer reads them from the cache its previous run
// left warm, and the fitted PPP carry that into every prediction. Writing a buffer of twice the
// last-level cache before each timed run (as nvbench and Triton's do_bench flush a GPU's L2) times it
// from memory. On a 2-core EPYC VM (32 MiB L3), five held-out torchvision networks against Python runs
// at two threads (docs/results/2026-11-24-cpu-calibration.md, "Where issue #16 stands"): timed warm,
// the predictions leaned fast and the median error passed 10 % in half the runs; timed cold, they rose
// 3-13 % (40 % for depthwise networks) and nine runs in a row stayed within 10 %, at one thread and at two.
//
// What a network has just written, though, is still in the cache when the next layer reads it: a
// forward's inputs and a backward's incoming gradient. Flushed with the rest, they were read from
// memory. On a 2-core Xeon VM whose L3 holds 64-128 MiB at twice the memory's bandwidth, the
// predictions of held-out networks then came out slow, by up to 45 %
// (docs/results/2026-11-28-xeon-cache.md). So after the flush calibrate reads those tensors back in
// (touch), and the flush's size comes from a probe of the cache, not from sysfs alone: on a VM sysfs
// reports the host's cache, of which a guest gets a share.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

namespace ridge::validate {

// The size (B) of the CPU's last-level data cache as Linux reports it in CACHE_DIR (sysfs:
// index*/level, type and size, such as "32768K"): the highest level that holds data. 0 where it
// cannot be read.
std::size_t last_level_cache_bytes(const std::filesystem::path& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// What calibrate writes before each timed run on a CPU: twice the given cache (the cache probe's, else
// sysfs's), or, where neither says how large it is, 128 MiB (beyond the 55 MB L3 of
// hw/xeon-e5-2699v4-2s.hw, the largest cache in hw/, twice over).
std::size_t cold_cache_flush_bytes(std::size_t last_level_cache);

// One point of the cache probe: a copy whose source and destination together span `bytes`, and the
// bandwidth it reached (bytes read plus bytes written per second).
struct BandwidthPoint {
  double bytes = 0.0;
  double bandwidth = 0.0;
};

// The cache that matters (issue #37): the largest working set of the probe whose copy still ran at
// least kCacheSpeedup times as fast as the probe's largest (from memory), each smaller point included
// (a dip below the bar ends the cache). 0 where no point beat memory by that much, or with fewer than
// two points. On the Xeon VM above at two threads: 53 GB/s up to 128 MiB, 25 GB/s from 256 MiB.
inline constexpr double kCacheSpeedup = 1.5;
double cache_that_matters(std::span<const BandwidthPoint> curve);

// Reads one byte of every 64-byte line of `bytes` (volatile reads, which no compiler drops), so that
// they are in the cache, as a tensor the network has just written is; returns their sum.
unsigned touch(std::span<const unsigned char> bytes);

// A buffer that, written in full, evicts whatever the caches held (nothing when it is empty).
class CacheFlush {
 public:
  explicit CacheFlush(std::size_t bytes = 0) : buffer_(bytes) {}
  void operator()();
  std::size_t bytes() const { return buffer_.size(); }
  std::span<const unsigned char> contents() const { return buffer_; }

 private:
  std::vector<unsigned char> buffer_;
  unsigned char value_ = 0;   // a new value each time: every line is written, not found already equal
};

}  // namespace ridge::validate
