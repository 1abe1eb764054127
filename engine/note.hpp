// What the engine tells a reader beside its numbers, as a value (issue #34: diagnostics as values):
// how much it matters, a stable ID a script or a test can rely on instead of the wording, and the
// sentence. Reports, scaling tables, parallel plans, rooflines and the programs' own lines all carry
// notes this way; the table prints a warning as "warning: TEXT", JSON and CSV carry the three fields
// (the `notes` table), and a program's standard error prints as_message(). The front end's errors are
// lang::Diagnostic, with the same severities and ID scheme (docs/language.md, "Diagnostics").
//
// IDs: `<where>-<what>` in kebab case, where is run, report, scaling, parallel, link, roofline or
// trace (an imported graph's free nodes keep the front end's `onnx-free-node`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine {

enum class Severity { Note, Warning };
std::string_view severity_name(Severity s);   // "note", "warning"

struct Note {
  Severity severity = Severity::Note;
  std::string id;
  std::string text;
  friend bool operator==(const Note&, const Note&) = default;
};

inline Note note(std::string id, std::string text) { return {Severity::Note, std::move(id), std::move(text)}; }
inline Note warning(std::string id, std::string text) { return {Severity::Warning, std::move(id), std::move(text)}; }

// "warning: TEXT [ID]", as clang prints a flag: for standard error.
std::string as_message(const Note& n);
// The table's line: TEXT for a note, "warning: TEXT" for a warning.
std::string line(const Note& n);
// Every note's text, in order: for tests and messages that search the wording.
std::vector<std::string> texts(const std::vector<Note>& notes);

}  // namespace ridge::engine
