// The elaborator's state and its parts, shared by elaborate.cpp (statements, expressions, blocks)
// and calls.cpp (ops and built-in functions). Internal to lang/net.
#pragma once

#include "lang/builder.hpp"
#include "lang/net/elaborate.hpp"
#include "lang/net/instance.hpp"
#include "lang/net/networks.hpp"
#include "lang/net/scope.hpp"
#include "lang/net/value.hpp"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang::net {

using Tagged = boost::spirit::x3::position_tagged;

// An evaluated call argument and where it was written.
struct Arg {
  const std::string* keyword;   // its name in the syntax tree (which outlives elaboration); null: positional
  Value value;
  const Tagged* at;
};

// A parameter of an op or built-in: a name and, for optional ones, a default (Kind::None for
// defaults that depend on other arguments, such as maxpool's stride = kernel).
struct ParamSpec {
  std::string_view name;
  bool required;
  Value fallback = {};
};

// Arguments bound to parameters by position then keyword.
// A handful of parameters per call: a vector searched in order costs less than a map's allocations.
// Names view the ParamSpecs' names (static tables or literals), which outlive the Bound.
struct Bound {
  std::vector<std::pair<std::string_view, Arg>> args;
  std::vector<Arg> rest;   // extra positional arguments of a variadic op (concat, min, max)
  const Arg* find(std::string_view name) const {
    for (const auto& [k, a] : args)
      if (k == name) return &a;
    return nullptr;
  }
  const Arg& operator[](std::string_view name) const { return *find(name); }
};

class Elaborator {
 public:
  Elaborator(const Sources& sources, const Overrides& overrides);
  ir::Network run();

  // --- used by calls.cpp ---
  // An error that ends elaboration (what comes after it depends on what failed).
  // `id` says what kind of error (lang/diagnostic_ids.hpp).
  [[noreturn]] void fail(const Tagged& at, std::string_view id, std::string message) const;
  std::int64_t to_int(const Arg& a, std::string_view what) const;
  double to_number(const Arg& a, std::string_view what) const;
  bool to_bool(const Arg& a, std::string_view what) const;
  ir::LayerId to_tensor(const Arg& a, std::string_view what) const;
  ir::AttrValue to_ints(const Arg& a, const std::string& what, bool list) const;
  const ir::Shape& shape(ir::LayerId id) const { return builder_->shape(id); }
  ir::LayerId make_layer(ir::Op op, ir::Attrs attrs, std::vector<ir::LayerId> inputs, std::string name,
                         const Tagged& at);
  Bound bind(std::string_view callee, const std::vector<ParamSpec>& params, bool variadic, std::vector<Arg> args,
             const Tagged& at) const;

 private:
  struct Frame {
    const ast::Definition* block;
    const Tagged* site;
  };

  // Errors in independent definitions and blocks are collected, so one run shows them all:
  // report() records one, stop_if_reported() throws those recorded (first kMaxErrors, source order)
  // before any work that could trip over them. Only for checks outside block instances (no notes).
  struct Reported {
    std::size_t file;     // in sources_.files()
    std::size_t offset;
    std::string_view id;   // one of diag::kAll, which outlive everything
    std::string message;
  };
  void report(const Tagged& at, std::string_view id, std::string message);
  void report_at_start(std::string_view id, std::string message);   // an error about the whole first file
  void stop_if_reported();
  // Whether another reported error would be shown, so that costly did-you-means are computed only then.
  bool shows_more() const { return reported_.size() < kMaxErrors; }

  void step(const Tagged& at);
  void charge(const Tagged& at, std::size_t steps);   // `steps` steps at once
  void bind_parameters(const Overrides& overrides);
  void bind_constant(const ast::Assign& constant);
  void assign(const ast::Assign& s, Value v, Scope& scope);
  Value index(const Value& v, const Value& i, const Tagged& base, const ast::Expr& at) const;
  const Value& lookup(const ast::Identifier& name, const Scope& scope) const;

  bool exec(const ast::Body& body, Scope& scope);   // true once a `return` ran
  void exec(const ast::Statement& s, Scope& scope, bool& returned);
  Value eval(const ast::Expr& e, Scope& scope);
  Value eval(const ast::Conditional& e, Scope& scope);
  Value eval(const ast::Binary& e, Scope& scope);
  Value eval(const ast::Unary& e, Scope& scope);
  Value eval(const ast::Operand& e, Scope& scope);
  Value apply(const ast::BinaryOp& op, const Value& a, const Value& b) const;
  Value call(const ast::Call& c, std::optional<Value> piped, Scope& scope);
  Value call_block(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args);
  Value run_block(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args);
  // instances.cpp: run_block in the block's scope, or a repeat of an earlier identical instance.
  Value instantiate(const ast::Definition& block, const ast::Call& c, std::vector<Arg> args);
  bool is_callable(std::string_view name) const;
  // Every name a call may take: the file's blocks, then the ops and built-in functions.
  std::vector<std::string> callable_known() const;
  // check_names.cpp: every block's names, called or not, before elaboration.
  void check_block_names();
  void check_definitions();
  const std::string& network_name() const { return network_name_->name; }

  // calls.cpp
  std::optional<Value> call_op(std::string_view name, const ast::Call& c, std::vector<Arg> args,
                               const std::string& label);
  Value call_split(const ast::Call& c, std::vector<Arg> args, const std::string& label);
  std::optional<Value> call_builtin(std::string_view name, const ast::Call& c, std::vector<Arg> args);

  const Sources& sources_;
  ResolvedNetwork resolved_;                   // the network the first file describes
  const ast::Definition* network_ = nullptr;   // the definition it runs (resolved_.body)
  const ast::Identifier* network_name_ = nullptr;   // its name, the first file's
  std::map<std::string, const ast::Definition*, std::less<>> blocks_;
  Scope globals_;                          // file-level constants, then the network's parameters
  std::set<std::string, std::less<>> constants_;   // names of the file-level constants
  bool in_constants_ = false;              // evaluating file-level constants (before the parameters)
  std::optional<NetworkBuilder> builder_;
  std::string input_origin_;
  std::vector<Frame> stack_;
  std::optional<Value> returned_;
  std::size_t layers_ = 0;
  std::int64_t loop_iterations_ = 0;
  std::int64_t steps_ = 0;
  std::size_t op_inputs_ = 0;   // tensor inputs of every op called so far
  int depth_ = 0;
  std::vector<Reported> reported_;
  std::unordered_map<const Tagged*, std::string> origins_;   // make_layer's "file:line:col" per construct
  std::unordered_map<std::string, Instance> instances_;       // by instance_key (instances.cpp)
};

// Names the language reserves for ops and built-in functions (a block may not take one).
bool is_op_name(std::string_view name);
bool is_builtin_name(std::string_view name);
const std::vector<std::string_view>& callable_names();

}  // namespace ridge::lang::net
