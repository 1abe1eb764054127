// Elaboration: a parsed `.net` file to the IR. Binds the network's parameters (defaults, then
// --set overrides), runs the network body (blocks expanded, loops unrolled, shapes inferred through
// lang::NetworkBuilder so layer names follow the same rule as the C++ form) and reports every
// semantic error as a diagnostic pointing at the construct that caused it.
#pragma once

#include "lang/net/sources.hpp"
#include "lang/parse.hpp"

namespace ridge::lang::net {

// Limits from docs/language.md, "Limits" (nesting is precheck.hpp's).
inline constexpr std::size_t kMaxBlockDepth = 64;
inline constexpr std::size_t kMaxLayers = 100'000;
inline constexpr std::int64_t kMaxLoopIterations = 1'000'000;
// Work bound: operands evaluated and statements run, so that blocks calling blocks twice over
// (exponential expansion without loops) end in an error instead of running for ever.
// Passing a list or tuple to a call costs one step per item too, so the work of building the network
// (every op's inputs included) stays within the budget, not only the count of statements.
inline constexpr std::int64_t kMaxSteps = 4'000'000;
// Items of one list or tuple, and tensor inputs of one op (concat's fan-in).
inline constexpr std::size_t kMaxItems = 100'000;
inline constexpr std::size_t kMaxFanIn = 65'536;
// Tensor inputs of all ops together: each is a shape the builder infers from, so this bounds the work
// of building the network by its edges as kMaxLayers bounds it by its nodes.
inline constexpr std::size_t kMaxTotalInputs = 1'000'000;
// Elaborator recursion (expressions inside blocks inside expressions...), kept well inside the stack.
inline constexpr int kMaxEvalDepth = 1'000;

// Throws lang::Error.
ir::Network elaborate(const Sources& sources, const Overrides& overrides);

}  // namespace ridge::lang::net
