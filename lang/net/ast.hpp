// The `.net` syntax tree: what the grammar produces and the elaborator walks. Plain structs; the
// ones that errors point at derive from x3::position_tagged, and the parser's position cache maps
// them back to source offsets.
//
// Precedence is not encoded in the tree: a binary expression is a flat list of operands and
// operators that the elaborator folds by precedence. That keeps the grammar small (and quick to
// compile) and lets long chains (`a + b + c + ...`) be evaluated without recursion.
#pragma once

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include <string>
#include <vector>

namespace ridge::lang::net::ast {

namespace x3 = boost::spirit::x3;

struct Expr;
struct Call;
struct List;
struct Group;

struct Identifier : x3::position_tagged {
  std::string name;
};

struct Number : x3::position_tagged {
  double value = 0.0;
};

struct Bool : x3::position_tagged {
  bool value = false;
};

// A word in double quotes, for arguments that pick one of several modes: `mode: "bilinear"`.
struct Text : x3::position_tagged {
  std::string value;
};

struct Operand : x3::variant<Number, Bool, Text, x3::forward_ast<Call>, Identifier, x3::forward_ast<List>,
                             x3::forward_ast<Group>> {
  using base_type::base_type;
  using base_type::operator=;
};

// `!`/`-` prefixes (a string of them, so `- - - x` does not recurse) applied to an operand and its
// indices: `-xs[0][1]` is `-((xs[0])[1])`.
struct Unary : x3::position_tagged {
  std::string prefix;
  Operand operand;
  std::vector<x3::forward_ast<Expr>> indices;   // `[i]` after the operand, applied left to right
};

struct BinaryOp : x3::position_tagged {
  std::string op;   // "||", "&&", "==", "+", "//", ...
  Unary rhs;
};

// operand (op operand)*, folded by precedence in the elaborator.
struct Binary : x3::position_tagged {
  Unary first;
  std::vector<BinaryOp> rest;
};

// `then : otherwise` after a `?`.
struct ConditionalTail : x3::position_tagged {
  x3::forward_ast<Expr> then;
  Binary otherwise;
};

// c ? a : d ? b : e is kept flat: head c, tails [(a, d), (b, e)], right-associative.
struct Conditional : x3::position_tagged {
  Binary head;
  std::vector<ConditionalTail> tails;
};

struct Arg : x3::position_tagged {
  boost::optional<Identifier> keyword;
  x3::forward_ast<Expr> value;
};

// `f(args) as label`; in a chain the parentheses may be left out (`x -> relu`).
struct Call : x3::position_tagged {
  Identifier callee;
  boost::optional<std::vector<Arg>> args;
  boost::optional<Identifier> label;
};

struct List : x3::position_tagged {
  std::vector<Expr> items;
};

struct Group : x3::position_tagged {
  x3::forward_ast<Expr> inner;
};

// head -> call -> call ...
struct Expr : x3::position_tagged {
  Conditional head;
  std::vector<Call> links;
};

struct Input;
struct Assign;
struct If;
struct For;
struct Return;

struct Statement : x3::variant<x3::forward_ast<Input>, x3::forward_ast<Assign>, x3::forward_ast<If>,
                               x3::forward_ast<For>, x3::forward_ast<Return>> {
  using base_type::base_type;
  using base_type::operator=;
};

using Body = std::vector<Statement>;

struct Input : x3::position_tagged {
  Identifier name;
  Expr shape;
};

struct Assign : x3::position_tagged {
  std::vector<Identifier> targets;
  Expr value;
};

struct Branch : x3::position_tagged {
  Expr condition;
  Body body;
};

// if c {} else if d {} else {}: a flat list of branches, so long else-if ladders do not recurse.
struct If : x3::position_tagged {
  std::vector<Branch> branches;
  boost::optional<Body> otherwise;
};

// `for i in FROM .. TO { }` (to set) or `for x in LIST { }` (from is the list or tuple, no to).
struct For : x3::position_tagged {
  Identifier var;
  Expr from;
  boost::optional<Expr> to;
  Body body;
};

struct Return : x3::position_tagged {
  Expr value;
};

struct Param : x3::position_tagged {
  Identifier name;
  boost::optional<Expr> default_value;
};

// `block NAME(...) { }` or `network NAME(...) { }`.
struct Definition : x3::position_tagged {
  std::string kind;   // "block" or "network"
  Identifier name;
  boost::optional<std::vector<Param>> params;
  Body body;
};

// `network NAME = BASE(param: value, ...)`: the network BASE (usually imported) under a new name, with
// new defaults for some of its parameters. A model size is one line: `network llama2_7b = llama(...)`.
struct NetworkVariant : x3::position_tagged {
  Identifier name;
  Call base;
};

// `import "PATH"`: every block, network and constant of the .net file at PATH (relative to the
// importing file) becomes usable here.
struct Import : x3::position_tagged {
  Text path;
};

// What a file holds at its top level: imports, definitions and file-level constants (`name = EXPR`).
struct TopLevel : x3::variant<Definition, NetworkVariant, Import, Assign> {
  using base_type::base_type;
  using base_type::operator=;
};

struct File {
  std::vector<TopLevel> items;
};

}  // namespace ridge::lang::net::ast
