// The layer names a NetworkBuilder has made, for its check that no two are the same. A flat table of
// (hash, layer id), the names themselves read from the layers: adding a name allocates nothing, where
// a std::unordered_set<std::string> allocates a node and a copy of each name, which cost as much as
// the rest of making a layer that the `.net` front end repeats from an earlier block instance.
#pragma once

#include "lang/ir/network.hpp"
#include "lang/layer_chunks.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace ridge::lang {

class NameIndex {
 public:
  // A name's hash, computed once for contains() then add().
  static std::size_t hash(std::string_view name);
  // Whether `name` (of hash `h`) is the name of a layer added so far; `layers` are the layers the ids index.
  bool contains(std::string_view name, std::size_t h, const LayerChunks& layers) const;
  // Adds layers[id], whose name has hash `h` and is not yet contained.
  void add(std::size_t h, ir::LayerId id);
  void clear();

 private:
  struct Slot {
    std::size_t hash = 0;
    ir::LayerId id = kEmpty;
  };
  static constexpr ir::LayerId kEmpty = static_cast<ir::LayerId>(-1);
  void grow();

  std::vector<Slot> slots_;   // a power of two in size, at most half full; linear probing
  std::size_t size_ = 0;
};

}  // namespace ridge::lang
