// Following a file's network through its variants (networks.hpp).
#include "lang/net/networks.hpp"

#include "lang/suggest.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ridge::lang::net {
namespace {

using Tagged = boost::spirit::x3::position_tagged;

// A network as one file defines it: a definition or a variant.
struct Named {
  const ast::Definition* definition = nullptr;
  const ast::NetworkVariant* variant = nullptr;
  const ast::Identifier& name() const { return definition ? definition->name : variant->name; }
  const Tagged& node() const { return definition ? static_cast<const Tagged&>(*definition) : *variant; }
};

[[noreturn]] void fail(const Sources& sources, const Tagged& at, std::string_view id, std::string message) {
  throw Error({sources.diagnostic(at, id, std::move(message))});
}

// Checks a variant's arguments against the parameters of the definition it ends at: keywords only
// (a variant says which defaults it changes), each a parameter, each once, no `as`.
void check_arguments(const Sources& sources, const ast::NetworkVariant& v, const ast::Definition& body) {
  const ast::Call& base = v.base;
  if (base.label) fail(sources, *base.label, diag::kNetDefinition, "a network variant has no 'as' label; its name is '" + v.name.name + "'");
  if (!base.args) return;
  std::set<std::string> given;
  std::vector<std::string> names;
  if (body.params)
    for (const auto& p : *body.params) names.push_back(p.name.name);
  for (const auto& a : *base.args) {
    if (!a.keyword)
      fail(sources, a, diag::kNetArgument, "a network variant names each parameter it sets, as `" + base.callee.name +
                                               "(layers: 32)`; expected NAME: VALUE");
    const std::string& k = a.keyword->name;
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      const std::string best = closest_name(k, names);
      fail(sources, *a.keyword, diag::kNetArgument, "network '" + body.name.name + "' has no parameter '" + k + "'" +
                                                        (best.empty() ? "" : " (did you mean '" + best + "'?)") +
                                                        (list.empty() ? std::string("; it has none") : "; it has: " + list));
    }
    if (!given.insert(k).second)
      fail(sources, *a.keyword, diag::kNetArgument, "parameter '" + k + "' is given twice");
  }
}

}  // namespace

const ast::Expr* ResolvedNetwork::default_of(const ast::Param& param) const {
  for (const ast::NetworkVariant* v : variants)
    if (v->base.args)
      for (const auto& a : *v->base.args)
        if (a.keyword && a.keyword->name == param.name.name) return &a.value.get();
  return param.default_value ? &*param.default_value : nullptr;
}

std::optional<ResolvedNetwork> resolve_network(const Sources& sources, const Report& report) {
  std::map<std::string, Named, std::less<>> networks;
  std::map<std::string, const ast::Identifier*, std::less<>> blocks;
  std::optional<Named> first;
  bool reported = false;
  for (std::size_t k = 0; k < sources.files().size(); ++k) {
    std::optional<Named> in_file;
    for (const auto& item : sources.files()[k].tree.items) {
      Named n;
      if (const auto* d = boost::get<ast::Definition>(&item)) {
        if (d->kind != "network") {
          blocks.emplace(d->name.name, &d->name);
          continue;
        }
        n.definition = d;
      } else if (const auto* v = boost::get<ast::NetworkVariant>(&item)) {
        n.variant = v;
      } else {
        continue;
      }
      if (in_file) {
        report(&n.node(), diag::kNetDefinition, std::string(k == 0 ? "a file holds exactly one network" : "a file holds at most one network") +
                                                    "; '" + in_file->name().name + "' is already defined");
        reported = true;
        continue;
      }
      in_file = n;
      if (const auto [it, fresh] = networks.emplace(n.name().name, n); !fresh) {
        report(&n.name(), diag::kNetDefinition, "network '" + n.name().name + "' is defined twice (first at " +
                                                    sources.origin(it->second.name()) + ")");
        reported = true;
      }
    }
    if (k == 0) first = in_file;
  }
  if (!first) {
    report(nullptr, diag::kNetStructure, "expected a network definition: the file defines no 'network'");
    reported = true;
  }
  if (reported) return std::nullopt;

  // Follow the variants to a definition; each network at most once, so the walk ends.
  ResolvedNetwork resolved;
  resolved.name = &first->name();
  Named at = *first;
  std::vector<std::string> walked;
  while (at.variant) {
    const ast::NetworkVariant& v = *at.variant;
    walked.push_back(v.name.name);
    resolved.variants.push_back(&v);
    const std::string& base = v.base.callee.name;
    const auto it = networks.find(base);
    if (it == networks.end()) {
      if (blocks.count(base))
        fail(sources, v.base.callee, diag::kNetDefinition, "'" + base + "' is a block; a network variant varies a network");
      std::vector<std::string> known;
      for (const auto& [name, n] : networks) known.push_back(name);
      const std::string best = closest_name(base, known);
      fail(sources, v.base.callee, diag::kNetUnknownName, "no network named '" + base + "'" +
                                                              (best.empty() ? "" : " (did you mean '" + best + "'?)") +
                                                              "; expected a network this file defines or imports");
    }
    if (std::find(walked.begin(), walked.end(), base) != walked.end()) {
      std::string chain;
      for (const auto& w : walked) chain += w + " = ";
      fail(sources, v.base.callee, diag::kNetRecursion, "network variants vary each other (" + chain + base + ")");
    }
    at = it->second;
  }
  resolved.body = at.definition;
  for (const ast::NetworkVariant* v : resolved.variants) check_arguments(sources, *v, *resolved.body);
  return resolved;
}

std::vector<std::string> network_parameters(const Sources& sources) {
  std::vector<Diagnostic> reported;
  const auto resolved = resolve_network(sources, [&](const Tagged* at, std::string_view id, std::string message) {
    reported.push_back(at ? sources.diagnostic(*at, id, std::move(message)) : sources.diagnostic(0, 0, id, std::move(message)));
  });
  if (!resolved) throw Error(std::move(reported));
  std::vector<std::string> names;
  if (resolved->body->params)
    for (const auto& p : *resolved->body->params) names.push_back(p.name.name);
  return names;
}

}  // namespace ridge::lang::net
