// Ops and built-in functions: argument binding, conversions, and the IR layers each op makes.
#include "net/elaborator.hpp"

#include "ir/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ridge::lang::net {
namespace {

const std::vector<std::string_view> kBuiltins = {"min", "max",   "abs",      "int",   "floor",  "ceil", "round",
                                                 "make_divisible", "channels", "height", "width", "dim",  "len"};

Value num(double v) { return Value::of_number(v); }
Value boolean(bool v) { return Value::of_bool(v); }

// Signatures of the ops (LANGUAGE.md's table), tensors first. Kind::None marks a default that
// depends on another argument.
const std::map<std::string_view, std::vector<ParamSpec>, std::less<>>& op_signatures() {
  static const std::map<std::string_view, std::vector<ParamSpec>, std::less<>> table = [] {
    std::map<std::string_view, std::vector<ParamSpec>, std::less<>> t;
    t["conv"] = {{"x", true}, {"out", true}, {"kernel", true}, {"stride", false, num(1)}, {"pad", false, num(0)},
                 {"dilation", false, num(1)}, {"groups", false, num(1)}, {"bias", false, boolean(true)}};
    t["linear"] = {{"x", true}, {"out", true}, {"bias", false, boolean(true)}};
    t["matmul"] = {{"a", true}, {"b", true}};
    t["batchnorm"] = {{"x", true}, {"eps", false, num(1e-5)}};
    t["layernorm"] = {{"x", true}, {"eps", false, num(1e-5)}};
    for (auto a : {"relu", "relu6", "silu", "sigmoid", "hardswish", "hardsigmoid", "gelu", "tanh"}) t[a] = {{"x", true}};
    t["maxpool"] = {{"x", true}, {"kernel", true}, {"stride", false}, {"pad", false, num(0)},
                    {"dilation", false, num(1)}, {"ceil", false, boolean(false)}};
    t["avgpool"] = {{"x", true}, {"kernel", true}, {"stride", false}, {"pad", false, num(0)},
                    {"ceil", false, boolean(false)}, {"count_include_pad", false, boolean(true)}};
    t["adaptive_avgpool"] = {{"x", true}, {"size", true}};
    t["adaptive_maxpool"] = {{"x", true}, {"size", true}};
    t["dropout"] = {{"x", true}, {"p", false, num(0.5)}};
    t["flatten"] = {{"x", true}, {"axis", false, num(0)}};
    t["reshape"] = {{"x", true}, {"shape", true}};
    t["concat"] = {{"axis", false, num(0)}};   // variadic tensors
    t["add"] = {{"a", true}, {"b", true}};
    t["mul"] = {{"a", true}, {"b", true}};
    t["softmax"] = {{"x", true}, {"axis", false, num(-1)}};
    t["split"] = {{"x", true}, {"chunks", true}, {"axis", false, num(0)}};
    t["slice"] = {{"x", true}, {"start", true}, {"size", true}, {"axis", false, num(0)}};
    t["channel_shuffle"] = {{"x", true}, {"groups", true}};
    return t;
  }();
  return table;
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

std::string signature(std::string_view name, const std::vector<ParamSpec>& params, bool variadic) {
  std::string s = std::string(name) + "(" + (variadic ? "x, ..." : "");
  for (const auto& p : params) {
    if (s.back() != '(') s += ", ";
    s += std::string(p.name) + (p.required ? "" : ": ...");
  }
  return s + ")";
}

}  // namespace

bool is_op_name(std::string_view name) { return op_signatures().count(name) > 0; }
bool is_builtin_name(std::string_view name) {
  return std::find(kBuiltins.begin(), kBuiltins.end(), name) != kBuiltins.end();
}
const std::vector<std::string_view>& callable_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n(kBuiltins);
    for (const auto& [k, v] : op_signatures()) n.push_back(k);
    return n;
  }();
  return names;
}

Bound Elaborator::bind(std::string_view callee, const std::vector<ParamSpec>& params, bool variadic,
                       std::vector<Arg> args, const Tagged& at) const {
  Bound b;
  std::size_t positional = 0;
  for (auto& a : args) {
    if (a.keyword) {
      const auto p = std::find_if(params.begin(), params.end(), [&](const ParamSpec& q) { return q.name == *a.keyword; });
      if (p == params.end())
        fail(*a.at, "'" + std::string(callee) + "' has no argument '" + *a.keyword + "'; expected " +
                        signature(callee, params, variadic));
      if (b.args.count(*a.keyword))
        fail(*a.at, "argument '" + *a.keyword + "' of '" + std::string(callee) + "' is given twice");
      b.args.emplace(*a.keyword, std::move(a));
      continue;
    }
    if (variadic) {
      b.rest.push_back(std::move(a));
      continue;
    }
    if (positional >= params.size())
      fail(*a.at, "'" + std::string(callee) + "' takes at most " + std::to_string(params.size()) +
                      " argument(s), got more; expected " + signature(callee, params, variadic));
    const std::string name(params[positional++].name);
    if (b.args.count(name)) fail(*a.at, "argument '" + name + "' of '" + std::string(callee) + "' is given twice");
    b.args.emplace(name, std::move(a));
  }
  for (const auto& p : params) {
    if (b.args.count(p.name)) continue;
    if (p.required)
      fail(at, "'" + std::string(callee) + "' needs argument '" + std::string(p.name) + "'; expected " +
                   signature(callee, params, variadic));
    b.args.emplace(std::string(p.name), Arg{{}, p.fallback, &at});
  }
  return b;
}

double Elaborator::to_number(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Number)
    fail(*a.at, "expected a number for " + std::string(what) + ", got " + describe(a.value));
  return a.value.number;
}

std::int64_t Elaborator::to_int(const Arg& a, std::string_view what) const {
  const double v = to_number(a, what);
  // 2^53: beyond it doubles skip integers, and far beyond every size the IR accepts anyway.
  if (!std::isfinite(v) || std::fabs(v) > 9007199254740992.0)
    fail(*a.at, "expected an integer for " + std::string(what) + ", got an absurd value (" + format_number(v) + ")");
  if (v != std::trunc(v))
    fail(*a.at, "expected an integer for " + std::string(what) + ", got " + format_number(v) +
                    " (use int(), floor(), ceil(), round() or make_divisible())");
  return static_cast<std::int64_t>(v);
}

bool Elaborator::to_bool(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Bool)
    fail(*a.at, "expected true or false for " + std::string(what) + ", got " + describe(a.value));
  return a.value.boolean;
}

ir::LayerId Elaborator::to_tensor(const Arg& a, std::string_view what) const {
  if (a.value.kind != Value::Kind::Tensor)
    fail(*a.at, "expected a tensor for " + std::string(what) + ", got " + describe(a.value));
  return a.value.tensor;
}

ir::Pair Elaborator::to_pair(const Arg& a, std::string_view what) const {
  if (a.value.kind == Value::Kind::List) {
    if (a.value.items.size() != 2)
      fail(*a.at, "expected an integer or [h, w] for " + std::string(what) + ", got a list of " +
                      std::to_string(a.value.items.size()));
    return {to_int(Arg{{}, a.value.items[0], a.at}, what), to_int(Arg{{}, a.value.items[1], a.at}, what)};
  }
  const std::int64_t v = to_int(a, what);
  return {v, v};
}

ir::LayerId Elaborator::make_layer(ir::Op op, ir::Attrs attrs, std::vector<ir::LayerId> inputs, std::string name,
                                   const Tagged& at) {
  if (!builder_) fail(at, "no tensor exists before the network's 'input'");
  if (++layers_ > kMaxLayers)
    fail(at, "the network has more than " + std::to_string(kMaxLayers) + " layers; expected at most " +
                 std::to_string(kMaxLayers));
  builder_->set_origin(source_.origin(offset(at)));
  try {
    return builder_->layer(op, std::move(attrs), std::move(inputs), std::move(name));
  } catch (const std::exception& e) {   // BuildError, ir::ShapeError
    fail(at, e.what());
  }
}

std::optional<Value> Elaborator::call_op(std::string_view name, const ast::Call& c, std::vector<Arg> args,
                                         const std::string& label) {
  const auto sig = op_signatures().find(name);
  if (sig == op_signatures().end()) return std::nullopt;
  const bool variadic = name == "concat";
  const Tagged& at = c.callee;
  const Bound b = bind(name, sig->second, variadic, std::move(args), at);
  const auto tensor = [&](std::string_view p) { return to_tensor(b[p], argument(p, name)); };
  const auto integer = [&](std::string_view p) { return to_int(b[p], argument(p, name)); };
  const auto pair = [&](std::string_view p) { return to_pair(b[p], argument(p, name)); };
  const auto flag = [&](std::string_view p) { return to_bool(b[p], argument(p, name)); };
  const auto real = [&](std::string_view p) { return to_number(b[p], argument(p, name)); };
  const auto layer = [&](ir::Op op, ir::Attrs a, std::vector<ir::LayerId> in) {
    return Value::of_tensor(make_layer(op, std::move(a), std::move(in), label, at));
  };

  ir::Attrs a;
  if (name == "conv") {
    a.out = integer("out");
    a.kernel = pair("kernel");
    a.stride = pair("stride");
    a.padding = pair("pad");
    a.dilation = pair("dilation");
    a.groups = integer("groups");
    a.bias = flag("bias");
    return layer(ir::Op::Conv, a, {tensor("x")});
  }
  if (name == "linear") {
    a.out = integer("out");
    a.bias = flag("bias");
    return layer(ir::Op::Linear, a, {tensor("x")});
  }
  if (name == "matmul" || name == "add" || name == "mul") {
    const ir::Op op = name == "matmul" ? ir::Op::MatMul : name == "add" ? ir::Op::Add : ir::Op::Mul;
    return layer(op, a, {tensor("a"), tensor("b")});
  }
  if (name == "batchnorm" || name == "layernorm") {
    a.eps = real("eps");
    return layer(name == "batchnorm" ? ir::Op::BatchNorm : ir::Op::LayerNorm, a, {tensor("x")});
  }
  if (name == "maxpool" || name == "avgpool") {
    a.kernel = pair("kernel");
    a.stride = b["stride"].value.kind == Value::Kind::None ? a.kernel : pair("stride");
    a.padding = pair("pad");
    a.ceil_mode = flag("ceil");
    if (name == "maxpool") {
      a.dilation = pair("dilation");
      return layer(ir::Op::MaxPool, a, {tensor("x")});
    }
    a.count_include_pad = flag("count_include_pad");
    return layer(ir::Op::AvgPool, a, {tensor("x")});
  }
  if (name == "adaptive_avgpool" || name == "adaptive_maxpool") {
    a.output_size = pair("size");
    return layer(name == "adaptive_avgpool" ? ir::Op::AdaptiveAvgPool : ir::Op::AdaptiveMaxPool, a, {tensor("x")});
  }
  if (name == "dropout") {
    a.p = real("p");
    return layer(ir::Op::Dropout, a, {tensor("x")});
  }
  if (name == "flatten" || name == "softmax") {
    a.axis = integer("axis");
    return layer(name == "flatten" ? ir::Op::Flatten : ir::Op::Softmax, a, {tensor("x")});
  }
  if (name == "reshape") {
    const Arg& s = b["shape"];
    if (s.value.kind != Value::Kind::List) fail(*s.at, "expected a list of sizes for 'shape' of 'reshape', got " + describe(s.value));
    for (const auto& d : s.value.items) a.shape.push_back(to_int(Arg{{}, d, s.at}, "a dimension of 'reshape'"));
    return layer(ir::Op::Reshape, a, {tensor("x")});
  }
  if (name == "concat") {
    // Tensors, or lists/tuples of them (so `concat(split(x, 2))` works).
    std::vector<ir::LayerId> in;
    for (const auto& r : b.rest) {
      if (r.value.kind == Value::Kind::List || r.value.kind == Value::Kind::Tuple) {
        for (const auto& item : r.value.items) in.push_back(to_tensor(Arg{{}, item, r.at}, "an input of 'concat'"));
      } else {
        in.push_back(to_tensor(r, "an input of 'concat'"));
      }
    }
    if (in.empty()) fail(at, "'concat' needs at least one tensor; expected concat(a, b, ..., axis: 0)");
    a.axis = integer("axis");
    return layer(ir::Op::Concat, a, std::move(in));
  }
  if (name == "slice") {
    a.start = integer("start");
    a.size = integer("size");
    a.axis = integer("axis");
    return layer(ir::Op::Slice, a, {tensor("x")});
  }
  if (name == "channel_shuffle") {
    a.groups = integer("groups");
    return layer(ir::Op::ChannelShuffle, a, {tensor("x")});
  }
  if (name == "split") {
    const ir::LayerId x = tensor("x");
    const ir::Shape& s = shape(x);
    const std::int64_t rank = static_cast<std::int64_t>(s.size());
    std::int64_t axis = integer("axis");
    if (axis < -rank || axis >= rank)
      fail(*b["axis"].at, "axis " + std::to_string(axis) + " is out of range for " + ir::to_string(s));
    if (axis < 0) axis += rank;
    const std::int64_t n = s[static_cast<std::size_t>(axis)];
    std::vector<std::int64_t> sizes;
    const Arg& chunks = b["chunks"];
    if (chunks.value.kind == Value::Kind::List) {
      std::int64_t total = 0;
      for (const auto& v : chunks.value.items) {
        sizes.push_back(to_int(Arg{{}, v, chunks.at}, "a size of 'split'"));
        if (sizes.back() < 1) fail(*chunks.at, "split sizes must be positive");
        total += sizes.back();
      }
      if (total != n)
        fail(*chunks.at, "split sizes add up to " + std::to_string(total) + ", but axis " + std::to_string(axis) +
                             " of " + ir::to_string(s) + " has " + std::to_string(n));
    } else {
      // torch.chunk: pieces of ceil(n / chunks), the last one smaller (and fewer pieces if need be).
      const std::int64_t k = to_int(chunks, "'chunks' of 'split'");
      if (k < 1 || k > n) fail(*chunks.at, "cannot split " + std::to_string(n) + " into " + std::to_string(k) + " chunks");
      const std::int64_t piece = (n + k - 1) / k;
      for (std::int64_t start = 0; start < n; start += piece) sizes.push_back(std::min(piece, n - start));
    }
    std::vector<Value> pieces;
    std::int64_t start = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      ir::Attrs sa;
      sa.axis = axis;
      sa.start = start;
      sa.size = sizes[i];
      start += sizes[i];
      // `split(...) as s` names the pieces s.0, s.1, ...
      const std::string piece_name = label.empty() ? std::string() : label + "." + std::to_string(i);
      pieces.push_back(Value::of_tensor(make_layer(ir::Op::Slice, sa, {x}, piece_name, at)));
    }
    return Value::of_tuple(std::move(pieces));
  }
  // The activations: one tensor in, same shape out.
  const auto op = ir::op_from_name(name);
  return layer(*op, a, {tensor("x")});
}

std::optional<Value> Elaborator::call_builtin(std::string_view name, const ast::Call& c, std::vector<Arg> args) {
  if (!is_builtin_name(name)) return std::nullopt;
  const Tagged& at = c.callee;
  const std::string n(name);
  if (name == "min" || name == "max") {
    const Bound b = bind(name, {}, true, std::move(args), at);
    if (b.rest.empty()) fail(at, "'" + n + "' needs at least one number; expected " + n + "(a, b, ...)");
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
    if (divisor < 1) fail(*b["divisor"].at, "'divisor' of 'make_divisible' must be at least 1");
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
      fail(*b["t"].at, "'" + n + "' needs a tensor with at least " + std::to_string(axis + 1) + " dimensions, got " +
                           ir::to_string(s));
    return Value::of_number(static_cast<double>(s[axis]));
  }
  if (name == "dim") {
    const Bound b = bind(name, {{"t", true}, {"axis", true}}, false, std::move(args), at);
    const ir::Shape& s = shape(to_tensor(b["t"], "'t' of 'dim'"));
    const auto rank = static_cast<std::int64_t>(s.size());
    std::int64_t axis = to_int(b["axis"], "'axis' of 'dim'");
    if (axis < -rank || axis >= rank)
      fail(*b["axis"].at, "axis " + std::to_string(axis) + " is out of range for " + ir::to_string(s));
    if (axis < 0) axis += rank;
    return Value::of_number(static_cast<double>(s[static_cast<std::size_t>(axis)]));
  }
  // len
  const Bound b = bind(name, {{"l", true}}, false, std::move(args), at);
  const Arg& l = b["l"];
  if (l.value.kind != Value::Kind::List && l.value.kind != Value::Kind::Tuple)
    fail(*l.at, "expected a list or tuple for 'len', got " + describe(l.value));
  return Value::of_number(static_cast<double>(l.value.items.size()));
}

}  // namespace ridge::lang::net
