#include "engine/note.hpp"

namespace ridge::engine {

std::string_view severity_name(Severity s) { return s == Severity::Warning ? "warning" : "note"; }

std::string as_message(const Note& n) {
  return std::string(severity_name(n.severity)) + ": " + n.text + (n.id.empty() ? "" : " [" + n.id + "]");
}

std::string line(const Note& n) { return n.severity == Severity::Warning ? "warning: " + n.text : n.text; }

std::vector<std::string> texts(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const Note& n : notes) out.push_back(n.text);
  return out;
}

}  // namespace ridge::engine
