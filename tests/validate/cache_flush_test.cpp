// Where calibrate learns how much to write to time a layer cold: the last-level cache as Linux's sysfs
// states it (Documentation/ABI/testing/sysfs-devices-system-cpu: cache/indexN/{level,type,size}).
// Each test builds a small sysfs tree in a temporary folder.
#include "validate/cache_flush.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

using namespace ridge::validate;
namespace fs = std::filesystem;

namespace {

struct FakeSysfs {
  inline static int made = 0;
  fs::path root = fs::temp_directory_path() / ("ridge-cache-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  FakeSysfs() { fs::create_directories(root); }
  ~FakeSysfs() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  void add(const std::string& index, const std::string& level, const std::string& type, const std::string& size) const {
    const fs::path dir = root / index;
    fs::create_directories(dir);
    std::ofstream(dir / "level") << level << "\n";
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "size") << size << "\n";
  }
};

}  // namespace

TEST_CASE("the last-level cache is the highest level that holds data") {
  const FakeSysfs sys;   // this VM's AMD EPYC: 32K L1d and L1i, 1024K L2, 32768K L3
  sys.add("index0", "1", "Data", "32K");
  sys.add("index1", "1", "Instruction", "32K");
  sys.add("index2", "2", "Unified", "1024K");
  sys.add("index3", "3", "Unified", "32768K");
  CHECK(last_level_cache_bytes(sys.root) == std::size_t{32} << 20);
  CHECK(cold_cache_flush_bytes(last_level_cache_bytes(sys.root)) == std::size_t{64} << 20);
}

TEST_CASE("an instruction cache never counts, however high its level") {
  const FakeSysfs sys;
  sys.add("index0", "1", "Data", "48K");
  sys.add("index1", "3", "Instruction", "64M");
  sys.add("index2", "2", "Unified", "2M");
  CHECK(last_level_cache_bytes(sys.root) == std::size_t{2} << 20);
}

TEST_CASE("a cache size Linux does not state leaves the documented flush") {
  const FakeSysfs sys;
  sys.add("index0", "1", "Data", "");
  sys.add("index1", "2", "Unified", "lots");
  CHECK(last_level_cache_bytes(sys.root) == 0);
  CHECK(last_level_cache_bytes(sys.root / "missing") == 0);
  CHECK(cold_cache_flush_bytes(0) == std::size_t{128} << 20);
}

TEST_CASE("a flush writes every byte of its buffer, with a new value each time") {
  CacheFlush none;
  none();   // nothing to write: no crash, no allocation
  CHECK(none.bytes() == 0);
  CacheFlush flush(4096);
  CHECK(flush.bytes() == 4096);
  flush();
  const unsigned char first = flush.contents().front();
  CHECK(std::all_of(flush.contents().begin(), flush.contents().end(), [&](unsigned char b) { return b == first; }));
  flush();
  const unsigned char second = flush.contents().front();
  CHECK(second != first);
  CHECK(std::all_of(flush.contents().begin(), flush.contents().end(), [&](unsigned char b) { return b == second; }));
}

namespace {
constexpr double kMiB = 1 << 20;
}

TEST_CASE("the cache that matters is the largest working set copied well above memory's speed") {
  // Measured on a 2-vCPU Intel Xeon VM (sysfs: 260 MiB L3) on 2026-11-28 at two threads, torch copies
  // (docs/results/2026-11-28-xeon-cache.md): L2, then an L3 plateau to 128 MiB, then memory.
  const std::vector<BandwidthPoint> two_threads = {{1 * kMiB, 114.8e9}, {2 * kMiB, 138.1e9}, {4 * kMiB, 71.4e9},
                                                   {8 * kMiB, 52.8e9},  {16 * kMiB, 52.9e9}, {32 * kMiB, 53.5e9},
                                                   {64 * kMiB, 54.0e9}, {128 * kMiB, 48.3e9}, {256 * kMiB, 26.3e9},
                                                   {512 * kMiB, 24.6e9}, {1024 * kMiB, 26.4e9}};
  CHECK(cache_that_matters(two_threads) == 128 * kMiB);
  // The same machine at one thread: 128 MiB already ran at memory's speed (13.2 against 13.1 GB/s).
  const std::vector<BandwidthPoint> one_thread = {{1 * kMiB, 77.8e9}, {8 * kMiB, 26.5e9}, {64 * kMiB, 25.8e9},
                                                  {128 * kMiB, 13.2e9}, {1024 * kMiB, 13.1e9}};
  CHECK(cache_that_matters(one_thread) == 64 * kMiB);
  // The order of the points does not matter.
  std::vector<BandwidthPoint> shuffled = one_thread;
  std::reverse(shuffled.begin(), shuffled.end());
  CHECK(cache_that_matters(shuffled) == 64 * kMiB);
}

TEST_CASE("a probe with no plateau above memory, or too few points, finds no cache") {
  CHECK(cache_that_matters(std::vector<BandwidthPoint>{}) == 0.0);
  CHECK(cache_that_matters(std::vector<BandwidthPoint>{{1 * kMiB, 100e9}}) == 0.0);
  // Just under kCacheSpeedup times memory's bandwidth everywhere.
  const std::vector<BandwidthPoint> flat = {{1 * kMiB, 14.9e9}, {64 * kMiB, 14.0e9}, {1024 * kMiB, 10e9}};
  CHECK(cache_that_matters(flat) == 0.0);
  // A dip below the bar ends the cache, even if a larger size beats it again (noise, not a cache).
  const std::vector<BandwidthPoint> dip = {{1 * kMiB, 50e9}, {2 * kMiB, 12e9}, {4 * kMiB, 50e9}, {1024 * kMiB, 10e9}};
  CHECK(cache_that_matters(dip) == 1 * kMiB);
}

TEST_CASE("touch reads one byte of every 64-byte line") {
  std::vector<unsigned char> bytes(64 * 10 + 1, 0);
  for (std::size_t i = 0; i < bytes.size(); i += 64) bytes[i] = 1;   // the bytes it reads
  bytes[1] = 100;                                                    // one it skips
  CHECK(touch(bytes) == 11u);
  CHECK(touch(std::span<const unsigned char>{}) == 0u);
}
