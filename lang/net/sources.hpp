// A `.net` file and every file it imports, read and parsed: each file's text, source map and syntax
// tree, and one position table for all of them, so that any node of any file names its own file in a
// diagnostic (`llama.net:27:5`) and a layer's origin points where the layer was written.
//
// Imports are followed depth first from the file given, each path relative to the file that imports
// it; a file imported twice (two files importing one) is read once, and a file importing itself,
// however far round, is an error that shows the chain. Internal to lang/net.
#pragma once

#include "lang/net/ast.hpp"
#include "lang/net/config.hpp"
#include "lang/parse.hpp"
#include "lang/source_map.hpp"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace ridge::lang::net {

// Limits on imports (docs/language.md, "Limits"): files read for one network, and their text together.
inline constexpr std::size_t kMaxImportedFiles = 256;
inline constexpr std::size_t kMaxImportedBytes = 4 * kMaxSourceBytes;

class Sources {
 public:
  struct File {
    std::string path;            // as diagnostics name it: the importer's directory joined with the import
    std::string text;
    SourceMap map;               // refers to `text`: Files never move (a deque keeps them in place)
    ast::File tree;
    std::optional<std::size_t> importer;   // the file that first imported this one; none for the first
    const ast::Import* imported_at = nullptr;   // where, in the importer
    std::vector<std::size_t> imports;      // the files this one imports, in its order

    File(std::string path, std::string text) : path(std::move(path)), text(std::move(text)), map(this->path, this->text) {}
    File(const File&) = delete;
    File& operator=(const File&) = delete;
  };

  // Reads `text` (named `file`) and what it imports through `read`. Throws lang::Error: syntax errors
  // (of every file, the files imported by the one they are in named in notes), unreadable imports,
  // cycles, limits.
  Sources(std::string text, std::string file, const SourceReader& read);
  Sources(const Sources&) = delete;
  Sources& operator=(const Sources&) = delete;

  // Files in the order they were read: the one given first, then each import depth first.
  const std::deque<File>& files() const { return files_; }
  // The same files, each after every file it imports: the order their constants are bound in.
  const std::vector<std::size_t>& dependency_order() const { return dependency_order_; }

  // The file a node of any tree is in (0, the first file, for a node the parser did not tag).
  std::size_t file_of(const boost::spirit::x3::position_tagged& node) const;
  std::size_t offset_of(const boost::spirit::x3::position_tagged& node) const;

  // An error at `node`, with a note for each import that led to its file.
  Diagnostic diagnostic(const boost::spirit::x3::position_tagged& node, std::string_view id, std::string message) const;
  Diagnostic diagnostic(std::size_t file, std::size_t offset, std::string_view id, std::string message) const;
  Note note(const boost::spirit::x3::position_tagged& node, std::string message) const;
  // "file:line:col" of `node`: what ir::Layer::origin holds.
  std::string origin(const boost::spirit::x3::position_tagged& node) const;

 private:
  void read_imports(std::size_t file, const SourceReader& read, std::vector<std::size_t>& chain, std::size_t& bytes);
  std::size_t parse(std::string text, std::string path);
  void add_import_notes(std::size_t file, Diagnostic& d) const;

  PositionTable positions_;
  std::deque<File> files_;
  std::vector<std::size_t> dependency_order_;
};

}  // namespace ridge::lang::net
