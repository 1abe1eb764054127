// Helpers shared by the language tests.
#pragma once

#include "ir/ops.hpp"
#include "parse.hpp"

#include <string>

namespace ridge::test {

inline std::int64_t total_parameters(const ir::Network& n) {
  std::int64_t total = 0;
  for (const auto& l : n.layers) total += ir::parameter_count(l, ir::input_shapes(n, l));
  return total;
}

// The rendered diagnostics of a text that must fail, or "" if it elaborated.
inline std::string error_of(const std::string& text, const lang::Overrides& overrides = {}) {
  try {
    lang::parse_network(text, "bad.net", overrides);
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ridge::test
