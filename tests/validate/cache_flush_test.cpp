// Where calibrate learns how much to write to time a layer cold: the last-level cache as Linux's sysfs
// states it (Documentation/ABI/testing/sysfs-devices-system-cpu: cache/indexN/{level,type,size}).
// Each test builds a small sysfs tree in a temporary folder.
#include "validate/cache_flush.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

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
