// The text of a fusion pattern (`fuse.NAME = "conv -> batchnorm -> elementwise+"` in a runtime file)
// made into ir::FusionPattern: steps joined by `->`, each an op name, an op class name (every op of
// the class) or several joined by `|`, a trailing `+` for a run of one or more such layers.
//
// Refused, with what is wrong: an unknown name, fewer than two steps, a view op (views run no kernel;
// a pattern passes through them by itself), and a GEMM-shaped op (the matmul class: conv, linear,
// matmul, attention) anywhere but the first step, since a kernel is a GEMM with what its epilogue can
// do, or a run of streaming ops.
#pragma once

#include "lang/ir/runtime.hpp"

#include <string>
#include <variant>

namespace ridge::lang::hw {

// The pattern, or the message saying why the text is none.
std::variant<ir::FusionPattern, std::string> parse_fusion_pattern(std::string name, const std::string& text);

}  // namespace ridge::lang::hw
