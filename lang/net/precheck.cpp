#include "lang/net/precheck.hpp"

#include <cstdio>
#include <vector>

namespace ridge::lang::net {
namespace {

char closer_of(char opener) {
  switch (opener) {
    case '(': return ')';
    case '[': return ']';
    default: return '}';
  }
}

std::string hex(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

[[noreturn]] void fail(const SourceMap& source, std::size_t at, std::string_view id, std::string message) {
  throw Error({source.diagnostic(at, id, std::move(message))});
}

}  // namespace

void precheck(const SourceMap& source) {
  const std::string& text = source.text();
  struct Open {
    char c;
    std::size_t at;
  };
  // '?' counts as nesting too: the grammar recurses into the middle of `c ? a : b`.
  std::vector<Open> open;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') {
        if (text[i] == '\0') fail(source, i, diag::kFileBinary, "NUL byte: this looks like a binary file, not source text");
        ++i;
      }
      continue;
    }
    if (c == '\0') fail(source, i, diag::kFileBinary, "NUL byte: this looks like a binary file, not source text");
    if (c >= 0x80)
      fail(source, i, diag::kNetText, "non-ASCII byte " + hex(c) + " outside a comment: .net source text is ASCII");
    if ((c < 0x20 || c == 0x7F) && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
      fail(source, i, diag::kNetText, "control character " + hex(c) + " in source text");
    if (c == '(' || c == '[' || c == '{' || c == '?') {
      open.push_back({static_cast<char>(c), i});
      if (++depth > kMaxNesting)
        fail(source, i, diag::kNetLimit, "nesting is deeper than " + std::to_string(kMaxNesting) +
                            " levels (brackets, blocks and '?:' together); expected at most " +
                            std::to_string(kMaxNesting));
    } else if (c == ':') {
      if (!open.empty() && open.back().c == '?') {
        open.pop_back();
        --depth;
      }
    } else if (c == ')' || c == ']' || c == '}') {
      while (!open.empty() && open.back().c == '?') {
        open.pop_back();
        --depth;
      }
      if (open.empty())
        fail(source, i, diag::kNetBrackets, std::string("unexpected '") + static_cast<char>(c) + "' with nothing open to close");
      const Open o = open.back();
      if (closer_of(o.c) != static_cast<char>(c)) {
        const SourceLocation ol = source.location(o.at);
        Diagnostic d = source.diagnostic(i, diag::kNetBrackets,
                                         std::string("expected '") + closer_of(o.c) + "' to close the '" + o.c +
                                             "' at line " + std::to_string(ol.line) + ", found '" +
                                             static_cast<char>(c) + "'");
        d.notes.push_back(source.note(o.at, std::string("to match this '") + o.c + "'"));
        throw Error({std::move(d)});
      }
      open.pop_back();
      --depth;
    }
  }
  while (!open.empty() && open.back().c == '?') open.pop_back();
  if (!open.empty()) {
    const Open o = open.back();
    const SourceLocation ol = source.location(o.at);
    Diagnostic d = source.diagnostic(source.end_of_text(), diag::kNetBrackets,
                                     std::string("expected '") + closer_of(o.c) + "' to close the '" + o.c +
                                         "' at line " + std::to_string(ol.line) + " before the end of the file");
    d.notes.push_back(source.note(o.at, std::string("to match this '") + o.c + "'"));
    throw Error({std::move(d)});
  }
}

}  // namespace ridge::lang::net
