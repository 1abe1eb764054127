// lang/parse.hpp's `.hw` half: syntax (X3) then checks, every failure a lang::Error.
#include "lang/hw/ast.hpp"
#include "lang/hw/check.hpp"
#include "lang/hw/config.hpp"
#include "lang/hw/error_handler.hpp"
#include "lang/hw/grammar.hpp"
#include "lang/parse.hpp"

#include <filesystem>

namespace ridge::lang {

ir::Device parse_device(const std::string& text, const std::string& file) {
  namespace x3 = boost::spirit::x3;
  const hw::Locator locator(text, file);
  hw::parser::position_cache positions(text.begin(), text.end());
  hw::ast::Device ast;
  auto first = text.cbegin();
  try {
    const auto parser = x3::with<hw::parser::position_cache_tag>(std::ref(positions))[hw::file()];
    // The grammar ends in `> eoi` and starts with `eps >`, so it either succeeds or throws.
    if (!x3::phrase_parse(first, text.cend(), parser, hw::parser::skipper, ast))
      throw Error({locator.error(first, "expected a device declaration 'device \"NAME\" { ... }'")});
  } catch (const x3::expectation_failure<hw::parser::iterator_type>& e) {
    throw Error({hw::expectation_diagnostic(e, locator)});
  }
  return hw::check_device(ast, positions, locator, std::filesystem::path(file).stem().string());
}

ir::Device load_device(const std::string& path) { return parse_device(read_source(path), path); }

}  // namespace ridge::lang
