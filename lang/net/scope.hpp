// The names a block instance, the network or the file's constants have bound, and their values.
// Internal to lang/net.
//
// A scope holds a handful of names: a vector searched in order costs less than a std::map, whose
// string comparisons down its tree and node per name were a tenth of elaborating swin_t. A scope that
// grows past kIndexed names gets a hash index too, so a file with thousands of names stays linear.
// References to values last until the next name is added (the vector may move them).
#pragma once

#include "lang/net/value.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ridge::lang::net {

class Scope {
 public:
  const Value* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // The value bound to `name`, bound to nothing (Kind::None) first if it was not.
  Value& operator[](std::string_view name);
  // Every name, sorted (the order a std::map gave suggestions).
  std::vector<std::string> names() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  static constexpr std::size_t kIndexed = 32;
  std::vector<std::pair<std::string, Value>> entries_;
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> index_;   // past kIndexed names: name -> entry
};

}  // namespace ridge::lang::net
