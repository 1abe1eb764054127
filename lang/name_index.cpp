#include "lang/name_index.hpp"

#include <functional>

namespace ridge::lang {

std::size_t NameIndex::hash(std::string_view name) { return std::hash<std::string_view>{}(name); }

bool NameIndex::contains(std::string_view name, std::size_t hash, const LayerChunks& layers) const {
  if (slots_.empty()) return false;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id == kEmpty) return false;
    if (s.hash == hash && layers[s.id].name == name) return true;
  }
}

void NameIndex::add(std::size_t hash, ir::LayerId id) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash & mask;
  while (slots_[i].id != kEmpty) i = (i + 1) & mask;
  slots_[i] = {hash, id};
  ++size_;
}

void NameIndex::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void NameIndex::clear() {
  slots_.clear();
  size_ = 0;
}

}  // namespace ridge::lang
