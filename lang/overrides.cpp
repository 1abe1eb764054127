#include "lang/parse.hpp"

#include <stdexcept>

namespace ridge::lang {

Overrides parse_overrides(const std::vector<std::string>& bindings, const std::string& option) {
  Overrides o;
  for (const std::string& b : bindings) {
    const std::size_t eq = b.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == b.size())
      throw std::invalid_argument(option + ": expected name=value, got '" + b + "'");
    o[b.substr(0, eq)] = b.substr(eq + 1);
  }
  return o;
}

}  // namespace ridge::lang
