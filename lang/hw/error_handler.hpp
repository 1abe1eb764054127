// Turning positions in the text into clang-style diagnostics: the syntax errors X3 throws
// (expectation_failure, or recorded by recovery.hpp) and the checks' errors both go through Locator.
#pragma once

#include "lang/diagnostics.hpp"
#include "lang/hw/config.hpp"
#include "lang/source_map.hpp"

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>

#include <string>

namespace ridge::lang::hw {

namespace x3 = boost::spirit::x3;

class Locator {
 public:
  using iterator = parser::iterator_type;
  Locator(const std::string& text, std::string file) : text_(text), map_(std::move(file), text) {}

  const std::string& text() const { return text_; }
  const std::string& file() const { return map_.file(); }

  // A diagnostic of kind `id` at `where`, with the source line and the column (1-based, in bytes).
  Diagnostic error(iterator where, std::string_view id, std::string message) const {
    return map_.diagnostic(offset(where), id, std::move(message));
  }
  Note note(iterator where, std::string message) const { return map_.note(offset(where), std::move(message)); }

  // The first token at or after `where`: X3 reports a failed expectation where the previous token
  // ended, but the reader wants the caret under what is wrong. At the end of the file there is no
  // next token, so the caret stays just after the last one ("expected '}'" after `kind = gpu`).
  iterator next_token(iterator where) const {
    const iterator i = skipped(where);
    return i == text_.end() ? where : i;
  }
  bool next_token_is_end(iterator where) const { return skipped(where) == text_.end(); }

  // Just after the file's last token (its start if it has none): where "found the end of the file"
  // is reported, rather than on an empty last line or after a trailing comment.
  iterator last_token_end() const {
    iterator after_last = text_.begin();
    for (iterator i = skipped(text_.begin()); i != text_.end(); i = skipped(i)) after_last = ++i;
    return after_last;
  }

 private:
  std::size_t offset(iterator where) const { return static_cast<std::size_t>(where - text_.begin()); }
  iterator skipped(iterator where) const {
    x3::skip_over(where, text_.end(), x3::make_context<x3::skipper_tag>(parser::skipper));
    return where;
  }

  const std::string& text_;
  SourceMap map_;
};

// Built by appending, not `"..." + std::string(...)`: GCC 12 warns falsely on that (-Wrestrict,
// GCC bug 105329).
inline std::string describe_byte(unsigned char c) {
  std::string out;
  if (c >= 0x20 && c < 0x7f) {
    out += '\'';
    out += static_cast<char>(c);
    out += '\'';
    return out;
  }
  const char* digits = "0123456789abcdef";
  out = "byte 0x";
  out += digits[c >> 4];
  out += digits[c & 15];
  return out;
}

// "expected WHICH, found ...": a syntax error where X3's expectation `which` failed at `where`.
inline Diagnostic syntax_diagnostic(parser::iterator_type where, const std::string& which, const Locator& locator) {
  const auto end = locator.text().end();
  const std::string message = "expected " + which;
  const auto error = [&](parser::iterator_type at, const std::string& found) {
    return locator.error(at, diag::kHwSyntax, message + ", found " + found);
  };
  // Inside a string nothing is skipped: point at the very character (an unterminated string is
  // reported where its line ends).
  const bool in_string = which.find("close the string") != std::string::npos || which.find("an escape") != std::string::npos;
  if (in_string) {
    if (where == end) return error(where, "the end of the file");
    if (*where == '\n' || *where == '\r') return error(where, "the end of the line");
    return error(where, describe_byte(static_cast<unsigned char>(*where)));
  }
  if (locator.next_token_is_end(where)) return error(locator.last_token_end(), "the end of the file");
  const auto at = locator.next_token(where);
  return error(at, describe_byte(static_cast<unsigned char>(*at)));
}

}  // namespace ridge::lang::hw
