// An op's attributes by name, as its signature (ir/ops.hpp) lists them: `out`, `kernel`, `eps`...
// Binding (ir::bind_attrs) fills in every default, so readers may assume each parameter is present;
// asking for one that is not, or as the wrong type, is a programming error (std::logic_error).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ridge::ir {

// Integers (sizes, axes, counts), reals (eps, p, slopes), flags, integer lists (kernel per spatial
// axis, permutation, target shape) and words (`mode: "bilinear"`).
using AttrValue = std::variant<std::int64_t, double, bool, std::vector<std::int64_t>, std::string>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

  void set(std::string_view name, AttrValue value);
  void reserve(std::size_t n) { items_.reserve(n); }
  const AttrValue* find(std::string_view name) const;
  bool has(std::string_view name) const { return find(name) != nullptr; }

  std::int64_t i(std::string_view name) const;
  double r(std::string_view name) const;              // an integer reads as a real too
  bool b(std::string_view name) const;
  const std::vector<std::int64_t>& ints(std::string_view name) const;
  const std::string& s(std::string_view name) const;

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  friend bool operator==(const Attrs&, const Attrs&) = default;

 private:
  const AttrValue& at(std::string_view name) const;
  std::vector<std::pair<std::string, AttrValue>> items_;   // signature order; a handful per op
};

}  // namespace ridge::ir
