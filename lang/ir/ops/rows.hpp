// Shorthands for writing spec rows: each family file says `using namespace ridge::ir::rows;` and has
// the shape helpers (rules), the parameter kinds (K) and the input shapes' type (In). Internal to
// lang/ir/ops.
#pragma once

#include "lang/ir/ops/rules.hpp"

namespace ridge::ir::rows {

using namespace rules;
using K = ParamKind;
using In = std::vector<Shape>;

inline AttrValue I(std::int64_t v) { return v; }
inline AttrValue R(double v) { return v; }
inline AttrValue B(bool v) { return v; }
inline AttrValue W(const char* v) { return std::string(v); }
inline AttrValue L(std::vector<std::int64_t> v) { return v; }

inline ParamSpec tensor(std::string_view name) { return {name, ParamKind::Tensor}; }

}  // namespace ridge::ir::rows
