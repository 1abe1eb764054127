#include "lang/suggest.hpp"

#include <algorithm>

namespace ridge::lang {

std::size_t typo_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the swap of two neighbours looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string>& known) {
  constexpr std::size_t kMaxLength = 64;
  if (name.size() < 3 || name.size() > kMaxLength) return "";
  std::string best;
  std::size_t best_distance = kMaxLength;
  for (const std::string& k : known) {
    const std::size_t allowed = std::max<std::size_t>(1, std::max(name.size(), k.size()) / 3);
    // A distance within `allowed` needs lengths within `allowed`: skip the rest unmeasured.
    if (k.size() + allowed < name.size() || name.size() + allowed < k.size() || k == name) continue;
    const std::size_t d = typo_distance(name, k);
    if (d <= allowed && d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

}  // namespace ridge::lang
