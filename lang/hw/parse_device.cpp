// lang/parse.hpp's `.hw` half: syntax (X3) then checks, every failure a lang::Error. Syntax errors
// arrive as x3::expectation_failure (recorded by the entries that recover from them, or thrown by one
// none could) and leave as one lang::Error with file:line:col and what was expected for each; a file
// with syntax errors is not checked, as a `.net` with them is not elaborated.
#include "lang/hw/ast.hpp"
#include "lang/hw/check.hpp"
#include "lang/hw/config.hpp"
#include "lang/hw/error_handler.hpp"
#include "lang/hw/grammar.hpp"
#include "lang/hw/recovery.hpp"
#include "lang/parse.hpp"

#include <filesystem>
#include <optional>

namespace ridge::lang {

ir::Device parse_device(const std::string& text, const std::string& file) {
  namespace x3 = boost::spirit::x3;
  const hw::Locator locator(text, file);
  hw::parser::ParseState state(text);
  hw::ast::Device ast;
  auto first = text.cbegin();
  std::optional<Diagnostic> stopped;   // an error no entry recovered from, which ended the parse
  try {
    const auto parser = x3::with<hw::parser::parse_state_tag>(std::ref(state))[hw::file()];
    // The grammar ends in `> eoi` and starts with `eps >`, so it either succeeds or throws.
    if (!x3::phrase_parse(first, text.cend(), parser, hw::parser::skipper, ast))
      stopped = locator.error(first, diag::kHwSyntax, "expected a device declaration 'device \"NAME\" { ... }'");
  } catch (const x3::expectation_failure<hw::parser::iterator_type>& e) {
    // After kMaxRecoveries errors the exception only says where reading stopped.
    if (!state.gave_up()) stopped = hw::syntax_diagnostic(e.where(), e.which(), locator);
  }
  std::vector<Diagnostic> shown;
  for (const auto& e : state.syntax_errors()) shown.push_back(hw::syntax_diagnostic(e.where, e.which, locator));
  if (stopped) shown.push_back(std::move(*stopped));
  if (!shown.empty())
    throw Error(limit_errors(std::move(shown), state.syntax_error_count() + (stopped ? 1 : 0), !state.gave_up()));
  return hw::check_device(ast, state.positions(), locator, std::filesystem::path(file).stem().string());
}

ir::Device load_device(const std::string& path) { return parse_device(read_source(path), path); }

}  // namespace ridge::lang
