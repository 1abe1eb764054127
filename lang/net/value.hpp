// What a `.net` expression evaluates to: a number (double), a boolean, a tensor (a layer of the
// network being built), a list `[a, b]`, a tuple (what `split` returns), or nothing (an argument
// left to its default), or a quoted word.
#pragma once

#include "ir/network.hpp"

#include <string>
#include <vector>

namespace ridge::lang::net {

struct Value {
  enum class Kind { None, Number, Bool, Tensor, List, Tuple, Text };
  Kind kind = Kind::None;
  double number = 0.0;
  bool boolean = false;
  ir::LayerId tensor = 0;
  std::vector<Value> items;
  std::string text;           // Kind::Text: a quoted word

  static Value of_number(double v) { return {Kind::Number, v, false, 0, {}, {}}; }
  static Value of_bool(bool v) { return {Kind::Bool, 0.0, v, 0, {}, {}}; }
  static Value of_tensor(ir::LayerId id) { return {Kind::Tensor, 0.0, false, id, {}, {}}; }
  static Value of_list(std::vector<Value> v) { return {Kind::List, 0.0, false, 0, std::move(v), {}}; }
  static Value of_tuple(std::vector<Value> v) { return {Kind::Tuple, 0.0, false, 0, std::move(v), {}}; }
  static Value of_text(std::string t) { return {Kind::Text, 0.0, false, 0, {}, std::move(t)}; }
};

// "a number", "a tensor", "a tuple of 2 values": for messages such as "expected a tensor, got a number".
inline std::string describe(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return "nothing";
    case Value::Kind::Number: return "a number";
    case Value::Kind::Bool: return "a boolean";
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::List: return "a list";
    case Value::Kind::Tuple: return "a tuple of " + std::to_string(v.items.size()) + " values";
    case Value::Kind::Text: return "a word (\"" + v.text + "\")";
  }
  return "a value";
}

}  // namespace ridge::lang::net
