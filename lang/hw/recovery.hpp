// Syntax-error recovery for the `.hw` parser, as `.net` has it (lang/net/error_handler.hpp): an entry
// that fails to parse is recorded and skipped, and parsing goes on with the next, so one run reports
// every syntax error of a file (up to kMaxErrors, the rest counted) instead of only the first.
// parse_device.cpp turns the recorded errors into lang::Diagnostics.
#pragma once

#include "lang/diagnostics.hpp"
#include "lang/hw/config.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::lang::hw::parser {

// Where an entry that failed to parse ends, as a byte offset into `text`: just after the end of the
// line on which it starts at `from` (its first token), unless a curve's '[' is still open there (a
// curve may span lines); or at a '}', left for the device to close; or at the end of the text. A
// `.hw` is written an entry a line, so the line is the entry, wherever on it (or after it: X3 points
// at the next token) the error lies. Strings and comments are stepped over as the grammar reads them:
// a '}' or '#' inside "..." ends nothing, and a string ends with its line.
inline std::size_t entry_end(std::string_view text, std::size_t from) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      in_string = false;
      if (depth == 0) return i + 1;
    } else if (in_string) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      depth = std::max(0, depth - 1);
    } else if (c == '}') {
      return i;
    }
  }
  return text.size();
}

// What the grammar's context carries: the positions of the AST's nodes, and the syntax errors that
// the entries recovered from.
class ParseState {
 public:
  // A syntax error as X3 reports it: where the expectation failed and what the rule expected.
  struct SyntaxError {
    iterator_type where;
    std::string which;
  };

  explicit ParseState(const std::string& text) : text_(text), positions_(text.begin(), text.end()) {}

  position_cache& positions() { return positions_; }
  const position_cache& positions() const { return positions_; }

  // Called by the entry whose text starting at `first` failed at `where`: records the error and moves
  // `first` past the entry (entry_end). A recovery is refused (the error goes on and ends the parse)
  // when it would not move the parser forward, which would loop for ever, or when nothing but blanks
  // and comments would be left: the device is not closed, and the error at hand already says what
  // was found instead. Past kMaxRecoveries every recovery is refused.
  x3::error_handler_result recover(iterator_type& first, iterator_type where, const std::string& which) {
    if (error_count_ >= kMaxRecoveries) return x3::error_handler_result::rethrow;
    const auto at = [&](iterator_type i) { return static_cast<std::size_t>(i - text_.begin()); };
    const std::size_t start = at(skipped(first));
    const std::size_t resume = entry_end(text_, start);
    const iterator_type next = text_.begin() + static_cast<std::ptrdiff_t>(resume);
    if (resume <= start || skipped(next) == text_.end()) return x3::error_handler_result::rethrow;
    // Only the ones that will be shown are kept: a file of garbage has one error per line.
    if (errors_.size() < kMaxErrors) errors_.push_back({where, which});
    ++error_count_;
    first = next;
    return x3::error_handler_result::accept;
  }

  // The first kMaxErrors errors recover() met (in source order), and how many it met in all.
  const std::vector<SyntaxError>& syntax_errors() const { return errors_; }
  std::size_t syntax_error_count() const { return error_count_; }
  // Whether recovery gave up (kMaxRecoveries), leaving the rest of the file unread.
  bool gave_up() const { return error_count_ >= kMaxRecoveries; }

 private:
  iterator_type skipped(iterator_type where) const {
    x3::skip_over(where, text_.end(), x3::make_context<x3::skipper_tag>(skipper));
    return where;
  }

  const std::string& text_;
  position_cache positions_;
  std::vector<SyntaxError> errors_;
  std::size_t error_count_ = 0;
};

}  // namespace ridge::lang::hw::parser
