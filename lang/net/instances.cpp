// Block instances elaborated once: a network that calls the same block with the same arguments many
// times (Llama-2-70B's 80 decoder layers, EfficientNet's repeated MBConvs) repeats the first such
// instance's layers under the new scope rather than binding, inferring and naming each layer again.
// instance.hpp says why the copy is exact; the checks below keep every error where it was.
#include "lang/net/elaborator.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>

namespace ridge::lang::net {
namespace {

// Values a key may spell out: a list argument shared many times over (four nested 100-item lists)
// would cost more to spell than to run, so such a call is simply run.
constexpr int kMaxKeyValues = 512;

template <typename T>
void append(std::string& key, const T& v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  key.append(bytes, sizeof(T));
}

// Appends `v` to the key; a tensor as its place among the tensor arguments and its shape, as an
// instance depends on what its inputs are, not on which layers. False past the budget.
bool spell(const Value& v, const NetworkBuilder& b, std::string& key, std::vector<ir::LayerId>& tensors, int& budget) {
  if (--budget < 0) return false;
  append(key, static_cast<char>(v.kind));
  switch (v.kind) {
    case Value::Kind::None: return true;
    case Value::Kind::Number: append(key, std::bit_cast<std::uint64_t>(v.number)); return true;
    case Value::Kind::Bool: append(key, v.boolean); return true;
    case Value::Kind::Text:
      append(key, v.word().size());
      key.append(v.word());
      return true;
    case Value::Kind::Tensor: {
      std::size_t slot = 0;
      while (slot < tensors.size() && tensors[slot] != v.tensor) ++slot;
      if (slot == tensors.size()) tensors.push_back(v.tensor);
      append(key, slot);
      const ir::Shape& shape = b.shape(v.tensor);
      append(key, shape.size());
      for (const std::int64_t d : shape) append(key, d);
      return true;
    }
    case Value::Kind::List:
    case Value::Kind::Tuple:
      append(key, v.items.size());
      for (const Value& item : v.items)
        if (!spell(item, b, key, tensors, budget)) return false;
      return true;
  }
  return false;
}

// Every tensor in `v` passed through `move`; false when one cannot be (the value is left unfinished).
template <typename Move>
bool moved(const Value& v, Move move, Value& out, int& budget) {
  if (--budget < 0) return false;
  if (v.kind == Value::Kind::Tensor) {
    const auto id = move(v.tensor);
    if (!id) return false;
    out = Value::of_tensor(*id);
    return true;
  }
  if ((v.kind != Value::Kind::List && v.kind != Value::Kind::Tuple) || v.items.plain_data()) {
    out = v;
    return true;
  }
  std::vector<Value> items(v.items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!moved(v.items[i], move, items[i], budget)) return false;
  out = v.kind == Value::Kind::List ? Value::of_list(std::move(items)) : Value::of_tuple(std::move(items));
  return true;
}

}  // namespace

Value Elaborator::instantiate(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args) {
  // The key: the block, where it is called from (recursion and depth checks depend on it), the arguments.
  std::string key;
  std::vector<ir::LayerId> tensors;
  int budget = kMaxKeyValues;
  bool keyed = true;
  append(key, &block);
  append(key, depth_);
  append(key, stack_.size());
  for (const Frame& f : stack_) append(key, f.block);
  for (const Arg& a : args) {
    append(key, a.keyword != nullptr);
    if (a.keyword) {
      append(key, a.keyword->size());
      key.append(*a.keyword);
    }
    keyed = keyed && spell(a.value, *builder_, key, tensors, budget);
  }
  if (!keyed) return run_block(block, c, std::move(args));

  if (const auto it = instances_.find(key); it != instances_.end()) {
    const Instance& was = it->second;
    const std::size_t layers = was.last - was.first;
    // Repeated only where running it would pass no limit: otherwise it runs, and stops where it would.
    const bool within = was.steps <= kMaxSteps - steps_ && was.loop_iterations <= kMaxLoopIterations - loop_iterations_ &&
                        layers <= kMaxLayers - layers_ && was.op_inputs <= kMaxTotalInputs - op_inputs_;
    std::vector<std::pair<ir::LayerId, ir::LayerId>> outside;
    outside.reserve(tensors.size());
    for (std::size_t k = 0; k < tensors.size(); ++k) outside.emplace_back(was.tensors[k], tensors[k]);
    if (within)
      if (const auto base = builder_->repeat(was.first, was.last, was.prefix_size, outside)) {
        const auto move = [&](ir::LayerId id) -> std::optional<ir::LayerId> {
          if (id >= was.first) return *base + (id - was.first);
          for (const auto& [from, to] : outside)
            if (from == id) return to;
          return std::nullopt;
        };
        Value result;
        int result_budget = kMaxKeyValues;
        moved(was.result, move, result, result_budget);   // checked when the instance was kept
        returned_.reset();   // as run_block leaves it
        steps_ += was.steps;
        loop_iterations_ += was.loop_iterations;
        layers_ += layers;
        op_inputs_ += was.op_inputs;
        return result;
      }
    return run_block(block, c, std::move(args));
  }

  Instance now;
  now.first = builder_->layers().size();
  now.prefix_size = builder_->prefix().size();
  now.tensors = tensors;
  const std::int64_t steps = steps_, loop_iterations = loop_iterations_;
  const std::size_t op_inputs = op_inputs_;
  Value result = run_block(block, c, std::move(args));
  now.last = builder_->layers().size();
  now.steps = steps_ - steps;
  now.loop_iterations = loop_iterations_ - loop_iterations;
  now.op_inputs = op_inputs_ - op_inputs;

  // Kept only if a repeat can rewire everything: every input from outside the instance is a tensor
  // argument, no layer ties another's weights (an id in its attributes), the result can be moved.
  const auto is_argument = [&](ir::LayerId id) {
    return std::find(tensors.begin(), tensors.end(), id) != tensors.end();
  };
  for (ir::LayerId id = now.first; id < now.last; ++id) {
    const ir::Layer& l = builder_->layers()[id];
    if (ir::tied_to(l)) return result;
    for (const ir::LayerId in : l.inputs)
      if (in < now.first && !is_argument(in)) return result;
  }
  const auto same = [&](ir::LayerId id) -> std::optional<ir::LayerId> {
    if (id >= now.first || is_argument(id)) return id;
    return std::nullopt;
  };
  int result_budget = kMaxKeyValues;
  if (!moved(result, same, now.result, result_budget)) return result;
  instances_.emplace(std::move(key), std::move(now));
  return result;
}

}  // namespace ridge::lang::net
