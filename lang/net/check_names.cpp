// Every block's names checked before anything is elaborated, whether or not the network calls the
// block and whichever branches it takes: a typo in a block no one calls yet, or in an `else` not
// taken at these settings, is an error now rather than when someone first uses it.
//
// The check is lenient where the language is dynamic: a name assigned anywhere in the block (or a
// loop variable, or a parameter) counts as defined everywhere in it, so no valid program is refused;
// the elaborator still reports what only running can tell (a name read before it is assigned).
//
// Every unknown name in every block is reported (up to kMaxErrors), each once per block: its later
// uses are the same mistake, not new ones.
#include "lang/net/elaborator.hpp"

#include "lang/suggest.hpp"

#include <set>

namespace ridge::lang::net {
namespace {

namespace x3 = boost::spirit::x3;

// The names a body assigns (targets and loop variables), however deep.
void assigned(const ast::Body& body, std::set<std::string>& out);

struct Assigned {
  std::set<std::string>& out;
  void operator()(const ast::Input& s) const { out.insert(s.name.name); }
  void operator()(const ast::Assign& s) const {
    for (const auto& t : s.targets) out.insert(t.name);
  }
  void operator()(const ast::If& s) const {
    for (const auto& b : s.branches) assigned(b.body, out);
    if (s.otherwise) assigned(*s.otherwise, out);
  }
  void operator()(const ast::For& s) const {
    out.insert(s.var.name);
    assigned(s.body, out);
  }
  void operator()(const ast::Return&) const {}
};

void assigned(const ast::Body& body, std::set<std::string>& out) {
  for (const auto& s : body) boost::apply_visitor(Assigned{out}, s);
}

}  // namespace

void Elaborator::check_block_names() {
  // The blocks of the first file and of the file whose network runs (a variant's base): an imported
  // block library may use names only its own network binds, so its other blocks are checked when called.
  std::vector<std::size_t> files{0};
  if (const std::size_t body = sources_.file_of(*network_); body != 0) files.push_back(body);
  std::vector<const ast::TopLevel*> items;
  for (const std::size_t k : files)
    for (const auto& item : sources_.files()[k].tree.items) items.push_back(&item);
  // In file order, so that the errors shown (the first kMaxErrors) are the first in the file.
  for (const ast::TopLevel* top : items) {
    const auto& item = *top;
    const auto* block = boost::get<ast::Definition>(&item);
    if (!block || block->kind != "block") continue;
    std::set<std::string> defined;
    if (block->params)
      for (const auto& p : *block->params) defined.insert(p.name.name);
    assigned(block->body, defined);

    std::set<std::string> unknown_names;
    std::set<std::string> unknown_calls;
    struct Walk {
      Elaborator& e;
      const std::set<std::string>& defined;
      std::set<std::string>& unknown_names;   // reported in this block already
      std::set<std::string>& unknown_calls;
      const std::string where;

      void body(const ast::Body& b) const {
        for (const auto& s : b) boost::apply_visitor(*this, s);
      }
      void operator()(const ast::Input& s) const { expr(s.shape); }
      void operator()(const ast::Assign& s) const { expr(s.value); }
      void operator()(const ast::If& s) const {
        for (const auto& br : s.branches) {
          expr(br.condition);
          body(br.body);
        }
        if (s.otherwise) body(*s.otherwise);
      }
      void operator()(const ast::For& s) const {
        expr(s.from);
        if (s.to) expr(*s.to);
        body(s.body);
      }
      void operator()(const ast::Return& s) const { expr(s.value); }

      void expr(const ast::Expr& x) const {
        conditional(x.head);
        for (const auto& c : x.links) call(c);
      }
      void conditional(const ast::Conditional& c) const {
        binary(c.head);
        for (const auto& t : c.tails) {
          expr(t.then.get());
          binary(t.otherwise);
        }
      }
      void binary(const ast::Binary& b) const {
        unary(b.first);
        for (const auto& op : b.rest) unary(op.rhs);
      }
      void unary(const ast::Unary& u) const {
        operand(u.operand);
        for (const auto& i : u.indices) expr(i.get());
      }
      void operand(const ast::Operand& o) const {
        if (const auto* id = boost::get<ast::Identifier>(&o)) return name(*id);
        if (const auto* c = boost::get<x3::forward_ast<ast::Call>>(&o)) return call(c->get());
        if (const auto* l = boost::get<x3::forward_ast<ast::List>>(&o)) {
          for (const auto& item : l->get().items) expr(item);
          return;
        }
        if (const auto* g = boost::get<x3::forward_ast<ast::Group>>(&o)) return expr(g->get().inner.get());
      }
      void name(const ast::Identifier& id) const {
        if (defined.count(id.name) || e.globals_.contains(id.name)) return;
        if (e.is_callable(id.name)) return;   // the elaborator explains a function used as a value
        if (!unknown_names.insert(id.name).second) return;
        if (!e.shows_more()) return e.report(id, diag::kNetUnknownName, "unknown name");   // counted, never shown
                               std::vector<std::string> known(defined.begin(), defined.end());
        for (std::string& k : e.globals_.names()) known.push_back(std::move(k));
        const std::string best = closest_name(id.name, known);
        e.report(id, diag::kNetUnknownName, "unknown name '" + id.name + "'" + where + (best.empty() ? "" : " (did you mean '" + best + "'?)"));
      }
      void call(const ast::Call& c) const {
        if (!e.is_callable(c.callee.name) && unknown_calls.insert(c.callee.name).second) {
          const std::string best = e.shows_more() ? closest_name(c.callee.name, e.callable_known()) : "";
          e.report(c.callee, diag::kNetUnknownOp, "unknown op or block '" + c.callee.name + "'" + where +
                                                      (best.empty() ? "" : " (did you mean '" + best + "'?)"));
        }
        if (c.args)
          for (const auto& a : *c.args) expr(a.value.get());
      }
    };
    const Walk walk{*this, defined, unknown_names, unknown_calls, " in block '" + block->name.name + "'"};
    if (block->params)
      for (const auto& p : *block->params)
        if (p.default_value) walk.expr(*p.default_value);
    walk.body(block->body);
  }
  stop_if_reported();
}

}  // namespace ridge::lang::net
