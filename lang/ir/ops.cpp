// The op registry and the generic parts of the spec: binding, arity, limits, parameter counts.
// The rows themselves are in ir/ops/*.cpp, one file per family.
#include "lang/ir/ops.hpp"

#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rules.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <string>

namespace ridge::ir {
namespace {

using rules::fail;
using rules::str;

OpSpec input_spec() {
  return {"input", {{"shape", ParamKind::Ints}}, OpClass::DataMovement,
          [](const Attrs& a, const std::vector<Shape>&) -> Shape { return a.ints("shape"); }, nullptr, true,
          "the network's input (per sample)"};
}

struct Registry {
  std::vector<OpSpec> ops;
  // Hashed: every call in a .net file asks by name, and op names share prefixes (adaptive_avgpool...).
  std::unordered_map<std::string_view, Op> by_name;
  Registry() {
    ops.push_back(input_spec());
    for (auto family : {families::tensor_ops, families::pointwise_ops, families::conv_ops, families::norm_ops,
                        families::dense_ops})
      for (OpSpec& s : family()) ops.push_back(std::move(s));
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!by_name.emplace(ops[i].name, Op{static_cast<std::uint16_t>(i)}).second)
        throw std::logic_error("op '" + std::string(ops[i].name) + "' is specified twice");
    }
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

std::string kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Int: return "an integer";
    case ParamKind::Real: return "a number";
    case ParamKind::Bool: return "true or false";
    case ParamKind::Spatial: return "an integer or a list of integers";
    case ParamKind::Ints: return "a list of integers";
    case ParamKind::Word: return "a word in quotes";
    default: return "a tensor";
  }
}

AttrValue convert(const OpSpec& s, const ParamSpec& p, AttrValue v, const std::vector<Shape>& inputs) {
  const auto wrong = [&]() {
    fail("expected " + kind_name(p.kind) + " for '" + std::string(p.name) + "' of '" + std::string(s.name) + "'");
  };
  switch (p.kind) {
    case ParamKind::Int:
    case ParamKind::Weights:
      if (!std::holds_alternative<std::int64_t>(v)) wrong();
      return v;
    case ParamKind::Real:
    case ParamKind::TensorOrNumber:
      if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
      if (!std::holds_alternative<double>(v)) wrong();
      return v;
    case ParamKind::Bool:
      if (!std::holds_alternative<bool>(v)) wrong();
      return v;
    case ParamKind::Ints:
      if (const auto* n = std::get_if<std::int64_t>(&v)) return std::vector<std::int64_t>{*n};
      if (!std::holds_alternative<std::vector<std::int64_t>>(v)) wrong();
      return v;
    case ParamKind::Spatial: {
      const std::size_t rank = inputs.empty() || inputs[0].size() < 2 ? 1 : inputs[0].size() - 1;
      if (const auto* n = std::get_if<std::int64_t>(&v)) return std::vector<std::int64_t>(rank, *n);
      const auto* list = std::get_if<std::vector<std::int64_t>>(&v);
      if (!list) wrong();
      if (list->size() != rank)
        fail("'" + std::string(p.name) + "' of '" + std::string(s.name) + "' gives " + str(static_cast<std::int64_t>(list->size())) +
             " values for an input with " + str(static_cast<std::int64_t>(rank)) + " spatial axes");
      return v;
    }
    case ParamKind::Word: {
      const auto* w = std::get_if<std::string>(&v);
      if (!w) wrong();
      if (std::find(p.words.begin(), p.words.end(), *w) == p.words.end()) {
        std::string allowed;
        for (auto x : p.words) allowed += (allowed.empty() ? "\"" : ", \"") + std::string(x) + "\"";
        fail("'" + std::string(p.name) + "' of '" + std::string(s.name) + "' is \"" + *w + "\"; expected one of " + allowed);
      }
      return v;
    }
    case ParamKind::Tensor:
    case ParamKind::Tensors:
      break;
  }
  wrong();
  return v;
}

}  // namespace

int OpSpec::min_inputs() const {
  int n = 0;
  for (const auto& p : params)
    if (p.kind == ParamKind::Tensor || p.kind == ParamKind::Tensors) ++n;
  return n;
}

int OpSpec::max_inputs() const {
  int n = 0;
  for (const auto& p : params) {
    if (p.kind == ParamKind::Tensors) return -1;
    if (p.kind == ParamKind::Tensor || p.kind == ParamKind::TensorOrNumber) ++n;
  }
  return n;
}

const std::vector<OpSpec>& all_ops() { return registry().ops; }

const OpSpec& spec(Op op) {
  const auto& ops = registry().ops;
  if (op.id >= ops.size()) throw std::logic_error("op id " + std::to_string(op.id) + " is not in the table");
  return ops[op.id];
}

std::string_view op_name(Op op) { return spec(op).name; }

std::optional<Op> find_op(std::string_view name) {
  const auto& m = registry().by_name;
  const auto it = m.find(name);
  if (it == m.end() || it->second == kInputOp) return std::nullopt;
  return it->second;
}

Op op(std::string_view name) {
  if (name == "input") return kInputOp;
  if (const auto o = find_op(name)) return *o;
  throw std::logic_error("no op is named '" + std::string(name) + "'");
}

Attrs bind_attrs(const OpSpec& s, const Attrs& given, const std::vector<Shape>& inputs) {
  for (const auto& item : given.items()) {   // not a structured binding: clang 14 cannot capture one
    const std::string& name = item.first;
    const bool known = std::any_of(s.params.begin(), s.params.end(), [&](const ParamSpec& p) {
      return p.name == name && (!p.is_tensor() || p.kind == ParamKind::TensorOrNumber);
    });
    if (!known) fail("'" + std::string(s.name) + "' has no argument '" + name + "'");
  }
  Attrs bound;
  bound.reserve(s.params.size());
  std::size_t tensors = 0;   // input tensors the parameters so far account for
  for (const ParamSpec& p : s.params) {
    if (p.kind == ParamKind::Tensor) ++tensors;
    if (p.kind == ParamKind::Tensor || p.kind == ParamKind::Tensors) continue;
    if (const AttrValue* v = given.find(p.name)) {
      bound.set(p.name, convert(s, p, *v, inputs));
    } else if (p.kind == ParamKind::TensorOrNumber) {
      if (inputs.size() <= tensors)
        fail("'" + std::string(s.name) + "' needs argument '" + std::string(p.name) + "' (a tensor or a number)");
      ++tensors;   // given as a tensor input
    } else if (p.fallback) {
      bound.set(p.name, convert(s, p, *p.fallback, inputs));
    } else if (!p.same_as.empty()) {
      const AttrValue* other = bound.find(p.same_as);
      if (!other) throw std::logic_error("'" + std::string(p.name) + "' defaults to a later argument");
      bound.set(p.name, *other);
    } else if (p.kind == ParamKind::Weights) {
      bound.set(p.name, std::int64_t{-1});
    } else {
      fail("'" + std::string(s.name) + "' needs argument '" + std::string(p.name) + "'");
    }
  }
  return bound;
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Shape infer_shape(Op op, const Attrs& attrs, const std::vector<Shape>& inputs) {
  const OpSpec& s = spec(op);
  const int n = static_cast<int>(inputs.size());
  const int lo = s.min_inputs(), hi = s.max_inputs();
  if (n < lo || (hi >= 0 && n > hi))
    fail(std::string(s.name) + " takes " +
         (lo == hi ? str(lo) : hi < 0 ? "at least " + str(lo) : str(lo) + " to " + str(hi)) +
         " input tensor(s), got " + str(n));
  Shape out = s.shape(attrs, inputs);
  if (out.empty()) fail("a value needs at least one dimension per sample");
  std::int64_t total = 1;
  for (auto d : out) {
    if (d < 1) fail("the output shape " + to_string(out) + " has an empty dimension");
    if (d > kMaxDimension || total > kMaxElementsPerSample / d)
      fail("the output shape " + to_string(out) + " is absurdly large (limit " + str(kMaxElementsPerSample) +
           " elements per sample)");
    total *= d;
  }
  return out;
}

std::optional<LayerId> tied_to(const Layer& layer) {
  // Which ops can tie weights, found once: the question is asked of every layer, many times over.
  static const std::vector<bool> can_tie = [] {
    std::vector<bool> ties;
    for (const OpSpec& s : all_ops())
      ties.push_back(std::any_of(s.params.begin(), s.params.end(),
                                 [](const ParamSpec& p) { return p.kind == ParamKind::Weights; }));
    return ties;
  }();
  if (layer.op.id < can_tie.size() && !can_tie[layer.op.id]) return std::nullopt;   // else spec() checks the id
  for (const ParamSpec& p : spec(layer.op).params)
    if (p.kind == ParamKind::Weights)
      if (const AttrValue* v = layer.attrs.find(p.name))
        if (const auto* id = std::get_if<std::int64_t>(v); id && *id >= 0) return static_cast<LayerId>(*id);
  return std::nullopt;
}

std::int64_t weight_count(const Layer& layer, const std::vector<Shape>& in) {
  const OpSpec& s = spec(layer.op);
  return s.weights ? s.weights(layer.attrs, in) : 0;
}

std::int64_t parameter_count(const Layer& layer, const std::vector<Shape>& in) {
  return tied_to(layer) ? 0 : weight_count(layer, in);
}

std::vector<Shape> input_shapes(const Network& network, const Layer& layer) {
  std::vector<Shape> shapes;
  shapes.reserve(layer.inputs.size());
  for (LayerId id : layer.inputs) shapes.push_back(network.layers.at(id).output);
  return shapes;
}

}  // namespace ridge::ir
