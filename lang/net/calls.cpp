// Ops and built-in functions: argument binding, conversions, and the IR layers each op makes.
#include "lang/net/elaborator.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace ridge::lang::net {
namespace {

const std::vector<std::string_view> kBuiltins = {"min", "max",   "abs",      "int",   "floor",  "ceil", "round",
                                                 "make_divisible", "channels", "height", "width", "dim",  "len"};

Value num(double v) { return Value::of_number(v); }

// `split` is the one op-like call that is not an op: it makes one `slice` layer per piece and returns
// them as a tuple. Every other op's signature is its row in the IR's spec table (ir/ops.hpp).
const std::vector<ParamSpec>& split_signature() {
  static const std::vector<ParamSpec> sig = {{"x", true}, {"chunks", true}, {"axis", false, num(0)}};
  return sig;
}

// The elaborator's view of a spec row: every argument but the variadic tensors binds by position or
// keyword; defaults are left to ir::bind_attrs (Kind::None here), so they live in one place.
// Made once per op, as the spec table is fixed: every call of an op binds against its row.
const std::vector<ParamSpec>& binding_params(ir::Op op) {
  static const std::vector<std::vector<ParamSpec>> all = [] {
    std::vector<std::vector<ParamSpec>> rows;
    for (const ir::OpSpec& spec : ir::all_ops()) {
      std::vector<ParamSpec>& params = rows.emplace_back();
      for (const auto& p : spec.params)
        if (p.kind != ir::ParamKind::Tensors) params.push_back({p.name, p.required()});
    }
    return rows;
  }();
  return all[op.id];
}

bool is_variadic(const ir::OpSpec& spec) {
  return std::any_of(spec.params.begin(), spec.params.end(),
                     [](const ir::ParamSpec& p) { return p.kind == ir::ParamKind::Tensors; });
}

// "'out' of 'conv'", built by appending: GCC 12 warns falsely (-Wrestrict) on `"'" + std::string(...)`.
std::string argument(std::string_view param, std::string_view op) {
  std::string s;
  s.append("'").append(param).append("' of '").append(op).append("'");
  return s;
}

// 8.5, 1e+30: numbers as a reader wrote them, not std::to_string's 8.500000.
std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool exact_int(const Value& v) {
  return v.kind == Value::Kind::Number && std::fabs(v.number) <= 9007199254740992.0 && v.number == std::trunc(v.number);
}

// What Elaborator::to_ints makes of an integer or a list of integers; nullopt for anything it would
// refuse (it then says why).
std::optional<ir::AttrValue> exact_ints(const Value& v) {
  if (exact_int(v)) return ir::AttrValue(static_cast<std::int64_t>(v.number));
  if (v.kind != Value::Kind::List) return std::nullopt;
  std::vector<std::int64_t> ints;
  ints.reserve(v.items.size());
  for (const Value& item : v.items) {
    if (!exact_int(item)) return std::nullopt;
    ints.push_back(static_cast<std::int64_t>(item.number));
  }
  return ir::AttrValue(std::move(ints));
}

std::string signature(std::string_view name, const std::vector<ParamSpec>& params, bool variadic) {
  std::string s = std::string(name) + "(" + (variadic ? "x, ..." : "");
  for (const auto& p : params) {
    if (s.back() != '(') s += ", ";
    s += std::string(p.name) + (p.required ? "" : ": ...");
  }
  return s + ")";
}

}  // namespace

bool is_op_name(std::string_view name) { return name == "split" || ir::find_op(name).has_value(); }
bool is_builtin_name(std::string_view name) {
  return std::find(kBuiltins.begin(), kBuiltins.end(), name) != kBuiltins.end();
}
const std::vector<std::string_view>& callable_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n(kBuiltins);
    n.push_back("split");
    for (const auto& spec : ir::all_ops())
      if (ir::find_op(spec.name)) n.push_back(spec.name);
    return n;
  }();
  return names;
}

Bound Elaborator::bind(std::string_view callee, const std::vector<ParamSpec>& params, bool variadic,
                       std::vector<Arg> args, const Tagged& at) const {
  Bound b;
  b.args.reserve(params.size());
  std::size_t positional = 0;
  for (auto& a : args) {
    if (a.keyword) {
      const auto p = std::find_if(params.begin(), params.end(), [&](const ParamSpec& q) { return q.name == *a.keyword; });
      if (p == params.end())
        fail(*a.at, diag::kNetArgument, "'" + std::string(callee) + "' has no argument '" + *a.keyword + "'; expected " +
                                            signature(callee, params, variadic));
      if (b.find(*a.keyword))
        fail(*a.at, diag::kNetArgument, "argument '" + *a.keyword + "' of '" + std::string(callee) + "' is given twice");
      b.args.emplace_back(p->name, std::move(a));
      continue;
    }
    if (variadic) {
      b.rest.push_back(std::move(a));
      continue;
    }
    if (positional >= params.size())
      fail(*a.at, diag::kNetArgument, "'" + std::string(callee) + "' takes at most " + std::to_string(params.size()) +
                                          " argument(s), got more; expected " + signature(callee, params, variadic));
    const std::string_view name = params[positional++].name;
    if (b.find(name)) fail(*a.at, diag::kNetArgument, "argument '" + std::string(name) + "' of '" + std::string(callee) + "' is given twice");
    b.args.emplace_back(name, std::move(a));
  }
  for (const auto& p : params) {
    if (b.find(p.name)) continue;
    if (p.required)
      fail(at, diag::kNetArgument, "'" + std::string(callee) + "' needs argument '" + std::string(p.name) + "'; expected " +
                                       signature(callee, params, variadic));
    b.args.emplace_back(p.name, Arg{{}, p.fallback, &at});
  }
  return b;
}

double Elaborator::to_number(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Number)
    fail(*a.at, diag::kNetType, "expected a number for " + std::string(what) + ", got " + describe(a.value));
  return a.value.number;
}

std::int64_t Elaborator::to_int(const Arg& a, std::string_view what) const {
  const double v = to_number(a, what);
  // 2^53: beyond it doubles skip integers, and far beyond every size the IR accepts anyway.
  if (!std::isfinite(v) || std::fabs(v) > 9007199254740992.0)
    fail(*a.at, diag::kNetValue, "expected an integer for " + std::string(what) + ", got an absurd value (" + format_number(v) + ")");
  if (v != std::trunc(v))
    fail(*a.at, diag::kNetType, "expected an integer for " + std::string(what) + ", got " + format_number(v) +
                                    " (use int(), floor(), ceil(), round() or make_divisible())");
  return static_cast<std::int64_t>(v);
}

bool Elaborator::to_bool(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Bool)
    fail(*a.at, diag::kNetType, "expected true or false for " + std::string(what) + ", got " + describe(a.value));
  return a.value.boolean;
}

ir::LayerId Elaborator::to_tensor(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Tensor)
    fail(*a.at, diag::kNetType, "expected a tensor for " + std::string(what) + ", got " + describe(a.value));
  return a.value.tensor;
}

ir::LayerId Elaborator::make_layer(ir::Op op, ir::Attrs attrs, std::vector<ir::LayerId> inputs, std::string name,
                                   const Tagged& at) {
  if (!builder_) fail(at, diag::kNetStructure, "no tensor exists before the network's 'input'");
  if (++layers_ > kMaxLayers)
    fail(at, diag::kNetLimit, "the network has more than " + std::to_string(kMaxLayers) + " layers; expected at most " +
                                  std::to_string(kMaxLayers));
  // Formatted once per construct, not per layer: a block called 80 times makes its layers from the
  // same few constructs.
  auto [it, fresh] = origins_.try_emplace(&at);
  if (fresh) it->second = sources_.origin(at);
  if (builder_->origin() != it->second) builder_->set_origin(it->second);
  try {
    return builder_->layer(op, std::move(attrs), std::move(inputs), std::move(name));
  } catch (const std::exception& e) {   // BuildError, ir::ShapeError
    fail(at, diag::kNetShape, e.what());
  }
}

std::optional<Value> Elaborator::call_op(std::string_view name, const ast::Call& c, std::vector<Arg> args,
                                         const std::string& label) {
  const Tagged& at = c.callee;
  if (name == "split") return call_split(c, std::move(args), label);
  const auto op = ir::find_op(name);
  if (!op) return std::nullopt;
  const ir::OpSpec& spec = ir::spec(*op);
  const Bound b = bind(name, binding_params(*op), is_variadic(spec), std::move(args), at);

  std::vector<ir::LayerId> inputs;
  ir::Attrs given;
  given.reserve(spec.params.size());
  for (const ir::ParamSpec& p : spec.params) {
    if (p.kind == ir::ParamKind::Tensors) {
      // Tensors, or lists/tuples of them (so `concat(split(x, 2))` works).
      // The message is built only for a value that is not a tensor (to_tensor() then fails).
      const auto input = [&](const Arg& a) {
        return a.value.kind == Value::Kind::Tensor ? a.value.tensor : to_tensor(a, "an input of '" + std::string(name) + "'");
      };
      for (const auto& r : b.rest) {
        if (r.value.kind == Value::Kind::List || r.value.kind == Value::Kind::Tuple) {
          for (const auto& item : r.value.items) inputs.push_back(input(Arg{{}, item, r.at}));
        } else {
          inputs.push_back(input(r));
        }
      }
      if (inputs.empty()) fail(at, diag::kNetArgument, "'" + std::string(name) + "' needs at least one tensor; expected " + std::string(name) + "(a, b, ...)");
      continue;
    }
    const Arg& arg = b[p.name];
    const Value& v = arg.value;
    if (v.kind == Value::Kind::None) continue;   // left to the spec's default
    // The common well-typed cases first, without building the message the checks below would need.
    if (v.kind == Value::Kind::Tensor && (p.kind == ir::ParamKind::Tensor || p.kind == ir::ParamKind::TensorOrNumber)) {
      inputs.push_back(v.tensor);
      continue;
    }
    if (v.kind == Value::Kind::Number && (p.kind == ir::ParamKind::Real || p.kind == ir::ParamKind::TensorOrNumber)) {
      given.set(p.name, v.number);
      continue;
    }
    if (v.kind == Value::Kind::Number && p.kind == ir::ParamKind::Int && std::fabs(v.number) <= 9007199254740992.0 &&
        v.number == std::trunc(v.number)) {
      given.set(p.name, static_cast<std::int64_t>(v.number));
      continue;
    }
    if (v.kind == Value::Kind::Bool && p.kind == ir::ParamKind::Bool) {
      given.set(p.name, v.boolean);
      continue;
    }
    if (p.kind == ir::ParamKind::Spatial || p.kind == ir::ParamKind::Ints)
      if (auto ints = exact_ints(v)) {   // to_ints' result, without its messages (one per item)
        given.set(p.name, std::move(*ints));
        continue;
      }
    const std::string what = argument(p.name, name);
    switch (p.kind) {
      case ir::ParamKind::Tensor: inputs.push_back(to_tensor(arg, what)); break;
      case ir::ParamKind::TensorOrNumber:
        if (arg.value.kind == Value::Kind::Tensor) inputs.push_back(arg.value.tensor);
        else given.set(p.name, to_number(arg, what + " (a tensor or a number)"));
        break;
      case ir::ParamKind::Int: given.set(p.name, to_int(arg, what)); break;
      case ir::ParamKind::Real: given.set(p.name, to_number(arg, what)); break;
      case ir::ParamKind::Bool: given.set(p.name, to_bool(arg, what)); break;
      case ir::ParamKind::Spatial:
      case ir::ParamKind::Ints: given.set(p.name, to_ints(arg, what, p.kind == ir::ParamKind::Ints)); break;
      case ir::ParamKind::Word:
        if (arg.value.kind != Value::Kind::Text)
          fail(*arg.at, diag::kNetType, "expected a word in quotes for " + what + ", got " + describe(arg.value));
        given.set(p.name, arg.value.word());
        break;
      case ir::ParamKind::Weights: given.set(p.name, static_cast<std::int64_t>(to_tensor(arg, what))); break;
      case ir::ParamKind::Tensors: break;
    }
  }
  return Value::of_tensor(make_layer(*op, std::move(given), std::move(inputs), label, at));
}

// An integer, or a list of integers: a spatial argument (kernel 3 or [3, 1]) or a list argument
// (a permutation, a shape). A list argument given one integer is a list of one.
ir::AttrValue Elaborator::to_ints(const Arg& a, const std::string& what, bool list) const {
  if (a.value.kind == Value::Kind::List) {
    std::vector<std::int64_t> v;
    v.reserve(a.value.items.size());
    for (const auto& item : a.value.items) v.push_back(to_int(Arg{{}, item, a.at}, "an item of " + what));
    return v;
  }
  if (a.value.kind != Value::Kind::Number)
    fail(*a.at, diag::kNetType, "expected " + std::string(list ? "a list of integers" : "an integer or a list of integers") + " for " + what +
                                    ", got " + describe(a.value));
  return to_int(a, what);
}

Value Elaborator::call_split(const ast::Call& c, std::vector<Arg> args, const std::string& label) {
  const Tagged& at = c.callee;
  const Bound b = bind("split", split_signature(), false, std::move(args), at);
  const ir::LayerId x = to_tensor(b["x"], "'x' of 'split'");
  const ir::Shape& s = shape(x);
  const std::int64_t rank = static_cast<std::int64_t>(s.size());
  std::int64_t axis = to_int(b["axis"], "'axis' of 'split'");
  if (axis < -rank || axis >= rank)
    fail(*b["axis"].at, diag::kNetValue, "axis " + std::to_string(axis) + " is out of range for " + ir::to_string(s));
  if (axis < 0) axis += rank;
  const std::int64_t n = s[static_cast<std::size_t>(axis)];
  std::vector<std::int64_t> sizes;
  const Arg& chunks = b["chunks"];
  if (chunks.value.kind == Value::Kind::List) {
    std::int64_t total = 0;
    for (const auto& v : chunks.value.items) {
      sizes.push_back(to_int(Arg{{}, v, chunks.at}, "a size of 'split'"));
      if (sizes.back() < 1) fail(*chunks.at, diag::kNetValue, "split sizes must be positive");
      total += sizes.back();
      if (total > n) break;
    }
    if (total != n)
      fail(*chunks.at, diag::kNetValue, "split sizes add up to " + std::string(total > n ? "more than " : "") + std::to_string(total) +
                                            ", but axis " + std::to_string(axis) + " of " + ir::to_string(s) + " has " + std::to_string(n));
  } else {
    // torch.chunk: pieces of ceil(n / chunks), the last one smaller (and fewer pieces if need be).
    const std::int64_t k = to_int(chunks, "'chunks' of 'split'");
    if (k < 1 || k > n) fail(*chunks.at, diag::kNetValue, "cannot split " + std::to_string(n) + " into " + std::to_string(k) + " chunks");
    const std::int64_t piece = (n + k - 1) / k;
    for (std::int64_t start = 0; start < n; start += piece) sizes.push_back(std::min(piece, n - start));
  }
  const ir::Op slice = ir::op("slice");
  std::vector<Value> pieces;
  std::int64_t start = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ir::Attrs sa{{"start", start}, {"size", sizes[i]}, {"axis", axis}};
    start += sizes[i];
    // `split(...) as s` names the pieces s.0, s.1, ...
    const std::string piece_name = label.empty() ? std::string() : label + "." + std::to_string(i);
    pieces.push_back(Value::of_tensor(make_layer(slice, std::move(sa), {x}, piece_name, at)));
  }
  return Value::of_tuple(std::move(pieces));
}

std::optional<Value> Elaborator::call_builtin(std::string_view name, const ast::Call& c, std::vector<Arg> args) {
  if (!is_builtin_name(name)) return std::nullopt;
  const Tagged& at = c.callee;
  const std::string n(name);
  if (name == "min" || name == "max") {
    const Bound b = bind(name, {}, true, std::move(args), at);
    if (b.rest.empty()) fail(at, diag::kNetArgument, "'" + n + "' needs at least one number; expected " + n + "(a, b, ...)");
    double v = to_number(b.rest.front(), "an argument of '" + n + "'");
    for (const auto& r : b.rest) {
      const double x = to_number(r, "an argument of '" + n + "'");
      v = name == "min" ? std::min(v, x) : std::max(v, x);
    }
    return Value::of_number(v);
  }
  if (name == "abs" || name == "int" || name == "floor" || name == "ceil" || name == "round") {
    const Bound b = bind(name, {{"a", true}}, false, std::move(args), at);
    const double v = to_number(b["a"], "the argument of '" + n + "'");
    if (name == "abs") return Value::of_number(std::fabs(v));
    if (name == "int") return Value::of_number(std::trunc(v));
    if (name == "floor") return Value::of_number(std::floor(v));
    if (name == "ceil") return Value::of_number(std::ceil(v));
    return Value::of_number(std::nearbyint(v));   // ties to even, as Python's round()
  }
  if (name == "make_divisible") {
    const Bound b = bind(name, {{"v", true}, {"divisor", true}, {"min_value", false}}, false, std::move(args), at);
    const double v = to_number(b["v"], "'v' of 'make_divisible'");
    const std::int64_t divisor = to_int(b["divisor"], "'divisor' of 'make_divisible'");
    if (divisor < 1) fail(*b["divisor"].at, diag::kNetValue, "'divisor' of 'make_divisible' must be at least 1");
    const double min_value = b["min_value"].value.kind == Value::Kind::None
                                 ? static_cast<double>(divisor)
                                 : to_number(b["min_value"], "'min_value' of 'make_divisible'");
    // torchvision's _make_divisible:
    //   new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    //   if new_v < 0.9 * v: new_v += divisor
    const double d = static_cast<double>(divisor);
    double new_v = std::max(min_value, std::floor(std::trunc(v + d / 2.0) / d) * d);
    if (new_v < 0.9 * v) new_v += d;
    return Value::of_number(new_v);
  }
  if (name == "channels" || name == "height" || name == "width") {
    const Bound b = bind(name, {{"t", true}}, false, std::move(args), at);
    const ir::Shape& s = shape(to_tensor(b["t"], "the argument of '" + n + "'"));
    const std::size_t axis = name == "channels" ? 0 : name == "height" ? 1 : 2;
    if (axis >= s.size())
      fail(*b["t"].at, diag::kNetShape, "'" + n + "' needs a tensor with at least " + std::to_string(axis + 1) + " dimensions, got " +
                                            ir::to_string(s));
    return Value::of_number(static_cast<double>(s[axis]));
  }
  if (name == "dim") {
    const Bound b = bind(name, {{"t", true}, {"axis", true}}, false, std::move(args), at);
    const ir::Shape& s = shape(to_tensor(b["t"], "'t' of 'dim'"));
    const auto rank = static_cast<std::int64_t>(s.size());
    std::int64_t axis = to_int(b["axis"], "'axis' of 'dim'");
    if (axis < -rank || axis >= rank)
      fail(*b["axis"].at, diag::kNetValue, "axis " + std::to_string(axis) + " is out of range for " + ir::to_string(s));
    if (axis < 0) axis += rank;
    return Value::of_number(static_cast<double>(s[static_cast<std::size_t>(axis)]));
  }
  // len
  const Bound b = bind(name, {{"l", true}}, false, std::move(args), at);
  const Arg& l = b["l"];
  if (l.value.kind != Value::Kind::List && l.value.kind != Value::Kind::Tuple)
    fail(*l.at, diag::kNetType, "expected a list or tuple for 'len', got " + describe(l.value));
  return Value::of_number(static_cast<double>(l.value.items.size()));
}

}  // namespace ridge::lang::net
