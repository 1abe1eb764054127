// The diagnostics of a .hw text that must be refused, for the tests of bad input and of recovery.
#pragma once

#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace ridge::testing {

inline std::vector<lang::Diagnostic> refuse_device(const std::string& text) {
  try {
    lang::parse_device(text, "bad.hw");
  } catch (const lang::Error& e) {
    return e.diagnostics();
  }
  FAIL("accepted a text that should have been refused:\n" << text);
  return {};
}

}  // namespace ridge::testing
