// Diagnostics in clang's shape: `file:line:col: error: message`, the source line, a caret under the
// column, then `note:` lines. The language reports every error, syntactic or semantic, as one of these.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace ridge::lang {

struct SourceLocation {
  std::string file;
  int line = 0;     // 1-based; 0 = no position (e.g. a file that cannot be read)
  int column = 0;   // 1-based, in bytes
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

struct Note {
  SourceLocation where;
  std::string message;
  std::string source_line;
};

struct Diagnostic {
  SourceLocation where;
  std::string message;      // "expected ')' after the arguments of 'conv'"
  std::string source_line;  // the text of the offending line, without its newline
  std::vector<Note> notes;  // e.g. "block 'bottleneck' instantiated here"
};

// Renders one diagnostic the way clang does, caret and notes included, ending in a newline.
std::string render(const Diagnostic& d);

// The text of line `line` (1-based) of `text`, without its end of line; empty if there is none.
std::string line_of(const std::string& text, int line);

// At most this many errors are reported per file: every independent mistake at once, but not a wall
// of them when a file is not source text at all.
inline constexpr std::size_t kMaxErrors = 20;

// The first kMaxErrors of `shown` (diagnostics in source order) of `total` errors found; when some are
// left out, the last one shown gets a note saying how many ("file: note: 10 more errors not shown"),
// "at least" that many when the search stopped before the end (`counted_all` false).
std::vector<Diagnostic> limit_errors(std::vector<Diagnostic> shown, std::size_t total, bool counted_all = true);

// Everything the language front end rejects. Carries the diagnostics; what() is their rendering.
class Error : public std::runtime_error {
 public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace ridge::lang
