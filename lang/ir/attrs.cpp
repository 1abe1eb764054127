#include "lang/ir/attrs.hpp"

#include <stdexcept>

namespace ridge::ir {

Attrs::Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  for (const auto& [k, v] : items) set(k, v);
}

void Attrs::set(std::string_view name, AttrValue value) {
  for (auto& [k, v] : items_)
    if (k == name) {
      v = std::move(value);
      return;
    }
  items_.emplace_back(std::string(name), std::move(value));
}

const AttrValue* Attrs::find(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return &v;
  return nullptr;
}

const AttrValue& Attrs::at(std::string_view name) const {
  if (const AttrValue* v = find(name)) return *v;
  throw std::logic_error("attribute '" + std::string(name) + "' is not bound");
}

namespace {
template <typename T>
const T& as(const AttrValue& v, std::string_view name) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::logic_error("attribute '" + std::string(name) + "' has another type");
}
}  // namespace

std::int64_t Attrs::i(std::string_view name) const { return as<std::int64_t>(at(name), name); }
double Attrs::r(std::string_view name) const {
  const AttrValue& v = at(name);
  if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  return as<double>(v, name);
}
bool Attrs::b(std::string_view name) const { return as<bool>(at(name), name); }
const std::vector<std::int64_t>& Attrs::ints(std::string_view name) const {
  return as<std::vector<std::int64_t>>(at(name), name);
}
const std::string& Attrs::s(std::string_view name) const { return as<std::string>(at(name), name); }

}  // namespace ridge::ir
