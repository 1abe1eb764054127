#include "validate/cache_flush.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace ridge::validate {

std::size_t last_level_cache_bytes(const std::filesystem::path& cache_dir) {
  int best_level = 0;
  std::size_t best_bytes = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("index", 0) != 0) continue;
    std::ifstream level_in(entry.path() / "level"), type_in(entry.path() / "type"), size_in(entry.path() / "size");
    int level = 0;
    std::string type, size;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> size)) continue;
    if (type == "Instruction" || level <= best_level) continue;
    // sysfs writes the size with a unit suffix K, M or G (binary), or none for bytes.
    std::size_t digits = 0;
    while (digits < size.size() && size[digits] >= '0' && size[digits] <= '9') ++digits;
    if (digits == 0 || digits > 12) continue;
    const std::string unit = size.substr(digits);
    const std::size_t scale = unit.empty() ? 1 : unit == "K" ? 1024 : unit == "M" ? 1024 * 1024 : unit == "G" ? 1024 * 1024 * 1024 : 0;
    if (scale == 0) continue;
    best_level = level;
    best_bytes = std::stoull(size.substr(0, digits)) * scale;
  }
  return best_bytes;
}

std::size_t cold_cache_flush_bytes(std::size_t last_level_cache) {
  constexpr std::size_t kUnknownCacheFlush = std::size_t{128} << 20;
  return last_level_cache > 0 ? 2 * last_level_cache : kUnknownCacheFlush;
}

double cache_that_matters(std::span<const BandwidthPoint> curve) {
  if (curve.size() < 2) return 0.0;
  std::vector<BandwidthPoint> points(curve.begin(), curve.end());
  std::sort(points.begin(), points.end(), [](const BandwidthPoint& a, const BandwidthPoint& b) { return a.bytes < b.bytes; });
  const double memory = points.back().bandwidth;
  double cache = 0.0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (!(points[i].bandwidth >= kCacheSpeedup * memory)) break;
    cache = points[i].bytes;
  }
  return cache;
}

unsigned touch(std::span<const unsigned char> bytes) {
  constexpr std::size_t kLine = 64;
  unsigned sum = 0;
  for (std::size_t i = 0; i < bytes.size(); i += kLine) sum += static_cast<const volatile unsigned char&>(bytes[i]);
  return sum;
}

void CacheFlush::operator()() {
  if (buffer_.empty()) return;
  std::fill(buffer_.begin(), buffer_.end(), ++value_);
  // Read one byte back through volatile, so that no compiler can prove the writes unobserved.
  volatile const unsigned char* const probe = buffer_.data() + buffer_.size() / 2;
  (void)*probe;
}

}  // namespace ridge::validate
