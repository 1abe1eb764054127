// The cheap pass that runs before the grammar: it refuses what is not source text (NUL bytes,
// non-ASCII outside comments, control characters) and checks that brackets balance and nest at most
// kMaxNesting deep. Because of it the recursive-descent parser never sees input deep enough to
// overflow the stack, and unbalanced brackets are reported where they are, not where the grammar
// happens to give up.
#pragma once

#include "lang/source_map.hpp"

namespace ridge::lang::net {

inline constexpr int kMaxNesting = 200;

// Throws lang::Error.
void precheck(const SourceMap& source);

}  // namespace ridge::lang::net
