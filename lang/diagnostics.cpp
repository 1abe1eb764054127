#include "diagnostics.hpp"

#include <algorithm>

namespace ridge::lang {
namespace {

std::string location_prefix(const SourceLocation& where) {
  std::string s = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) s.append(":").append(std::to_string(where.line)).append(":").append(std::to_string(where.column));
  return s.append(": ");
}

// The source line (control bytes shown as spaces so the caret stays aligned) and a caret under the
// column; tabs are kept so the caret lines up in a terminal.
std::string quote(const std::string& source_line, int column) {
  if (source_line.empty() && column <= 1) return "";
  std::string shown = source_line;
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = ' ';
  std::string caret;
  const int upto = std::max(0, column - 1);
  for (int i = 0; i < upto; ++i) caret += (i < static_cast<int>(shown.size()) && shown[i] == '\t') ? '\t' : ' ';
  return shown + "\n" + caret + "^\n";
}

}  // namespace

std::string render(const Diagnostic& d) {
  std::string out = location_prefix(d.where) + "error: " + d.message + "\n";
  if (d.where.line > 0) out += quote(d.source_line, d.where.column);
  for (const Note& n : d.notes) {
    out += location_prefix(n.where) + "note: " + n.message + "\n";
    if (n.where.line > 0) out += quote(n.source_line, n.where.column);
  }
  return out;
}

std::string line_of(const std::string& text, int line) {
  if (line < 1) return "";
  std::size_t begin = 0;
  for (int i = 1; i < line; ++i) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return "";
    ++begin;
  }
  std::size_t end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  return text.substr(begin, end - begin);
}

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error([&] {
        std::string s;
        for (const auto& d : diagnostics) s += render(d);
        return s;
      }()),
      diagnostics_(std::move(diagnostics)) {}

}  // namespace ridge::lang
