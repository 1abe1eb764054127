// Reading a `.net` file and its imports: precheck and parse (X3) each file, follow its imports. Syntax
// errors arrive here as x3::expectation_failure (recorded by the statements that recover from them, or
// thrown by one none could) and leave as one lang::Error with file:line:col and what was expected for each.
#include "lang/net/sources.hpp"

#include "lang/net/grammar.hpp"
#include "lang/net/precheck.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace ridge::lang::net {
namespace {

namespace x3 = boost::spirit::x3;
using grammar::iterator_type;

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
  std::size_t at = token_start(text, where);
  const std::string what = found(text, at);
  if (at >= text.size()) at = source.end_of_text();
  return source.diagnostic(at, diag::kNetSyntax, "expected " + expected(which) + ", " + what);
}

// Checks, then parses `text` into its syntax tree, its positions in `positions`. Statements that fail to
// parse are skipped (error_handler.hpp), so every syntax error the file has is reported, up to
// kMaxErrors, and no tree comes back when there is one.
ast::File parse_tree(const std::string& text, const SourceMap& source, PositionTable& table) {
  grammar::error_handler_type positions(text.begin(), text.end(), table);
  if (text.size() > kMaxSourceBytes)
    throw Error({source.diagnostic(0, diag::kFileTooLarge,
                                   "the text is " + std::to_string(text.size()) + " bytes; source is limited to " +
                                       std::to_string(kMaxSourceBytes) + " bytes")});
  precheck(source);

  ast::File tree;
  iterator_type first = text.begin();
  std::optional<Diagnostic> stopped;   // an error no statement recovered from, which ended the parse
  try {
    const auto parser = x3::with<x3::error_handler_tag>(std::ref(positions))[grammar::file()];
    const bool ok = x3::phrase_parse(first, text.end(), parser, grammar::skipper, tree);
    if (!ok || first != text.end()) {
      const std::size_t at = token_start(text, static_cast<std::size_t>(first - text.begin()));
      stopped = source.diagnostic(at, diag::kNetSyntax, "expected 'import', 'block', 'network' or NAME = VALUE, " + found(text, at));
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

// The path an import names, as the importing file's directory joined with it (an absolute path as it
// is), made lexically normal so that two spellings of one file are one file.
std::string resolve(const std::string& importer, const std::string& imported) {
  const std::filesystem::path p(imported);
  const std::filesystem::path joined = p.is_absolute() ? p : std::filesystem::path(importer).parent_path() / p;
  return joined.lexically_normal().generic_string();
}

bool named_net(const std::string& path) { return path.size() > 4 && path.compare(path.size() - 4, 4, ".net") == 0; }

}  // namespace

Sources::Sources(std::string text, std::string file, const SourceReader& read) {
  std::size_t bytes = text.size();
  parse(std::move(text), std::move(file));
  std::vector<std::size_t> chain{0};
  read_imports(0, read, chain, bytes);
}

std::size_t Sources::parse(std::string text, std::string path) {
  File& f = files_.emplace_back(std::move(path), std::move(text));
  f.tree = parse_tree(f.text, f.map, positions_);
  return files_.size() - 1;
}

void Sources::read_imports(std::size_t index, const SourceReader& read, std::vector<std::size_t>& chain, std::size_t& bytes) {
  for (const auto& item : files_[index].tree.items) {
    const auto* import = boost::get<ast::Import>(&item);
    if (!import) continue;
    const File& importer = files_[index];
    const std::string& named = import->path.value;
    if (!named_net(named))
      throw Error({diagnostic(import->path, diag::kNetImport, "cannot import \"" + named + "\": expected the path of a .net file")});
    const std::string path = resolve(importer.path, named);
    const auto same = [&](std::size_t k) { return files_[k].path == path; };
    if (const auto on_chain = std::find_if(chain.begin(), chain.end(), same); on_chain != chain.end()) {
      std::string cycle;
      for (auto it = on_chain; it != chain.end(); ++it) cycle += files_[*it].path + " imports ";
      throw Error({diagnostic(import->path, diag::kNetImport, "import cycle: " + cycle + path)});
    }
    std::size_t k = 0;
    while (k < files_.size() && !same(k)) ++k;
    if (k == files_.size()) {
      if (files_.size() >= kMaxImportedFiles)
        throw Error({diagnostic(import->path, diag::kNetLimit, "more than " + std::to_string(kMaxImportedFiles) +
                                                                   " files imported for one network")});
      std::string text;
      try {
        text = read(path);
      } catch (const Error& e) {
        const std::string why = e.diagnostics().empty() ? std::string("cannot read it") : e.diagnostics().front().message;
        throw Error({diagnostic(import->path, diag::kNetImport, "cannot import \"" + named + "\" (" + path + "): " + why)});
      }
      if ((bytes += text.size()) > kMaxImportedBytes)
        throw Error({diagnostic(import->path, diag::kNetLimit, "the imported files hold more than " +
                                                                   std::to_string(kMaxImportedBytes) + " bytes together")});
      try {
        k = parse(std::move(text), path);
      } catch (Error& e) {
        // The errors are in the imported file; the notes say which import brought it in.
        std::vector<Diagnostic> shown = e.diagnostics();
        for (Diagnostic& d : shown) {
          d.notes.push_back(files_[index].map.note(offset_of(import->path), "in the file imported here"));
          add_import_notes(index, d);
        }
        throw Error(std::move(shown));
      }
      files_[k].importer = index;
      files_[k].imported_at = import;
      chain.push_back(k);
      read_imports(k, read, chain, bytes);
      chain.pop_back();
    }
    files_[index].imports.push_back(k);
  }
  dependency_order_.push_back(index);   // each file is read, and so reaches here, once
}

std::size_t Sources::file_of(const boost::spirit::x3::position_tagged& node) const {
  const auto place = positions_.place_of(node);
  return place ? place->file : 0;
}

std::size_t Sources::offset_of(const boost::spirit::x3::position_tagged& node) const {
  const auto place = positions_.place_of(node);
  return place ? place->offset : 0;
}

void Sources::add_import_notes(std::size_t file, Diagnostic& d) const {
  // Bounded by the number of files: each file's importer was read before it.
  for (std::size_t k = file; files_[k].importer; k = *files_[k].importer) {
    const File& importer = files_[*files_[k].importer];
    d.notes.push_back(importer.map.note(offset_of(files_[k].imported_at->path), "in the file imported here"));
  }
}

Diagnostic Sources::diagnostic(std::size_t file, std::size_t offset, std::string_view id, std::string message) const {
  Diagnostic d = files_[file].map.diagnostic(offset, id, std::move(message));
  add_import_notes(file, d);
  return d;
}

Diagnostic Sources::diagnostic(const boost::spirit::x3::position_tagged& node, std::string_view id, std::string message) const {
  return diagnostic(file_of(node), offset_of(node), id, std::move(message));
}

Note Sources::note(const boost::spirit::x3::position_tagged& node, std::string message) const {
  return files_[file_of(node)].map.note(offset_of(node), std::move(message));
}

std::string Sources::origin(const boost::spirit::x3::position_tagged& node) const {
  return files_[file_of(node)].map.origin(offset_of(node));
}

}  // namespace ridge::lang::net
