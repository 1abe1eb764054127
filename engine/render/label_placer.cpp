#include "engine/render/label_placer.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace ridge::engine::render {

double text_width(std::string_view text, double size) {
  // Count code points, not bytes: "µs" is two characters wide, not three.
  const auto chars = std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  return 0.56 * size * static_cast<double>(chars);
}

void LabelPlacer::avoid_point(double x, double y) {
  constexpr double kMarker = 6.0;   // a marker's half size, with a little air
  taken_.push_back({x - kMarker, y - kMarker, x + kMarker, y + kMarker});
}

LabelPlacer::Box LabelPlacer::box_of(const LabelSpot& s, double width, double height) {
  return {s.end_anchor ? s.x - width : s.x, s.y - height, s.end_anchor ? s.x : s.x + width, s.y + 2};
}

LabelSpot LabelPlacer::place(const std::vector<LabelSpot>& spots, double width, double height) {
  if (spots.empty()) throw std::logic_error("LabelPlacer::place: no spot offered");
  std::size_t best = 0, best_hits = SIZE_MAX;
  for (std::size_t k = 0; k < spots.size() && best_hits > 0; ++k) {
    const Box box = box_of(spots[k], width, height);
    const auto hits = static_cast<std::size_t>(std::count_if(taken_.begin(), taken_.end(), [&](const Box& b) { return b.hits(box); }));
    if (hits < best_hits) {
      best = k;
      best_hits = hits;
    }
  }
  taken_.push_back(box_of(spots[best], width, height));
  return spots[best];
}

}  // namespace ridge::engine::render
