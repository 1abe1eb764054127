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
#include "lang/diagnostic_ids.hpp"
#include "lang/parse.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

namespace ridge::lang {

namespace {

// The syntax of a `.hw`-language file (a device or a runtime), every syntax error a lang::Error.
struct Parsed {
  hw::ast::Device ast;
  hw::parser::ParseState state;
};

void parse(const std::string& text, const hw::Locator& locator, Parsed& p) {
  namespace x3 = boost::spirit::x3;
  auto first = text.cbegin();
  std::optional<Diagnostic> stopped;   // an error no entry recovered from, which ended the parse
  try {
    const auto parser = x3::with<hw::parser::parse_state_tag>(std::ref(p.state))[hw::file()];
    // The grammar ends in `> eoi` and starts with `eps >`, so it either succeeds or throws.
    if (!x3::phrase_parse(first, text.cend(), parser, hw::parser::skipper, p.ast))
      stopped = locator.error(first, diag::kHwSyntax, "expected a device declaration 'device \"NAME\" { ... }'");
  } catch (const x3::expectation_failure<hw::parser::iterator_type>& e) {
    // After kMaxRecoveries errors the exception only says where reading stopped.
    if (!p.state.gave_up()) stopped = hw::syntax_diagnostic(e.where(), e.which(), locator);
  }
  std::vector<Diagnostic> shown;
  for (const auto& e : p.state.syntax_errors()) shown.push_back(hw::syntax_diagnostic(e.where, e.which, locator));
  if (stopped) shown.push_back(std::move(*stopped));
  if (!shown.empty())
    throw Error(limit_errors(std::move(shown), p.state.syntax_error_count() + (stopped ? 1 : 0), !p.state.gave_up()));
}

// A file that declares the other kind: one error at its keyword.
void expect_declaration(const std::string& text, const hw::Locator& locator, const hw::ast::Device& ast, const std::string& want) {
  if (ast.what == want) return;
  const std::size_t at = text.find(ast.what);
  throw Error({locator.error(text.cbegin() + static_cast<std::ptrdiff_t>(at == std::string::npos ? 0 : at), diag::kHwSyntax,
                             want == "device" ? "expected a device declaration 'device \"NAME\" { ... }'; this file describes a "
                                                "runtime (give it to --runtime)"
                                              : "expected a runtime declaration 'runtime \"NAME\" { ... }'; this file describes a "
                                                "device (give it as a device file)")});
}

// A file of the `.hw` language declaring `want` ("device" or "runtime"), checked by `check`.
template <class Check>
auto parse_declaration(const std::string& text, const std::string& file, const std::string& want, Check check) {
  const hw::Locator locator(text, file);
  Parsed p{{}, hw::parser::ParseState(text)};
  parse(text, locator, p);
  expect_declaration(text, locator, p.ast, want);
  return check(p.ast, p.state.positions(), locator, std::filesystem::path(file).stem().string());
}

constexpr std::size_t kMaxBaseDepth = 8;   // runtimes built on runtimes, at most this deep

ir::Runtime parse_runtime_on(const std::string& text, const std::string& file, std::vector<std::string>& chain);

// `base = "NAME"`: NAME.rt beside the file, else the catalogue's runtimes/NAME.rt; a value ending in
// .rt is a path from the file's folder. Only a regular file is read (never a device or a pipe).
std::filesystem::path base_path(const std::string& named, const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(file).parent_path();
  if (named.ends_with(".rt")) return folder / named;
  std::error_code ec;
  if (const fs::path beside = folder / (named + ".rt"); fs::is_regular_file(beside, ec)) return beside;
  return fs::path(RIDGE_RUNTIMES_DIR) / (named + ".rt");
}

// The runtime a file's `base` names, loaded (and its own base before it), or nothing when the file
// has none. A `base` that is not a string is left to the check, which says so.
std::optional<ir::Runtime> load_base(const hw::ast::Device& ast, const hw::parser::position_cache& positions,
                                     const hw::Locator& locator, const std::string& file, std::vector<std::string>& chain) {
  namespace fs = std::filesystem;
  const auto entry = std::find_if(ast.entries.begin(), ast.entries.end(), [](const hw::ast::Entry& e) { return e.key.text == "base"; });
  if (entry == ast.entries.end()) return std::nullopt;
  const auto* named = boost::get<hw::ast::Text>(&entry->value.get());
  if (!named) return std::nullopt;
  const auto at = positions.position_of(*named).begin();
  const auto fail = [&](std::string message) { return Error({locator.error(at, diag::kHwBase, std::move(message))}); };
  std::error_code ec;
  const fs::path path = base_path(named->text, file);
  if (named->text.empty() || !fs::is_regular_file(path, ec))
    throw fail("no runtime \"" + named->text + "\" beside this file or in the catalogue (runtimes/); expected a runtime's "
               "name, as in 'base = \"vllm\"', or a path ending in .rt");
  const std::string canonical = fs::weakly_canonical(path, ec).string();
  if (std::find(chain.begin(), chain.end(), canonical) != chain.end())
    throw fail("'" + path.string() + "' is built on this file: a runtime's bases cannot lead back to it");
  if (chain.size() >= kMaxBaseDepth)
    throw fail("more than " + std::to_string(kMaxBaseDepth) + " runtimes built on one another");
  chain.push_back(canonical);
  try {
    ir::Runtime base = parse_runtime_on(read_source(path.string()), path.string(), chain);
    chain.pop_back();
    return base;
  } catch (const Error& e) {
    // The errors are in the base's file; a note says which file built on it.
    std::vector<Diagnostic> shown = e.diagnostics();
    for (Diagnostic& d : shown) d.notes.push_back(locator.note(at, "in the base named here"));
    throw Error(std::move(shown));
  }
}

// A runtime file: its base loaded first (`chain`: the files already being read, for cycles), then the
// file checked on top of it.
ir::Runtime parse_runtime_on(const std::string& text, const std::string& file, std::vector<std::string>& chain) {
  return parse_declaration(text, file, "runtime", [&](const hw::ast::Device& ast, const hw::parser::position_cache& positions,
                                                      const hw::Locator& locator, std::string id) {
    const std::optional<ir::Runtime> base = load_base(ast, positions, locator, file, chain);
    return hw::check_runtime(ast, positions, locator, std::move(id), base ? &*base : nullptr);
  });
}

}  // namespace

ir::Device parse_device(const std::string& text, const std::string& file) {
  return parse_declaration(text, file, "device", hw::check_device);
}

ir::Runtime parse_runtime(const std::string& text, const std::string& file) {
  std::error_code ec;
  std::vector<std::string> chain{std::filesystem::weakly_canonical(file, ec).string()};
  return parse_runtime_on(text, file, chain);
}

ir::Runtime load_runtime(const std::string& path) { return parse_runtime(read_source(path), path); }

ir::Device load_device(const std::string& path) { return parse_device(read_source(path), path); }

}  // namespace ridge::lang
