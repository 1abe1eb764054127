// Turning positions in the text into clang-style diagnostics: the syntax errors X3 throws
// (expectation_failure) and the checks' errors both go through Locator.
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

  // A diagnostic at `where`, with the source line and the column (1-based, in bytes).
  Diagnostic error(iterator where, std::string message) const {
    return map_.diagnostic(static_cast<std::size_t>(where - text_.begin()), std::move(message));
  }

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

inline Diagnostic expectation_diagnostic(const x3::expectation_failure<parser::iterator_type>& e,
                                         const Locator& locator) {
  const auto end = locator.text().end();
  const std::string message = "expected " + e.which();
  // Inside a string nothing is skipped: point at the very character (an unterminated string is
  // reported where its line ends).
  const bool in_string = e.which().find("close the string") != std::string::npos ||
                         e.which().find("an escape") != std::string::npos;
  if (in_string) {
    if (e.where() == end) return locator.error(e.where(), message + ", found the end of the file");
    if (*e.where() == '\n' || *e.where() == '\r') return locator.error(e.where(), message + ", found the end of the line");
    return locator.error(e.where(), message + ", found " + describe_byte(static_cast<unsigned char>(*e.where())));
  }
  if (locator.next_token_is_end(e.where()))
    return locator.error(locator.last_token_end(), message + ", found the end of the file");
  const auto where = locator.next_token(e.where());
  return locator.error(where, message + ", found " + describe_byte(static_cast<unsigned char>(*where)));
}

}  // namespace ridge::lang::hw
