#include "lang/ir/op_classes.hpp"

namespace ridge::ir {

std::string_view op_class_name(OpClass c) {
  const auto i = static_cast<std::size_t>(c);
  return i < kOpClasses.size() ? kOpClasses[i].name : "?";
}

std::optional<OpClass> op_class_from_name(std::string_view name) {
  for (const OpClassRow& row : kOpClasses)
    if (row.name == name) return row.op_class;
  return std::nullopt;
}

std::string op_class_names(std::string_view separator) {
  std::string s;
  for (const OpClassRow& row : kOpClasses) s.append(s.empty() ? "" : separator).append(row.name);
  return s;
}

const std::vector<OpClass>& all_op_classes() {
  static const std::vector<OpClass> all = [] {
    std::vector<OpClass> v;
    for (const OpClassRow& row : kOpClasses) v.push_back(row.op_class);
    return v;
  }();
  return all;
}

}  // namespace ridge::ir
