// Positions and syntax-error recovery for the `.net` parser.
//
// Positions: X3's annotate_on_success hands every position_tagged node to tag(), which records its
// source range in a PositionTable shared by every file of one parse (a file and its imports), so the
// elaborator can later point diagnostics at a node, in whichever file it is.
//
// Recovery: the rules for one statement and one top-level item catch the expectation_failure thrown
// inside them and call recover(), which records the error and moves the parser to the next statement
// boundary, so one run reports many syntax errors instead of only the first. parse_network.cpp turns
// the recorded errors into lang::Diagnostics.
#pragma once

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include "lang/diagnostics.hpp"

#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ridge::lang::net {

// The first token at or after `at` (skipping blanks and `#` comments): where a syntax error points.
inline std::size_t token_start(std::string_view text, std::size_t at) {
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at]))) {
      ++at;
    } else if (text[at] == '#') {
      while (at < text.size() && text[at] != '\n') ++at;
    } else {
      break;
    }
  }
  return at;
}

// Where a statement that failed to parse ends, as a byte offset into `text`: the first newline at
// its own bracket depth at or after `error` (the first token the parser could not take), or the '}'
// that closes the enclosing body (left for the body to match), or the end of the text. Brackets are
// counted as precheck counts them (everywhere but in comments), and precheck has already checked
// that they balance, so the skip never runs past the end of the enclosing body.
inline std::size_t statement_end(std::string_view text, std::size_t from, std::size_t error) {
  int depth = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return i;
    } else if (c == '\n' && depth == 0 && i >= error) {
      return i + 1;
    }
  }
  return text.size();
}

// Where every tagged node of every file of one parse starts and ends, as byte offsets into its file.
// One table for all the files: a node's id is unique among them, and the files' ids are consecutive
// ranges in parse order (file k's from file_starts[k]), so a node alone says which file it is in.
class PositionTable {
 public:
  // Starts the next file; the nodes tagged from now on are its.
  void begin_file() { file_starts_.push_back(offsets_.size()); }
  template <typename Ast>
  void tag(Ast& ast, std::size_t first, std::size_t last) {
    if constexpr (std::is_base_of_v<boost::spirit::x3::position_tagged, Ast>) {
      ast.id_first = static_cast<int>(offsets_.size());
      offsets_.push_back(first);
      ast.id_last = static_cast<int>(offsets_.size());
      offsets_.push_back(last);
    }
  }
  // The file (in begin_file order) and byte offset of a node's first character, when it was tagged.
  struct Place {
    std::size_t file;
    std::size_t offset;
  };
  std::optional<Place> place_of(const boost::spirit::x3::position_tagged& node) const {
    if (node.id_first < 0 || static_cast<std::size_t>(node.id_first) >= offsets_.size()) return std::nullopt;
    const auto id = static_cast<std::size_t>(node.id_first);
    const auto file = std::upper_bound(file_starts_.begin(), file_starts_.end(), id) - file_starts_.begin() - 1;
    return Place{static_cast<std::size_t>(file), offsets_[id]};
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<std::size_t> file_starts_;
};

template <typename Iterator>
class ErrorHandler {
 public:
  // A syntax error as X3 reports it: where the expectation failed and what the rule expected.
  struct SyntaxError {
    std::size_t offset;
    std::string which;
  };

  // One handler per file parsed: it starts the file in `positions`.
  ErrorHandler(Iterator first, Iterator last, PositionTable& positions) : first_(first), last_(last), positions_(positions) {
    positions_.begin_file();
  }

  template <typename Ast>
  void tag(Ast& ast, Iterator first, Iterator last) {
    positions_.tag(ast, static_cast<std::size_t>(first - first_), static_cast<std::size_t>(last - first_));
  }

  // Called by a recovering rule whose statement starting at `first` failed at `where`: records the
  // error and moves `first` past the statement. A recovery that would not move the parser forward
  // (which would loop for ever) is refused: the error goes on to the enclosing rule. Past
  // kMaxRecoveries (lang/diagnostics.hpp) every rule refuses, so the exception ends the parse.
  boost::spirit::x3::error_handler_result recover(Iterator& first, Iterator where, const std::string& which) {
    if (error_count_ >= kMaxRecoveries) return boost::spirit::x3::error_handler_result::rethrow;
    const std::string_view text = source();
    const auto at = [&](Iterator i) { return static_cast<std::size_t>(i - first_); };
    const std::size_t error = token_start(text, at(where));
    const std::size_t resume = statement_end(text, at(first), error);
    if (resume <= token_start(text, at(first))) return boost::spirit::x3::error_handler_result::rethrow;
    // Only the ones that will be shown are kept: a file of garbage has one error per line.
    if (errors_.size() < kMaxErrors) errors_.push_back({at(where), which});
    ++error_count_;
    first = first_ + static_cast<std::ptrdiff_t>(resume);
    return boost::spirit::x3::error_handler_result::accept;
  }

  // The first kMaxErrors errors recover() met (in source order), and how many it met in all.
  const std::vector<SyntaxError>& syntax_errors() const { return errors_; }
  std::size_t syntax_error_count() const { return error_count_; }
  // Whether recovery gave up (kMaxRecoveries), leaving the rest of the file unread.
  bool gave_up() const { return error_count_ >= kMaxRecoveries; }

 private:
  std::string_view source() const {
    return first_ == last_ ? std::string_view() : std::string_view(&*first_, static_cast<std::size_t>(last_ - first_));
  }

  Iterator first_;
  Iterator last_;
  PositionTable& positions_;
  std::vector<SyntaxError> errors_;
  std::size_t error_count_ = 0;
};

}  // namespace ridge::lang::net
