// A `.hw` file reports every mistake at once, as a `.net` does: a syntax error skips the rest of its
// entry and parsing goes on with the next; the checks report every problem, in source order; at most
// kMaxErrors are shown, then a note says how many more. Each diagnostic carries its kind's ID.
#include "lang/diagnostic_ids.hpp"
#include "lang/parse.hpp"
#include "tests/hw/refuse.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

using ridge::lang::Diagnostic;
namespace diag = ridge::lang::diag;

namespace {

std::vector<Diagnostic> refuse(const std::string& text) { return ridge::testing::refuse_device(text); }

std::string rendered(const std::string& text) {
  try {
    ridge::lang::parse_device(text, "bad.hw");
  } catch (const ridge::lang::Error& e) {
    return e.what();
  }
  return "";
}

// A device whose body is `body`, after a kind and a sticky source.
std::string device(const std::string& body) {
  return "device \"x\" {\n  kind = gpu\n  source = \"test\"\n" + body + "}\n";
}

// `n` entries each missing its '=' (lines 4 .. n + 3).
std::string missing_equals(int n) {
  std::string body;
  for (int i = 0; i < n; ++i) body += "  peak.fp" + std::to_string(i) + " 1 TFLOP/s\n";
  return device(body);
}

struct Where {
  int line;
  int column;
};

void check_places(const std::vector<Diagnostic>& diagnostics, const std::vector<Where>& places) {
  REQUIRE(diagnostics.size() == places.size());
  for (std::size_t i = 0; i < places.size(); ++i) {
    CAPTURE(i, diagnostics[i].message);
    CHECK(diagnostics[i].where.file == "bad.hw");
    CHECK(diagnostics[i].where.line == places[i].line);
    CHECK(diagnostics[i].where.column == places[i].column);
  }
}

}  // namespace

TEST_CASE("independent syntax errors in a .hw are all reported, in order, where they are") {
  const std::string text =
      "device \"x\" {\n"
      "  kind = gpu\n"
      "  memory.size 40 GiB\n"                                      // 3:15 missing '='
      "  memory.bandwidth = 1555 GB/s source \"datasheet\n"         // 4:49 unterminated string
      "  @@@\n"                                                     // 5:3 not an entry
      "  ppp.matmul.compute = [1 GFLOP 0.6,\n"                     // 6:33 missing ':' ...
      "                        16 GFLOP: 0.9]\n"                    // ... in a curve over two lines
      "  launch_overhead = = 5 us\n"                                // 8:21 a second '='
      "  peak.fp32 = 19.5 TFLOP/s source \"sheet\"\n"              // fine
      "}\n";
  const auto diagnostics = refuse(text);
  check_places(diagnostics, {{3, 15}, {4, 49}, {5, 3}, {6, 33}, {8, 21}});
  for (const Diagnostic& d : diagnostics) {
    CHECK(d.id == diag::kHwSyntax);
    CHECK(d.severity == ridge::lang::Severity::Error);
    CHECK(d.notes.empty());
  }
  CHECK(diagnostics[0].message == "expected '=', found '4'");
  CHECK(diagnostics[1].message == "expected '\"' to close the string, found the end of the line");
  CHECK(diagnostics[2].message == "expected a key such as 'peak.fp32', or '}' to close the device, found '@'");
  CHECK(diagnostics[3].message == "expected ':', found '0'");
  CHECK_THAT(diagnostics[4].message, Catch::StartsWith("expected a value"));
  // Rendered one after another in clang's shape, each with its line and caret.
  CHECK_THAT(rendered(text), Catch::StartsWith("bad.hw:3:15: error: expected '=', found '4' [hw-syntax]\n"
                                               "  memory.size 40 GiB\n"
                                               "              ^\n"
                                               "bad.hw:4:49: error: expected '\"' to close the string, found the end of "
                                               "the line [hw-syntax]\n"));
}

TEST_CASE("a .hw syntax error is reported once, not again by the entries after it") {
  // A brace inside an entry, a stray word and a value on its own: one error each.
  check_places(refuse("device \"x\" {\n  kind = gpu {\n}\n"), {{2, 14}});
  check_places(refuse(device("  = 5 GiB\n  peak.fp32 = 1 TFLOP/s\n")), {{4, 3}});
  // A '}' or '#' inside a string ends nothing: the skip goes on to the end of the line.
  check_places(refuse(device("  provenance = 3 \"a } b # c\"\n  memory.size 1 GiB\n")), {{4, 18}, {5, 15}});
  // A word left alone on its line: X3 expects its '=' at the next token; that line is still read.
  check_places(refuse(device("  stray\n  memory.size 1 GiB\n")), {{5, 3}, {5, 15}});
  // Cut short: the error says what was found at the end, once.
  check_places(refuse("device \"x\" {\n  kind = gpu\n  memory.size ="), {{3, 16}});
  check_places(refuse("device \"x\" {\n  kind =\n"), {{2, 9}});
  // An error outside any entry ends the parse, after the entries' errors.
  check_places(refuse("device \"x\" {\n  kind gpu\n}\n}\n"), {{2, 8}, {4, 1}});
}

TEST_CASE("a file with .hw syntax errors is not checked further") {
  // The unknown key and the missing source would be errors, but the syntax error comes first.
  const auto diagnostics = refuse(device("  frequency = 1 GHz\n  memory.size 40 GiB\n"));
  check_places(diagnostics, {{5, 15}});
}

TEST_CASE("twenty-five .hw syntax errors show the first twenty and say how many more there are") {
  const auto diagnostics = refuse(missing_equals(25));
  REQUIRE(diagnostics.size() == ridge::lang::kMaxErrors);
  for (std::size_t i = 0; i < diagnostics.size(); ++i) CHECK(diagnostics[i].where.line == static_cast<int>(i) + 4);
  REQUIRE(diagnostics.back().notes.size() == 1);
  CHECK(diagnostics.back().notes[0].message == "5 more errors not shown (at most 20 are reported)");
  CHECK_THAT(rendered(missing_equals(25)), Catch::EndsWith("bad.hw: note: 5 more errors not shown (at most 20 are reported)\n"));
  CHECK(refuse(missing_equals(20)).back().notes.empty());
}

TEST_CASE("a .hw of garbage lines ends in errors quickly, and recovery gives up after 10,000") {
  std::string body;
  for (int i = 0; i < 200'000; ++i) body += "  @\n";
  const auto start = std::chrono::steady_clock::now();
  const std::string error = rendered(device(body));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK_THAT(error, Catch::EndsWith("bad.hw: note: at least 9980 more errors not shown (at most 20 are reported)\n"));
}

TEST_CASE("the checks report every problem of a .hw in source order, capped at twenty with a note") {
  // The whole-file check (no kind, reported at the device) comes first: it points at line 1.
  const auto diagnostics = refuse(
      "device \"x\" {\n"
      "  source = \"s\"\n"
      "  memory.size = 1555 GB/s\n"        // 3:22 unit of the wrong dimension
      "  peak.fp32 = 0 TFLOP/s\n"          // 4:15 not positive
      "  frequency = 1 GHz\n"              // 5:3 unknown key
      "  memory.size = 40 GiB\n"           // 6:3 duplicate
      "}\n");
  check_places(diagnostics, {{1, 1}, {3, 22}, {4, 15}, {5, 3}, {6, 3}});
  CHECK(diagnostics[0].id == diag::kHwIncomplete);
  CHECK(diagnostics[1].id == diag::kHwUnit);
  CHECK(diagnostics[2].id == diag::kHwRange);
  CHECK(diagnostics[3].id == diag::kHwUnknownKey);
  CHECK(diagnostics[4].id == diag::kHwDuplicateKey);
  REQUIRE(diagnostics[4].notes.size() == 1);
  CHECK(diagnostics[4].notes[0].where.line == 3);

  std::string many;
  for (int i = 0; i < 30; ++i) many += "  unknown" + std::to_string(i) + " = 1\n";
  const auto capped = refuse("device \"x\" {\n" + many + "}\n");   // 30 unknown keys and no kind
  REQUIRE(capped.size() == ridge::lang::kMaxErrors);
  CHECK(capped.front().where.line == 1);   // the missing kind, first in source order
  CHECK(capped.back().where.line == 20);
  CHECK(capped.back().notes.at(0).message == "11 more errors not shown (at most 20 are reported)");
}

TEST_CASE("each kind of .hw mistake carries its own ID") {
  // clang-format off
  const auto [body, id] = GENERATE(table<std::string, std::string_view>({
    {"  peak.fp2 = 1 TFLOP/s\n", diag::kHwUnknownKey},
    {"  ppp.conv.compute = 0.5\n", diag::kHwUnknownKey},
    {"  peak.fp32 = \"fast\"\n", diag::kHwValue},
    {"  system.count = 2.5\n", diag::kHwValue},
    {"  memory.size = 40\n", diag::kHwUnit},
    {"  peak.fp32 = 19.5 TFLOPS\n", diag::kHwUnit},
    {"  ppp.matmul.compute = 1.5\n", diag::kHwRange},
    {"  memory.size = inf GiB\n", diag::kHwRange},
    {"  link.ib.latency = 1 us\n", diag::kHwIncomplete},
    {"  system.count = 8\n", diag::kHwIncomplete},
  }));
  // clang-format on
  CAPTURE(body);
  CHECK(refuse(device(body)).front().id == id);
  CHECK(refuse("device \"x\" {\n  kind = gpu\n  peak.fp32 = 1 TFLOP/s\n}\n").front().id == diag::kHwNoSource);
  CHECK(refuse("device \"x\" {\n  kind = gpux\n}\n").front().id == diag::kHwValue);
}
