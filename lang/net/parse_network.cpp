// lang/parse.hpp's `.net` half: precheck, parse (X3), elaborate. Syntax errors arrive here as
// x3::expectation_failure (recorded by the statements that recover from them, or thrown by one none
// could) and leave as one lang::Error with file:line:col and what was expected for each.
#include "lang/net/config.hpp"
#include "lang/net/elaborate.hpp"
#include "lang/net/grammar.hpp"
#include "lang/net/precheck.hpp"
#include "lang/parse.hpp"

#include <cctype>
#include <optional>

namespace ridge::lang {
namespace {

namespace x3 = boost::spirit::x3;
using net::grammar::iterator_type;

// "found 'conv'", "found end of file": what stood where something else was expected.
std::string found(const std::string& text, std::size_t at) {
  if (at >= text.size()) return "found end of file";
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  std::size_t end = at;
  if (word(text[at])) {
    while (end < text.size() && word(text[end]) && end - at < 32) ++end;
  } else {
    end = at + 1;
  }
  return "found '" + text.substr(at, end - at) + "'";
}

// X3 spells literal strings with double quotes; diagnostics quote tokens with single ones.
std::string expected(std::string which) {
  if (which == "'\"'") return "a closing '\"' on the same line";   // the quoted-word rule
  for (char& c : which)
    if (c == '"') c = '\'';
  if (which == "'}'") return "a statement or '}'";
  return which;
}

// "file:line:col: error: expected ..., found ...": a syntax error at byte `where` (where X3 stopped),
// pointing at the first token there, or just after the last token at the end of the file.
Diagnostic syntax_error(const std::string& text, const SourceMap& source, std::size_t where,
                        const std::string& which) {
  std::size_t at = net::token_start(text, where);
  const std::string what = found(text, at);
  if (at >= text.size()) at = source.end_of_text();
  return source.diagnostic(at, diag::kNetSyntax, "expected " + expected(which) + ", " + what);
}

// Checks, then parses `text` into its syntax tree; `positions` keeps the tree's source positions.
// Statements that fail to parse are skipped (error_handler.hpp), so every syntax error the file has
// is reported, up to kMaxErrors, and no tree comes back when there is one.
net::ast::File parse_tree(const std::string& text, const SourceMap& source,
                          net::grammar::error_handler_type& positions) {
  if (text.size() > kMaxSourceBytes)
    throw Error({source.diagnostic(0, diag::kFileTooLarge,
                                   "the text is " + std::to_string(text.size()) + " bytes; source is limited to " +
                                       std::to_string(kMaxSourceBytes) + " bytes")});
  net::precheck(source);

  net::ast::File tree;
  iterator_type first = text.begin();
  std::optional<Diagnostic> stopped;   // an error no statement recovered from, which ended the parse
  try {
    const auto parser = x3::with<x3::error_handler_tag>(std::ref(positions))[net::grammar::file()];
    const bool ok = x3::phrase_parse(first, text.end(), parser, net::grammar::skipper, tree);
    if (!ok || first != text.end()) {
      const std::size_t at = net::token_start(text, static_cast<std::size_t>(first - text.begin()));
      stopped = source.diagnostic(at, diag::kNetSyntax, "expected 'block', 'network' or NAME = VALUE, " + found(text, at));
    }
  } catch (const x3::expectation_failure<iterator_type>& e) {
    // After kMaxRecoveries errors the exception only says where reading stopped.
    if (!positions.gave_up()) stopped = syntax_error(text, source, static_cast<std::size_t>(e.where() - text.begin()), e.which());
  }
  std::vector<Diagnostic> shown;
  for (const auto& e : positions.syntax_errors()) shown.push_back(syntax_error(text, source, e.offset, e.which));
  if (stopped) shown.push_back(std::move(*stopped));
  if (!shown.empty())
    throw Error(limit_errors(std::move(shown), positions.syntax_error_count() + (stopped ? 1 : 0), !positions.gave_up()));
  return tree;
}

}  // namespace

ir::Network parse_network(const std::string& text, const std::string& file, const Overrides& overrides) {
  const SourceMap source(file, text);
  net::grammar::error_handler_type positions(text.begin(), text.end());
  const net::ast::File tree = parse_tree(text, source, positions);
  return net::elaborate(tree, source, positions, overrides);
}

std::vector<std::string> network_parameters(const std::string& path) {
  const std::string text = read_source(path);
  const SourceMap source(path, text);
  net::grammar::error_handler_type positions(text.begin(), text.end());
  const net::ast::File tree = parse_tree(text, source, positions);
  std::vector<std::string> names;
  for (const auto& item : tree.items)
    if (const auto* d = boost::get<net::ast::Definition>(&item); d && d->kind == "network" && d->params)
      for (const auto& p : *d->params) names.push_back(p.name.name);
  return names;
}

ir::Network load_network(const std::string& path, const Overrides& overrides) {
  if (is_onnx_path(path)) return load_onnx(path, onnx_options(overrides, path)).network;
  const std::string text = read_source(path);
  try {
    return parse_network(text, path, overrides);
  } catch (const Error& e) {
    // A file without the .net extension that does not read as .net source is most likely some other
    // file given by mistake: one error that says so, and none of its lines echoed (issue #41: the
    // Python module quoted the first lines of any file it was handed).
    const bool named_net = path.size() > 4 && path.compare(path.size() - 4, 4, ".net") == 0;
    if (named_net || e.diagnostics().empty()) throw;
    Diagnostic d = e.diagnostics().front();
    d.message = "not a .net source (nor named *.net): " + d.message;
    d.source_line.clear();
    d.notes.clear();
    throw Error({std::move(d)});
  }
}

}  // namespace ridge::lang
