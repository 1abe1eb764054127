// Diagnostics as values: a severity, a stable ID per kind of mistake, a location and notes; rendered
// in clang's shape with the ID closing the message line. The IDs docs/language.md lists are the ones
// the code has, and each kind of `.net` mistake carries its own.
#include "lang/diagnostic_ids.hpp"
#include "lang/diagnostics.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace ridge;

namespace {

lang::Diagnostic at_line(lang::Severity severity, std::string id) {
  lang::Diagnostic d;
  d.where = {"a.net", 3, 7};
  d.message = "something is wrong";
  d.source_line = "  x = y -> z";
  d.severity = severity;
  d.id = std::move(id);
  return d;
}

// The first diagnostic of a `.net` text that must be refused.
lang::Diagnostic first_error(const std::string& text) {
  try {
    lang::parse_network(text, "bad.net");
  } catch (const lang::Error& e) {
    REQUIRE_FALSE(e.diagnostics().empty());
    return e.diagnostics().front();
  }
  FAIL("accepted a text that should have been refused:\n" << text);
  return {};
}

// A network around one statement.
std::string with(const std::string& statement) { return "network n {\n  input x: [3, 8, 8]\n  " + statement + "\n}\n"; }

}  // namespace

TEST_CASE("a diagnostic renders its severity, then its ID at the end of the message line") {
  lang::Diagnostic d = at_line(lang::Severity::Error, "net-syntax");
  lang::Note note;   // named, not a braced temporary: GCC 12 warns falsely on that (-Wmaybe-uninitialized)
  note.where = {"a.net", 1, 1};
  note.message = "from here";
  note.source_line = "network n {";
  d.notes.push_back(std::move(note));
  CHECK(lang::render(d) ==
        "a.net:3:7: error: something is wrong [net-syntax]\n  x = y -> z\n      ^\n"
        "a.net:1:1: note: from here\nnetwork n {\n^\n");
  CHECK_THAT(lang::render(at_line(lang::Severity::Warning, "onnx-free-node")),
             Catch::StartsWith("a.net:3:7: warning: something is wrong [onnx-free-node]\n"));
  CHECK_THAT(lang::render(at_line(lang::Severity::Note, "")), Catch::StartsWith("a.net:3:7: note: something is wrong\n"));
  // A diagnostic without an ID (made outside the front end) keeps the plain message line.
  CHECK_THAT(lang::render(at_line(lang::Severity::Error, "")), Catch::StartsWith("a.net:3:7: error: something is wrong\n"));
  const lang::Diagnostic whole = lang::file_diagnostic("m.onnx", lang::diag::kOnnxCorrupt, "not a model");
  CHECK(whole.where.line == 0);
  CHECK(whole.severity == lang::Severity::Error);
  CHECK(lang::render(whole) == "m.onnx: error: not a model [onnx-corrupt]\n");
  CHECK(lang::severity_name(lang::Severity::Warning) == "warning");
}

namespace {
// `<where>-<kind>`: where is file, net, hw, onnx or trace; then lower-case words joined by single hyphens.
// (Written out rather than with std::regex, whose GCC 12 headers warn under the ASan build.)
bool kebab_under_front_end(std::string_view id) {
  bool known = false;
  for (const std::string_view where : {"file-", "net-", "hw-", "onnx-", "trace-"}) known = known || id.starts_with(where);
  if (!known || id.ends_with('-')) return false;
  for (std::size_t i = 0; i < id.size(); ++i)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] == '-' && i > 0 && id[i - 1] != '-'))) return false;
  return true;
}
}  // namespace

TEST_CASE("the IDs are unique, kebab-case under their front end, and docs/language.md lists exactly them") {
  std::set<std::string> code;
  for (const std::string_view id : lang::diag::kAll) {
    CHECK(kebab_under_front_end(id));
    CHECK(code.insert(std::string(id)).second);
  }
  CHECK_FALSE(kebab_under_front_end("net--syntax"));
  CHECK_FALSE(kebab_under_front_end("gpu-syntax"));
  CHECK_FALSE(kebab_under_front_end("hw-Syntax"));
  // The table of the page's "Diagnostics" section: one row per ID, the ID first in backticks.
  const std::string doc = lang::read_source(std::string(RIDGE_SOURCE_DIR) + "/docs/language.md");
  const auto section = doc.find("\n## Diagnostics");
  REQUIRE(section != std::string::npos);
  const auto end = doc.find("\n## ", section + 1);
  const std::string text = doc.substr(section, end - section);
  std::set<std::string> documented;
  for (std::size_t at = text.find("\n| `"); at != std::string::npos; at = text.find("\n| `", at + 1)) {
    const std::size_t open = at + 4, close = text.find('`', open);
    if (close == std::string::npos) break;
    const std::string id = text.substr(open, close - open);
    if (kebab_under_front_end(id) && text.compare(close, 3, "` |") == 0) documented.insert(id);
  }
  CHECK(documented == code);
}

TEST_CASE("each kind of .net mistake carries its own ID") {
  // clang-format off
  const auto [text, id] = GENERATE(table<std::string, std::string_view>({
    {"network n {\n  input x: [4]\n  y x\n}\n", lang::diag::kNetSyntax},
    {"network n {\n  input x: [4)\n}\n", lang::diag::kNetBrackets},
    {"network n {\n  input x: [4]\n  return x\n}\n}\n", lang::diag::kNetBrackets},
    {"network n {\n  input x: [4] \x01\n}\n", lang::diag::kNetText},
    {"network n {\n  input x: [4] \xc3\xa9\n}\n", lang::diag::kNetText},
    {with("return x -> cnv(8, 3)"), lang::diag::kNetUnknownOp},
    {with("return y -> relu"), lang::diag::kNetUnknownName},
    {"block b(x) { return x }\nblock b(y) { return y }\n" + with("return b(x)"), lang::diag::kNetDefinition},
    {with("return x -> conv(8, 3, strid: 2)"), lang::diag::kNetArgument},
    {with("return x -> conv(8)"), lang::diag::kNetArgument},
    {with("return x -> conv(x, 3)"), lang::diag::kNetType},
    {with("return x -> conv(8.5, 3)"), lang::diag::kNetType},
    {with("k = [1, 2][5]\n  return x"), lang::diag::kNetValue},
    {with("k = 1 / 0\n  return x"), lang::diag::kNetValue},
    {with("return x -> conv(8, 3, groups: 5)"), lang::diag::kNetShape},
    {"network n {\n  input x: [4]\n}\n", lang::diag::kNetStructure},
    {"block b(x) { y = x }\n" + with("return b(x)"), lang::diag::kNetStructure},
    {"block b(x) { return b(x) }\n" + with("return b(x)"), lang::diag::kNetRecursion},
    {with("for i in 0 .. 100000000 { x = x }\n  return x"), lang::diag::kNetLimit},
  }));
  // clang-format on
  CAPTURE(text);
  const lang::Diagnostic d = first_error(text);
  CHECK(d.id == id);
  CHECK(d.severity == lang::Severity::Error);
  CHECK_THAT(lang::render(d), Catch::Contains(" [" + std::string(id) + "]\n"));
}

TEST_CASE("a --set that names no parameter is net-override, files that cannot be read are file-*") {
  try {
    lang::parse_network(with("return x"), "n.net", {{"depth", "3"}});
    FAIL("accepted --set depth=3");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kNetOverride);
  }
  try {
    lang::load_network("/nonexistent/n.net");
    FAIL("read a missing file");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kFileUnreadable);
    CHECK_THAT(e.what(), Catch::EndsWith("[file-unreadable]\n"));
  }
  const auto binary = std::filesystem::temp_directory_path() / "ridge-diagnostics-binary.net";
  std::ofstream(binary, std::ios::binary) << std::string("network n {\0}", 13);
  try {
    lang::load_network(binary.string());
    FAIL("read a binary file");
  } catch (const lang::Error& e) {
    CHECK(e.diagnostics().front().id == lang::diag::kFileBinary);
  }
  std::filesystem::remove(binary);
}
