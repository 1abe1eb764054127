#include "lang/net/scope.hpp"

#include <algorithm>

namespace ridge::lang::net {

const Value* Scope::find(std::string_view name) const {
  if (!index_.empty()) {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  // Sizes and first letters first: most names differ there, and a memcmp call per name showed.
  for (const auto& [k, v] : entries_)
    if (k.size() == name.size() && (name.empty() || k.front() == name.front()) && k == name) return &v;
  return nullptr;
}

Value& Scope::operator[](std::string_view name) {
  if (const Value* v = find(name)) return const_cast<Value&>(*v);
  if (entries_.empty()) entries_.reserve(8);
  entries_.emplace_back(std::string(name), Value{});
  if (entries_.size() > kIndexed) {
    if (index_.empty())
      for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
    else
      index_.emplace(entries_.back().first, entries_.size() - 1);
  }
  return entries_.back().second;
}

std::vector<std::string> Scope::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [k, v] : entries_) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ridge::lang::net
