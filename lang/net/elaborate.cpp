// Statements, expressions and block instances. Ops and built-ins are in calls.cpp.
#include "lang/net/elaborator.hpp"

#include "lang/ir/ops.hpp"
#include "lang/suggest.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <tuple>

namespace ridge::lang::net {
namespace {

// Depth guard for the elaborator's own recursion.
class DepthGuard {
 public:
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int& depth_;
};

// The grammar's binary operators, told apart by their first two characters: comparing the operator's
// text with each spelling, and building the messages below before they were needed, took a third of
// the time of a file that computes a square root in a loop (swin_t).
enum class BinOp { Or, And, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul, Div, FloorDiv, Mod };

BinOp classify(const std::string& op) {
  const char second = op.size() > 1 ? op[1] : '\0';
  switch (op.front()) {
    case '|': return BinOp::Or;
    case '&': return BinOp::And;
    case '=': return BinOp::Eq;
    case '!': return BinOp::Ne;
    case '<': return second == '=' ? BinOp::Le : BinOp::Lt;
    case '>': return second == '=' ? BinOp::Ge : BinOp::Gt;
    case '+': return BinOp::Add;
    case '-': return BinOp::Sub;
    case '*': return BinOp::Mul;
    case '/': return second == '/' ? BinOp::FloorDiv : BinOp::Div;
    default: return BinOp::Mod;   // %
  }
}

int precedence(const std::string& op) {
  switch (classify(op)) {
    case BinOp::Or: return 1;
    case BinOp::And: return 2;
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge: return 3;
    case BinOp::Add:
    case BinOp::Sub: return 4;
    default: return 5;   // * / // %
  }
}

// " (did you mean 'conv'?)" when a known name is close (lang/suggest.hpp says how close).
std::string suggestion(std::string_view name, const std::vector<std::string>& known) {
  const std::string best = closest_name(name, known);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace

Elaborator::Elaborator(const Sources& sources, const Overrides& overrides) : sources_(sources) {
  check_definitions();
  // File-level constants before the network's parameters (whose defaults may use them): each file's in
  // its order, an imported file's before those of the file importing it.
  in_constants_ = true;
  for (const std::size_t k : sources_.dependency_order())
    for (const auto& item : sources_.files()[k].tree.items)
      if (const auto* c = boost::get<ast::Assign>(&item)) bind_constant(*c);
  in_constants_ = false;
  bind_parameters(overrides);
}

// Each definition's name and parameters stand on their own, so every mistake among them is reported
// at once; nothing is evaluated until they are right. The blocks of every file share one namespace.
void Elaborator::check_definitions() {
  std::vector<const ast::Definition*> definitions;
  for (const auto& f : sources_.files())
    for (const auto& item : f.tree.items)
      if (const auto* d = boost::get<ast::Definition>(&item)) definitions.push_back(d);
  for (const auto* dp : definitions) {
    const ast::Definition& d = *dp;
    if (d.kind == "network") continue;   // resolve_network's
    if (is_op_name(d.name.name) || is_builtin_name(d.name.name)) {
      report(d.name, diag::kNetDefinition, "block '" + d.name.name + "' has the name of a built-in op or function; choose another name");
    } else if (const auto [it, fresh] = blocks_.emplace(d.name.name, &d); !fresh) {
      const bool same_file = sources_.file_of(*it->second) == sources_.file_of(d);
      report(d.name, diag::kNetDefinition, "block '" + d.name.name + "' is defined twice" +
                                               (same_file ? std::string() : " (first at " + sources_.origin(it->second->name) + ")"));
    }
  }
  // Parameters: unique names, required ones first; one error per parameter.
  for (const auto* dp : definitions) {
    const ast::Definition& d = *dp;
    if (!d.params) continue;
    std::set<std::string> seen;
    bool defaulted = false;
    for (const auto& p : *d.params) {
      const bool twice = !seen.insert(p.name.name).second;
      if (twice) report(p.name, diag::kNetDefinition, "parameter '" + p.name.name + "' is declared twice");
      if (p.default_value) defaulted = true;
      else if (twice) continue;
      else if (d.kind == "network")
        report(p.name, diag::kNetDefinition, "network parameter '" + p.name.name + "' needs a default value (" + p.name.name + " = ...)");
      else if (defaulted)
        report(p.name, diag::kNetDefinition, "parameter '" + p.name.name + "' has no default but follows one that has; expected parameters "
                                             "without defaults first");
    }
  }
  auto resolved = resolve_network(sources_, [&](const Tagged* at, std::string_view id, std::string message) {
    if (at) report(*at, id, std::move(message));
    else report_at_start(id, std::move(message));
  });
  stop_if_reported();
  resolved_ = std::move(*resolved);
  network_ = resolved_.body;
  network_name_ = resolved_.name;
}

namespace {
// Numbers, booleans, words and lists of them: what a file-level constant may hold.
bool is_plain_data(const Value& v) {
  if (v.kind == Value::Kind::Number || v.kind == Value::Kind::Bool || v.kind == Value::Kind::Text) return true;
  // Flagged when the list was made: walking shared nested lists would visit 100^4 items for four
  // nested 100-item lists.
  return v.kind == Value::Kind::List && v.items.plain_data();
}
}  // namespace

void Elaborator::bind_constant(const ast::Assign& c) {
  step(c);
  for (const auto& t : c.targets) {
    if (constants_.count(t.name)) fail(t, diag::kNetDefinition, "file-level constant '" + t.name + "' is defined twice");
    if (is_callable(t.name))
      fail(t, diag::kNetDefinition, "file-level constant '" + t.name + "' has the name of an op, block or function; choose another name");
  }
  Scope none;
  Value v = eval(c.value, none);
  if (!is_plain_data(v))
    fail(c.value, diag::kNetType, "a file-level constant holds a number, a boolean or a list of them, got " + describe(v));
  assign(c, std::move(v), globals_);
  for (const auto& t : c.targets) constants_.insert(t.name);
}

void Elaborator::assign(const ast::Assign& s, Value v, Scope& scope) {
  if (s.targets.size() == 1) {
    scope[s.targets.front().name] = std::move(v);
    return;
  }
  if (v.kind != Value::Kind::Tuple && v.kind != Value::Kind::List)
    fail(s.targets.front(), diag::kNetType, "cannot unpack " + describe(v) + " into " + std::to_string(s.targets.size()) +
                                                " names; expected a tuple (what split returns)");
  if (v.items.size() != s.targets.size())
    fail(s.targets.front(), diag::kNetType, "cannot unpack " + describe(v) + " into " + std::to_string(s.targets.size()) +
                                                " names; expected as many names as values");
  for (std::size_t i = 0; i < s.targets.size(); ++i) scope[s.targets[i].name] = v.items[i];
}

Value Elaborator::index(const Value& v, const Value& i, const Tagged& base, const ast::Expr& at) const {
  if (v.kind != Value::Kind::List && v.kind != Value::Kind::Tuple)
    fail(base, diag::kNetType, "cannot index " + describe(v) + "; expected a list or a tuple before '['");
  const std::int64_t k = to_int(Arg{{}, i, &at}, "an index");
  const auto n = static_cast<std::int64_t>(v.items.size());
  if (k < -n || k >= n) {
    std::string message = "index " + std::to_string(k) + " is out of range for ";
    message.append(v.kind == Value::Kind::List ? "a list" : "a tuple");
    if (n == 0) message.append(" with no values");
    else message.append(" of ").append(std::to_string(n)).append(n == 1 ? " value" : " values")
                .append("; expected ").append(std::to_string(-n)).append(" .. ").append(std::to_string(n - 1));
    fail(at, diag::kNetValue, std::move(message));
  }
  return v.items[static_cast<std::size_t>(k < 0 ? k + n : k)];
}

void Elaborator::fail(const Tagged& at, std::string_view id, std::string message) const {
  Diagnostic d = sources_.diagnostic(at, id, std::move(message));
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
    d.notes.push_back(sources_.note(*it->site, "block '" + it->block->name.name + "' instantiated here"));
  throw Error({std::move(d)});
}

void Elaborator::report(const Tagged& at, std::string_view id, std::string message) {
  reported_.push_back({sources_.file_of(at), sources_.offset_of(at), id, std::move(message)});
}

void Elaborator::report_at_start(std::string_view id, std::string message) { reported_.push_back({0, 0, id, std::move(message)}); }

void Elaborator::stop_if_reported() {
  if (reported_.empty()) return;
  // Checks walk definitions by kind and blocks by name; the reader wants them top to bottom, file by file.
  std::stable_sort(reported_.begin(), reported_.end(), [](const Reported& a, const Reported& b) {
    return std::tie(a.file, a.offset) < std::tie(b.file, b.offset);
  });
  std::vector<Diagnostic> shown;
  for (std::size_t i = 0; i < reported_.size() && i < kMaxErrors; ++i)
    shown.push_back(sources_.diagnostic(reported_[i].file, reported_[i].offset, reported_[i].id, std::move(reported_[i].message)));
  throw Error(limit_errors(std::move(shown), reported_.size()));
}

void Elaborator::step(const Tagged& at) {
  if (++steps_ > kMaxSteps)
    fail(at, diag::kNetLimit, "elaboration takes more than " + std::to_string(kMaxSteps) +
                                  " steps; expected a network that expands to a bounded size (do blocks call blocks many times over?)");
}

void Elaborator::charge(const Tagged& at, std::size_t steps) {
  if (steps > static_cast<std::size_t>(kMaxSteps) || static_cast<std::int64_t>(steps) > kMaxSteps - steps_) {
    steps_ = kMaxSteps;
    step(at);
  }
  steps_ += static_cast<std::int64_t>(steps);
}

void Elaborator::bind_parameters(const Overrides& overrides) {
  const ast::Definition& network = *network_;
  const std::string& name_of_network = network_name();
  std::set<std::string> known;
  if (network.params)
    for (const auto& p : *network.params) {
      known.insert(p.name.name);
      if (constants_.count(p.name.name))
        fail(p.name, diag::kNetDefinition, "network parameter '" + p.name.name + "' has the name of a file-level constant; choose another name");
      Scope none;
      globals_[p.name.name] = eval(*resolved_.default_of(p), none);   // check_definitions saw that each has one
    }
  for (const auto& [name, text] : overrides) {
    if (!known.count(name) && constants_.count(name))
      fail(*network_name_, diag::kNetOverride, "--set " + name + "=" + text + ": '" + name + "' is a file-level constant, not a parameter of "
                                               "network '" + name_of_network + "'; only network parameters can be set (make it one: network " +
                                               network.name.name + "(" + name + " = ...))");
    if (!known.count(name)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(*network_name_, diag::kNetOverride, "--set " + name + "=" + text + ": network '" + name_of_network + "' has no parameter '" +
                                                   name + "'" + (list.empty() ? std::string(" (it has none)") : " (it has: " + list + ")"));
    }
    // `wanted` rather than the structured binding: clang 14 (the fuzz build) cannot capture one.
    const std::string& wanted = name;
    const ast::Param& p = *std::find_if(network.params->begin(), network.params->end(),
                                        [&](const ast::Param& q) { return q.name.name == wanted; });
    if (text == "true" || text == "false") {
      globals_[name] = Value::of_bool(text == "true");
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) ||
        std::isspace(static_cast<unsigned char>(text.front())))
      fail(p.name, diag::kNetOverride, "--set " + name + "=" + text + ": expected a number or true/false as the value of '" + name + "'");
    globals_[name] = Value::of_number(v);
  }
}

const Value& Elaborator::lookup(const ast::Identifier& name, const Scope& scope) const {
  if (const Value* v = scope.find(name.name)) return *v;
  if (const Value* v = globals_.find(name.name)) return *v;
  std::vector<std::string> known = scope.names();
  for (std::string& k : globals_.names()) known.push_back(std::move(k));
  if (in_constants_ && network_->params &&
      std::any_of(network_->params->begin(), network_->params->end(),
                  [&](const ast::Param& p) { return p.name.name == name.name; }))
    fail(name, diag::kNetDefinition, "file-level constant uses '" + name.name + "', a parameter of network '" + network_name() +
                                         "'; expected numbers, booleans, lists and earlier constants (constants are set before the parameters)");
  if (is_callable(name.name))
    fail(name, diag::kNetType, "'" + name.name + "' is an op, block or function, not a value; expected a call such as " + name.name +
                                   "(...) or x -> " + name.name);
  fail(name, diag::kNetUnknownName, "unknown name '" + name.name + "'" + suggestion(name.name, known));
}

bool Elaborator::is_callable(std::string_view name) const {
  return blocks_.count(name) || is_op_name(name) || is_builtin_name(name);
}

std::vector<std::string> Elaborator::callable_known() const {
  std::vector<std::string> known;
  for (const auto& [name, block] : blocks_) known.push_back(name);
  for (const auto n : callable_names()) known.emplace_back(n);
  return known;
}

ir::Network Elaborator::run() {
  check_block_names();
  const ast::Definition& net = *network_;
  Scope scope;
  const bool returned = exec(net.body, scope);
  if (!builder_) fail(net.name, diag::kNetStructure, "network '" + net.name.name + "' has no 'input'; expected a statement such as "
                                                     "`input x: [3, 224, 224]`");
  if (!returned || !returned_)
    fail(net.name, diag::kNetStructure, "network '" + net.name.name + "' has no 'return'; expected `return` with its output tensor");
  if (returned_->kind != Value::Kind::Tensor)
    fail(net.name, diag::kNetStructure, "network '" + net.name.name + "' returns " + describe(*returned_) + "; expected a tensor");
  ir::Network out = builder_->finish(returned_->tensor);
  out.layers.front().origin = input_origin_;
  return out;
}

bool Elaborator::exec(const ast::Body& body, Scope& scope) {
  bool returned = false;
  for (const auto& s : body) {
    exec(s, scope, returned);
    if (returned) return true;
  }
  return false;
}

void Elaborator::exec(const ast::Statement& statement, Scope& scope, bool& returned) {
  DepthGuard guard(depth_);
  struct Visitor {
    Elaborator& e;
    Scope& scope;
    bool& returned;

    void operator()(const ast::Input& s) const {
      e.step(s);
      if (!e.stack_.empty()) e.fail(s, diag::kNetStructure, "'input' belongs in the network, not in block '" + e.stack_.back().block->name.name + "'");
      const Value v = e.eval(s.shape, scope);
      if (v.kind != Value::Kind::List || v.items.empty())
        e.fail(s.shape, diag::kNetType, "expected the input shape as a list of sizes such as [3, 224, 224], got " + describe(v));
      ir::Shape shape;
      for (const auto& item : v.items) shape.push_back(e.to_int(Arg{{}, item, &s.shape}, "an input dimension"));
      // The first input is layer 0, "input"; a further one (an encoder-decoder's second sequence) is a
      // layer named after its variable.
      if (e.builder_) {
        if (const Value* taken = scope.find(s.name.name); taken && taken->kind == Value::Kind::Tensor)
          e.fail(s.name, diag::kNetStructure, "'" + s.name.name + "' is already a value of the network; an input needs a name of its own");
        e.builder_->set_origin(e.sources_.origin(s));
        try {
          scope[s.name.name] = Value::of_tensor(e.builder_->add_input(shape, s.name.name));
        } catch (const std::exception& ex) {
          e.fail(s.shape, diag::kNetShape, ex.what());
        }
        return;
      }
      try {
        e.builder_.emplace(e.network_name(), shape);
      } catch (const std::exception& ex) {
        e.fail(s.shape, diag::kNetShape, ex.what());
      }
      e.input_origin_ = e.sources_.origin(s);
      scope[s.name.name] = Value::of_tensor(e.builder_->input());
    }
    void operator()(const ast::Assign& s) const {
      e.step(s);
      e.assign(s, e.eval(s.value, scope), scope);
    }
    void operator()(const ast::If& s) const {
      e.step(s);
      for (const auto& b : s.branches) {
        const Value c = e.eval(b.condition, scope);
        if (e.to_bool(Arg{{}, c, &b.condition}, "the condition of 'if'")) {
          returned = e.exec(b.body, scope);
          return;
        }
      }
      if (s.otherwise) returned = e.exec(*s.otherwise, scope);
    }
    void operator()(const ast::For& s) const {
      e.step(s);
      if (!s.to) {
        // for x in LIST: a copy, so the body may rebind the list's variable.
        const Value list = e.eval(s.from, scope);
        if (list.kind != Value::Kind::List && list.kind != Value::Kind::Tuple)
          e.fail(s.from, diag::kNetType, "expected a list or tuple to loop over, got " + describe(list) +
                                             " (for a range of numbers write `for " + s.var.name + " in FROM .. TO`)");
        const auto n = static_cast<std::int64_t>(list.items.size());
        if (n > kMaxLoopIterations - e.loop_iterations_)
          e.fail(s, diag::kNetLimit, "this loop would run " + std::to_string(n) + " times, past the limit of " +
                                         std::to_string(kMaxLoopIterations) + " loop iterations for all loops together (" +
                                         std::to_string(e.loop_iterations_) + " already run)");
        e.loop_iterations_ += n;
        for (const auto& item : list.items) {
          scope[s.var.name] = item;
          if (e.exec(s.body, scope)) {
            returned = true;
            return;
          }
        }
        return;
      }
      const std::int64_t from = e.to_int(Arg{{}, e.eval(s.from, scope), &s.from}, "a loop bound");
      const std::int64_t to = e.to_int(Arg{{}, e.eval(*s.to, scope), &*s.to}, "a loop bound");
      const std::int64_t n = std::max<std::int64_t>(0, to - from);
      if (n > kMaxLoopIterations - e.loop_iterations_)
        e.fail(s, diag::kNetLimit, "this loop would run " + std::to_string(n) + " times, past the limit of " +
                                       std::to_string(kMaxLoopIterations) + " loop iterations for all loops together (" +
                                       std::to_string(e.loop_iterations_) + " already run)");
      e.loop_iterations_ += n;
      for (std::int64_t i = from; i < to; ++i) {
        scope[s.var.name] = Value::of_number(static_cast<double>(i));
        if (e.exec(s.body, scope)) {
          returned = true;
          return;
        }
      }
    }
    void operator()(const ast::Return& s) const {
      e.step(s);
      e.returned_ = e.eval(s.value, scope);
      returned = true;
    }
  };
  boost::apply_visitor(Visitor{*this, scope, returned}, statement);
}

Value Elaborator::eval(const ast::Expr& e, Scope& scope) {
  DepthGuard guard(depth_);
  if (depth_ > kMaxEvalDepth)
    fail(e, diag::kNetLimit, "expressions and block calls nest more than " + std::to_string(kMaxEvalDepth) + " deep");
  Value v = eval(e.head, scope);
  for (const auto& link : e.links) v = call(link, std::move(v), scope);
  return v;
}

Value Elaborator::eval(const ast::Conditional& e, Scope& scope) {
  // c0 ? a0 : c1 ? a1 : ... : last, right-associative, evaluated without recursion.
  const ast::Binary* current = &e.head;
  for (const auto& tail : e.tails) {
    const Value c = eval(*current, scope);
    if (to_bool(Arg{{}, c, current}, "the condition of '?:'")) return eval(tail.then.get(), scope);
    current = &tail.otherwise;
  }
  return eval(*current, scope);
}

Value Elaborator::eval(const ast::Binary& e, Scope& scope) {
  // Most expressions are one operand: no operator stacks for them.
  if (e.rest.empty()) return eval(e.first, scope);
  if (e.rest.size() == 1) {   // `a + b`: no stacks either
    const Value a = eval(e.first, scope);
    const Value b = eval(e.rest.front().rhs, scope);
    return apply(e.rest.front(), a, b);
  }
  // Precedence climbing over the flat operand/operator list (left-associative within a level). The
  // operators waiting on the stack rise strictly in precedence (an equal or lower one reduces them
  // first), so it holds at most one per level: fixed arrays, not two vectors per expression.
  constexpr std::size_t kLevels = 5;
  std::array<Value, kLevels + 1> values;
  std::array<const ast::BinaryOp*, kLevels> ops{};
  std::size_t n_values = 0, n_ops = 0;
  const auto reduce = [&] {
    const ast::BinaryOp* op = ops[--n_ops];
    const Value b = std::move(values[--n_values]);
    values[n_values - 1] = apply(*op, values[n_values - 1], b);
  };
  values[n_values++] = eval(e.first, scope);
  for (const auto& op : e.rest) {
    while (n_ops > 0 && precedence(ops[n_ops - 1]->op) >= precedence(op.op)) reduce();
    ops[n_ops++] = &op;
    values[n_values++] = eval(op.rhs, scope);
  }
  while (n_ops > 0) reduce();
  return std::move(values[0]);
}

Value Elaborator::apply(const ast::BinaryOp& node, const Value& a, const Value& b) const {
  const std::string& op = node.op;
  const BinOp kind = classify(op);
  if (kind == BinOp::Or || kind == BinOp::And) {
    if (a.kind != Value::Kind::Bool) to_bool(Arg{{}, a, &node}, "the left side of '" + op + "'");
    if (b.kind != Value::Kind::Bool) to_bool(Arg{{}, b, &node.rhs}, "the right side of '" + op + "'");
    return Value::of_bool(kind == BinOp::Or ? (a.boolean || b.boolean) : (a.boolean && b.boolean));
  }
  if ((kind == BinOp::Eq || kind == BinOp::Ne) && a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool)
    return Value::of_bool((a.boolean == b.boolean) == (kind == BinOp::Eq));
  // The messages only for an operand that is not a number (to_number then fails).
  if (a.kind != Value::Kind::Number) to_number(Arg{{}, a, &node}, "the left side of '" + op + "'");
  if (b.kind != Value::Kind::Number) to_number(Arg{{}, b, &node.rhs}, "the right side of '" + op + "'");
  const double x = a.number;
  const double y = b.number;
  switch (kind) {
    case BinOp::Eq: return Value::of_bool(x == y);
    case BinOp::Ne: return Value::of_bool(x != y);
    case BinOp::Lt: return Value::of_bool(x < y);
    case BinOp::Le: return Value::of_bool(x <= y);
    case BinOp::Gt: return Value::of_bool(x > y);
    case BinOp::Ge: return Value::of_bool(x >= y);
    case BinOp::Add: return Value::of_number(x + y);
    case BinOp::Sub: return Value::of_number(x - y);
    case BinOp::Mul: return Value::of_number(x * y);
    default: break;
  }
  if (y == 0.0) fail(node, diag::kNetValue, "division by zero in '" + op + "'");
  if (kind == BinOp::Div) return Value::of_number(x / y);
  if (kind == BinOp::FloorDiv) return Value::of_number(std::floor(x / y));
  return Value::of_number(x - y * std::floor(x / y));   // %: floored, like Python
}

Value Elaborator::eval(const ast::Unary& e, Scope& scope) {
  step(e);
  Value v = eval(e.operand, scope);
  for (const auto& i : e.indices) {
    Value item = index(v, eval(i.get(), scope), e, i.get());
    v = std::move(item);
  }
  for (auto it = e.prefix.rbegin(); it != e.prefix.rend(); ++it) {
    if (*it == '-') v = Value::of_number(-to_number(Arg{{}, v, &e}, "the operand of '-'"));
    else v = Value::of_bool(!to_bool(Arg{{}, v, &e}, "the operand of '!'"));
  }
  return v;
}

Value Elaborator::eval(const ast::Operand& e, Scope& scope) {
  struct Visitor {
    Elaborator& el;
    Scope& scope;
    Value operator()(const ast::Number& n) const { return Value::of_number(n.value); }
    Value operator()(const ast::Bool& b) const { return Value::of_bool(b.value); }
    Value operator()(const ast::Text& t) const { return Value::of_text(t.value); }
    Value operator()(const ast::Identifier& id) const { return el.lookup(id, scope); }
    Value operator()(const ast::Call& c) const { return el.call(c, std::nullopt, scope); }
    Value operator()(const ast::List& l) const {
      if (l.items.size() > kMaxItems)
        el.fail(l, diag::kNetLimit, "a list of " + std::to_string(l.items.size()) + " items; lists hold at most " + std::to_string(kMaxItems));
      std::vector<Value> items;
      items.reserve(l.items.size());
      for (const auto& item : l.items) items.push_back(el.eval(item, scope));
      return Value::of_list(std::move(items));
    }
    Value operator()(const ast::Group& g) const { return el.eval(g.inner.get(), scope); }
  };
  return boost::apply_visitor(Visitor{*this, scope}, e);
}

Value Elaborator::call(const ast::Call& c, std::optional<Value> piped, Scope& scope) {
  step(c);
  std::vector<Arg> args;
  args.reserve((piped ? 1 : 0) + (c.args ? c.args->size() : 0));
  if (piped) args.push_back(Arg{{}, std::move(*piped), &c});
  if (c.args)
    for (const auto& a : *c.args) {
      Value v = eval(a.value.get(), scope);
      args.push_back(Arg{a.keyword ? &a.keyword->name : nullptr, std::move(v), &a});
    }
  const std::string& name = c.callee.name;
  static const std::string unlabelled;
  const std::string& label = c.label ? c.label->name : unlabelled;
  // Lists and tuples passed cost a step per item, and an op takes at most kMaxFanIn tensors: concat of a
  // 10,000-way split tuple 50 times over, in a loop, would otherwise build layers of 500,000 inputs each.
  std::size_t items = 0, tensors = 0;
  for (const Arg& a : args) {
    items += a.value.items.size();
    if (a.value.kind == Value::Kind::Tensor) ++tensors;
    for (const Value& v : a.value.items) tensors += v.kind == Value::Kind::Tensor ? 1 : 0;
  }
  charge(c, items);
  const bool op = is_op_name(name);   // looked up once: a name lookup per use showed in profiles
  if (tensors > kMaxFanIn && op)
    fail(c.callee, diag::kNetLimit, "'" + name + "' is given " + std::to_string(tensors) + " tensors; an op takes at most " +
                                        std::to_string(kMaxFanIn) + " inputs");
  if (op && (op_inputs_ += tensors) > kMaxTotalInputs)
    fail(c.callee, diag::kNetLimit, "the ops of the network take more than " + std::to_string(kMaxTotalInputs) +
                                        " tensor inputs together; expected a network of bounded size (is a wide tuple passed in a loop?)");
  if (auto it = blocks_.find(name); it != blocks_.end()) return call_block(*it->second, c, std::move(args));
  if (op) return *call_op(name, c, std::move(args), label);
  if (is_builtin_name(name)) {
    if (c.label) fail(*c.label, diag::kNetStructure, "'as' names a layer or block instance; '" + name + "' makes neither");
    return *call_builtin(name, c, std::move(args));
  }
  fail(c.callee, diag::kNetUnknownOp, "unknown op or block '" + name + "'" + suggestion(name, callable_known()));
}

Value Elaborator::call_block(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args) {
  for (const auto& f : stack_)
    if (f.block == &block) {
      std::string chain;
      for (const auto& g : stack_) chain += g.block->name.name + " -> ";
      fail(c.callee, diag::kNetRecursion, "block '" + block.name.name + "' is instantiated recursively (" + chain + block.name.name +
                                              "); recursion is not allowed");
    }
  if (stack_.size() >= kMaxBlockDepth)
    fail(c.callee, diag::kNetLimit, "block calls nest deeper than " + std::to_string(kMaxBlockDepth) + " levels");
  if (!builder_) return run_block(block, c, std::move(args));
  // The block instance is a naming scope: its `as` label, else `<block><k>` (as NetworkBuilder::scope).
  if (c.label) {
    auto s = builder_->named_scope(c.label->name);
    return instantiate(block, c, std::move(args));
  }
  auto s = builder_->scope(block.name.name);
  return instantiate(block, c, std::move(args));
}

Value Elaborator::run_block(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args) {
  stack_.push_back({&block, &c.callee});
  struct Pop {
    std::vector<Frame>& s;
    ~Pop() { s.pop_back(); }
  } pop{stack_};
  // Bind positional, then keyword arguments; then defaults, evaluated in the new scope.
  Scope scope;
  const std::vector<ast::Param> none;
  const auto& params = block.params ? *block.params : none;
  std::size_t positional = 0;
  for (auto& a : args) {
    if (a.keyword) {
      const auto p = std::find_if(params.begin(), params.end(), [&](const ast::Param& q) { return q.name.name == *a.keyword; });
      if (p == params.end()) {
        std::string list;
        for (const auto& q : params) list += (list.empty() ? "" : ", ") + q.name.name;
        fail(*a.at, diag::kNetArgument, "block '" + block.name.name + "' has no parameter '" + *a.keyword + "'; expected one of: " + list);
      }
      if (scope.contains(*a.keyword)) fail(*a.at, diag::kNetArgument, "argument '" + *a.keyword + "' of block '" + block.name.name + "' is given twice");
      scope[*a.keyword] = std::move(a.value);
      continue;
    }
    if (positional >= params.size())
      fail(*a.at, diag::kNetArgument, "block '" + block.name.name + "' takes " + std::to_string(params.size()) + " argument(s), got more");
    scope[params[positional++].name.name] = std::move(a.value);
  }
  for (const auto& p : params) {
    if (scope.contains(p.name.name)) continue;
    if (!p.default_value)
      fail(c.callee, diag::kNetArgument, "block '" + block.name.name + "' needs argument '" + p.name.name + "'; expected it by position or as `" +
                                             p.name.name + ": ...`");
    scope[p.name.name] = eval(*p.default_value, scope);
  }
  returned_.reset();
  if (!exec(block.body, scope) || !returned_)
    fail(block.name, diag::kNetStructure, "block '" + block.name.name + "' ended without 'return'; expected `return` with its result");
  Value result = std::move(*returned_);
  returned_.reset();
  return result;
}

}  // namespace ridge::lang::net

namespace ridge::lang::net {

ir::Network elaborate(const Sources& sources, const Overrides& overrides) {
  Elaborator e(sources, overrides);
  return e.run();
}

}  // namespace ridge::lang::net
