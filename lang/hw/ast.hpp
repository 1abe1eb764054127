// The `.hw` syntax tree: what the text says, before any meaning is checked. Nodes that a diagnostic
// may point at derive from x3::position_tagged, so check.cpp can find their line and column.
#pragma once

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include <string>
#include <vector>

namespace ridge::lang::hw::ast {

namespace x3 = boost::spirit::x3;

// `TFLOP/s`, `GiB`, `%`: kept as written; units.cpp gives it a meaning.
struct Unit : x3::position_tagged {
  std::string text;
};

// `19.5 TFLOP/s`, `40 GiB`, `0.7`: the unit is optional in the syntax so that a missing one is a
// checked error with a helpful message ("expected a size such as '40 GiB'"), not a parse failure.
struct Quantity : x3::position_tagged {
  double number = 0.0;
  boost::optional<Unit> unit;
};

// A quoted string, escapes already resolved.
struct Text : x3::position_tagged {
  std::string text;
};

// A bare word: `gpu`, `nvlink`.
struct Word : x3::position_tagged {
  std::string text;
};

// `1 GFLOP: 0.6`: one point of a PPP curve over op size.
struct CurvePoint : x3::position_tagged {
  Quantity size;
  Quantity fraction;
};

// `[1 MFLOP: 0.2, 1 GFLOP: 0.6]`: a PPP curve over op size.
struct Curve : x3::position_tagged {
  std::vector<CurvePoint> points;
};

struct Value : x3::variant<Quantity, Text, Word, Curve> {
  using base_type::base_type;
  using base_type::operator=;
};

// A dotted key: `peak.fp32`, `link.nvlink.bandwidth`.
struct Key : x3::position_tagged {
  std::string text;
};

// `KEY = VALUE [source "TEXT"]`
struct Entry : x3::position_tagged {
  Key key;
  Value value;
  boost::optional<Text> source;
};

// `device "NAME" { ENTRY... }`, or `runtime "NAME" { ENTRY... }` (a software stack: ir/runtime.hpp)
struct Device : x3::position_tagged {
  std::string what;   // "device" or "runtime"
  Text name;
  std::vector<Entry> entries;
};

}  // namespace ridge::lang::hw::ast
