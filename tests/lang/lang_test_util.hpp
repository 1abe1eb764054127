// Helpers shared by the language tests.
#pragma once

#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

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

// The caret line for column `col`: col-1 spaces, then '^'.
inline std::string caret(int col) {
  std::string s = "\n";
  s.append(static_cast<std::size_t>(col - 1), ' ').append("^\n");
  return s;
}

// `text` must be refused at line:col of bad.net with `message`, the source line and a caret.
inline void check_rejected(const std::string& text, int line, int col, const std::string& message) {
  const std::string error = error_of(text);
  INFO(error);
  std::string where = "bad.net:";
  where.append(std::to_string(line)).append(":").append(std::to_string(col)).append(": error: ");
  CHECK_THAT(error, Catch::StartsWith(where));
  CHECK_THAT(error, Catch::Contains(message));
  CHECK_THAT(error, Catch::Contains(caret(col)));
}

}  // namespace ridge::test
