#include "lang/diagnostics.hpp"

#include <algorithm>
#include <utility>

namespace ridge::lang {
namespace {

// Text from inputs (file names, names quoted in messages) made safe for a terminal: control bytes
// (escape sequences are made of them) and C1 controls become '?', and a message is cut at kMaxMessage
// bytes, a source line shown as kMaxShown bytes around the column, so a 1.5 MB identifier does not
// come back three times over.
constexpr std::size_t kMaxShown = 1000;
constexpr std::size_t kMaxMessage = 2000;
std::string visible(std::string s, bool cut = true) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7F) s[i] = '?';
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      s[i] = '?';
      s.erase(i + 1, 1);
    }
  }
  if (cut && s.size() > kMaxMessage) {
    std::size_t at = kMaxMessage;
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
    s = s.substr(0, at) + "... (" + std::to_string(s.size()) + " bytes)";
  }
  return s;
}

std::string location_prefix(const SourceLocation& where) {
  std::string s = where.file.empty() ? std::string("<input>") : visible(where.file);
  if (where.line > 0) s.append(":").append(std::to_string(where.line)).append(":").append(std::to_string(where.column));
  return s.append(": ");
}

// The source line (control bytes shown as spaces so the caret stays aligned) and a caret under the
// column; tabs are kept so the caret lines up in a terminal.
std::string quote(const std::string& source_line, int column) {
  if (source_line.empty() && column <= 1) return "";
  std::string shown = source_line;
  for (char& c : shown)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F) c = ' ';
  // A long line is shown as a window around the column, so the caret line stays short too.
  int col = column;
  if (shown.size() > 2 * kMaxShown) {
    const std::size_t at = static_cast<std::size_t>(std::max(1, column) - 1);
    const std::size_t from = at > kMaxShown / 2 ? at - kMaxShown / 2 : 0;
    shown = (from > 0 ? "..." : "") + shown.substr(from, kMaxShown) + "...";
    col = static_cast<int>(at - from) + 1 + (from > 0 ? 3 : 0);
  }
  std::string caret;
  const int upto = std::max(0, col - 1);
  for (int i = 0; i < upto; ++i) caret += (i < static_cast<int>(shown.size()) && shown[i] == '\t') ? '\t' : ' ';
  return shown + "\n" + caret + "^\n";
}

}  // namespace

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::Error: break;
  }
  return "error";
}

Diagnostic file_diagnostic(std::string file, std::string_view id, std::string message, Severity severity) {
  Diagnostic d;
  d.where.file = std::move(file);
  d.message = std::move(message);
  d.severity = severity;
  d.id = std::string(id);
  return d;
}

std::string render(const Diagnostic& d) {
  std::string out = location_prefix(d.where);
  out.append(severity_name(d.severity)).append(": ").append(visible(d.message));
  if (!d.id.empty()) out.append(" [").append(visible(d.id)).append("]");
  out += "\n";
  // No quoted line where none is kept (a file that is not source text: its lines are not echoed).
  if (d.where.line > 0 && !d.source_line.empty()) out += quote(d.source_line, d.where.column);
  for (const Note& n : d.notes) {
    out += location_prefix(n.where) + "note: " + visible(n.message) + "\n";
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

std::vector<Diagnostic> limit_errors(std::vector<Diagnostic> shown, std::size_t total, bool counted_all) {
  if (shown.size() > kMaxErrors) shown.resize(kMaxErrors);
  if (shown.empty() || total <= shown.size()) return shown;
  const std::size_t more = total - shown.size();
  // A note without a position renders as "file: note: ...", after the last error shown.
  Note note;
  note.where.file = shown.back().where.file;
  note.message = (counted_all ? "" : "at least ") + std::to_string(more) + " more error" + (more == 1 ? "" : "s") +
                 " not shown (at most " + std::to_string(kMaxErrors) + " are reported)";
  shown.back().notes.push_back(std::move(note));
  return shown;
}

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error([&] {
        std::string s;
        for (const auto& d : diagnostics) s += render(d);
        return s;
      }()),
      diagnostics_(std::move(diagnostics)) {}

}  // namespace ridge::lang
