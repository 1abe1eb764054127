// Diagnostics in clang's shape: `file:line:col: error: message [id]`, the source line, a caret under
// the column, then `note:` lines. The language reports every error, syntactic or semantic, as one of
// these: a value (severity, stable ID, location, message, notes) that a consumer renders or inspects.
#pragma once

#include "lang/diagnostic_ids.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
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

enum class Severity { Error, Warning, Note };
std::string_view severity_name(Severity s);   // "error", "warning", "note": as rendered

// Severity and ID come last so that `Diagnostic{where, message, line, notes}` still reads as before;
// the front end builds them through SourceMap::diagnostic() and file_diagnostic(), which set an ID.
struct Diagnostic {
  SourceLocation where;
  std::string message;      // "expected ')' after the arguments of 'conv'"
  std::string source_line;  // the text of the offending line, without its newline
  std::vector<Note> notes;  // e.g. "block 'bottleneck' instantiated here"
  Severity severity = Severity::Error;
  std::string id;           // stable, one of diag::kAll ("hw-syntax"); empty if made outside the front end
};

// A diagnostic about a whole file (no line or column): a file that cannot be read, a binary model.
Diagnostic file_diagnostic(std::string file, std::string_view id, std::string message,
                           Severity severity = Severity::Error);

// Renders one diagnostic the way clang does, caret and notes included, ending in a newline. The ID
// closes the first line in brackets, where clang names a warning's flag: `file:3:7: error: ... [hw-syntax]`.
std::string render(const Diagnostic& d);

// The text of line `line` (1-based) of `text`, without its end of line; empty if there is none.
std::string line_of(const std::string& text, int line);

// At most this many errors are reported per file: every independent mistake at once, but not a wall
// of them when a file is not source text at all.
inline constexpr std::size_t kMaxErrors = 20;

// Syntax-error recovery (both languages) stops after this many errors: each leaves a node in the tree
// (a file of 2-byte garbage lines would cost hundreds of MB) and costs an exception. Past it, how many
// errors the rest of the file holds is not known, and the report says "at least".
inline constexpr std::size_t kMaxRecoveries = 10'000;

// The first kMaxErrors of `shown` (diagnostics in source order) of `total` errors found; when some are
// left out, the last one shown gets a note saying how many ("file: note: 10 more errors not shown"),
// "at least" that many when the search stopped before the end (`counted_all` false).
std::vector<Diagnostic> limit_errors(std::vector<Diagnostic> shown, std::size_t total, bool counted_all = true);

// Everything the language front end rejects. Carries the diagnostics (errors, in source order); what()
// is their rendering.
class Error : public std::runtime_error {
 public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace ridge::lang
