// What a `.net` expression evaluates to: a number (double), a boolean, a tensor (a layer of the
// network being built), a list `[a, b]`, a tuple (what `split` returns), or nothing (an argument
// left to its default), or a quoted word.
#pragma once

#include "lang/ir/network.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ridge::lang::net {

struct Value;

// The items of a list or tuple: immutable and shared, so copying a value (binding it, passing it to a
// block, nesting it in another list) costs O(1) whatever it holds. `[a, a, a]` of a 100-item `a` holds
// three pointers to a's items, not 300 copies; a 1.6 KB file of four nested 100-item lists is 10^8
// values only if copied. Read like a const std::vector<Value>.
class Items {
 public:
  Items() = default;
  Items(std::vector<Value> items);   // NOLINT(google-explicit-constructor): of_list(std::vector<Value>)

  std::size_t size() const;
  bool empty() const { return size() == 0; }
  const Value& operator[](std::size_t i) const;
  const Value& front() const { return (*this)[0]; }
  const Value& back() const { return (*this)[size() - 1]; }
  const Value* begin() const;
  const Value* end() const;
  // True when every item is a number, a boolean or a list of them, to any depth: computed once when
  // the list is made, so asking costs O(1) however deeply lists share lists.
  bool plain_data() const;

 private:
  struct Storage;
  std::shared_ptr<const Storage> storage_;
};

struct Value {
  enum class Kind { None, Number, Bool, Tensor, List, Tuple, Text };
  Kind kind = Kind::None;
  double number = 0.0;
  bool boolean = false;
  ir::LayerId tensor = 0;
  Items items;
  // Kind::Text: a quoted word. Shared, not a std::string member: every value the elaborator makes,
  // moves and destroys (numbers above all) would carry and clear an empty string's 32 bytes.
  std::shared_ptr<const std::string> text;

  static Value of_number(double v) { return {Kind::Number, v, false, 0, {}, {}}; }
  static Value of_bool(bool v) { return {Kind::Bool, 0.0, v, 0, {}, {}}; }
  static Value of_tensor(ir::LayerId id) { return {Kind::Tensor, 0.0, false, id, {}, {}}; }
  static Value of_list(std::vector<Value> v) { return {Kind::List, 0.0, false, 0, Items(std::move(v)), {}}; }
  static Value of_tuple(std::vector<Value> v) { return {Kind::Tuple, 0.0, false, 0, Items(std::move(v)), {}}; }
  static Value of_text(std::string t) {
    return {Kind::Text, 0.0, false, 0, {}, std::make_shared<const std::string>(std::move(t))};
  }
  const std::string& word() const { return *text; }   // Kind::Text only
};

struct Items::Storage {
  std::vector<Value> values;
  bool plain = true;
};

inline Items::Items(std::vector<Value> items) {
  if (items.empty()) return;
  auto s = std::make_shared<Storage>();
  for (const Value& v : items)
    s->plain = s->plain && (v.kind == Value::Kind::Number || v.kind == Value::Kind::Bool || v.kind == Value::Kind::Text ||
                            (v.kind == Value::Kind::List && v.items.plain_data()));
  s->values = std::move(items);
  storage_ = std::move(s);
}
inline std::size_t Items::size() const { return storage_ ? storage_->values.size() : 0; }
inline const Value& Items::operator[](std::size_t i) const { return storage_->values[i]; }
inline const Value* Items::begin() const { return storage_ ? storage_->values.data() : nullptr; }
inline const Value* Items::end() const { return begin() + size(); }
inline bool Items::plain_data() const { return !storage_ || storage_->plain; }

// "a number", "a tensor", "a tuple of 2 values": for messages such as "expected a tensor, got a number".
inline std::string describe(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return "nothing";
    case Value::Kind::Number: return "a number";
    case Value::Kind::Bool: return "a boolean";
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::List: return "a list";
    case Value::Kind::Tuple: return "a tuple of " + std::to_string(v.items.size()) + " values";
    case Value::Kind::Text: return "a word (\"" + v.word() + "\")";
  }
  return "a value";
}

}  // namespace ridge::lang::net
