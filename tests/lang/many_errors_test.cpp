// A `.net` file with several mistakes reports them all at once (at most kMaxErrors, then how many more),
// each as file:line:col with the line and a caret, and recovery from one never hangs or cascades.
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace ridge;

namespace {

// How many times `what` occurs in `text`.
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A network whose body has `n` statements each missing its '=' (`y0 x`, `y1 x`, ...).
std::string missing_equals(int n) {
  std::string text = "network n {\n  input x: [4]\n";
  for (int i = 0; i < n; ++i) text += "  y" + std::to_string(i) + " x\n";
  return text + "  return x\n}\n";
}

// Parses `text` and fails the test unless it is refused within `limit`.
std::string refused_quickly(const std::string& text, std::chrono::seconds limit = std::chrono::seconds(10)) {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = test::error_of(text);
  CHECK(std::chrono::steady_clock::now() - start < limit);
  CHECK_FALSE(error.empty());
  return error;
}

}  // namespace

TEST_CASE("three independent syntax errors are all reported, in order, where they are") {
  const std::string error = test::error_of(
      "network n {\n"
      "  input x: [4]\n"
      "  y x\n"                             // 3:5 missing '='
      "  z = x -> linear(4 4)\n"            // 4:21 missing ','
      "  w = (1 + )\n"                      // 5:12 missing operand
      "  return x\n"
      "}\n");
  CHECK(error ==
        "bad.net:3:5: error: expected '=', found 'x' [net-syntax]\n  y x\n    ^\n"
        "bad.net:4:21: error: expected ')', found '4' [net-syntax]\n  z = x -> linear(4 4)\n                    ^\n"
        "bad.net:5:12: error: expected expression, found ')' [net-syntax]\n  w = (1 + )\n           ^\n");
}

TEST_CASE("syntax errors in nested bodies, headers and at the top level are each reported once") {
  const std::string error = test::error_of(
      "network n {\n"
      "  input x: [4]\n"
      "  if true {\n"
      "    y x\n"                                   // 4:7
      "    for i in 0 .. 3 { z = (1 + ) }\n"        // 5:32
      "  }\n"
      "  q = [1, 2\n"
      "       3]\n"                                 // 8:8, inside a list spanning lines
      "  return x ->\n"
      "}\n"                                         // 10:1 chain cut short
      "block b(x y) {\n"                            // 11:11, the whole block skipped
      "  return x x x\n"
      "}\n"
      "netwrk m {}\n"                               // 14:1
      "c =\n");                                     // 15:4
  INFO(error);
  CHECK(count(error, ": error: ") == 7);
  std::size_t at = 0;
  for (const char* where : {"bad.net:4:7: error: expected '='", "bad.net:5:32: error: expected expression",
                            "bad.net:8:8: error: expected ']'", "bad.net:10:1: error: expected op or block name",
                            "bad.net:11:11: error: expected ')'", "bad.net:14:1: error: expected 'import', 'block', 'network'",
                            "bad.net:15:4: error: expected expression, found end of file"}) {
    const std::size_t next = error.find(where, at);
    CHECK(next != std::string::npos);
    if (next != std::string::npos) at = next;
  }
}

TEST_CASE("thirty errors show the first twenty and say how many more there are") {
  const std::string error = test::error_of(missing_equals(30));
  CHECK(count(error, ": error: ") == 20);
  CHECK_THAT(error, Catch::StartsWith("bad.net:3:6: error: expected '=', found 'x' [net-syntax]\n"));
  CHECK_THAT(error, Catch::Contains("bad.net:22:7: error: expected '=', found 'x' [net-syntax]\n"));
  CHECK_THAT(error, Catch::EndsWith("^\nbad.net: note: 10 more errors not shown (at most 20 are reported)\n"));
  CHECK_THAT(test::error_of(missing_equals(21)), Catch::EndsWith("bad.net: note: 1 more error not shown (at most 20 are reported)\n"));
  CHECK_THAT(test::error_of(missing_equals(20)), !Catch::Contains("note:"));
}

TEST_CASE("a file with one syntax error renders in clang's shape, its ID closing the message line") {
  CHECK(test::error_of("network n {\n  input x: [4]\n  y x\n}") ==
        "bad.net:3:5: error: expected '=', found 'x' [net-syntax]\n  y x\n    ^\n");
  CHECK(test::error_of("netwrk n {}") ==
        "bad.net:1:1: error: expected 'import', 'block', 'network' or NAME = VALUE, found 'netwrk' [net-syntax]\nnetwrk n {}\n^\n");
  CHECK(test::error_of("network n {\n  input x: [4]\n  return x\n  42\n}") ==
        "bad.net:4:3: error: expected a statement or '}', found '42' [net-syntax]\n  42\n  ^\n");
  CHECK(test::error_of("network n") ==
        "bad.net:1:10: error: expected '{', found end of file [net-syntax]\nnetwork n\n         ^\n");
}

TEST_CASE("independent mistakes in definitions and in blocks' names are reported together") {
  const std::string error = test::error_of(
      "block b(x) {\n"
      "  y = x -> lienar(4)\n"
      "  z = y + foo + foo\n"          // foo once: the second use is the same mistake
      "  return z -> relu2\n"
      "}\n"
      "block a(x) { return x -> conv(ww) }\n"
      "network n {\n  input x: [4]\n  return b(x)\n}\n");
  CHECK(error ==
        "bad.net:2:12: error: unknown op or block 'lienar' in block 'b' (did you mean 'linear'?) [net-unknown-op]\n"
        "  y = x -> lienar(4)\n           ^\n"
        "bad.net:3:11: error: unknown name 'foo' in block 'b' [net-unknown-name]\n  z = y + foo + foo\n          ^\n"
        "bad.net:4:15: error: unknown op or block 'relu2' in block 'b' (did you mean 'relu'?) [net-unknown-op]\n"
        "  return z -> relu2\n              ^\n"
        "bad.net:6:31: error: unknown name 'ww' in block 'a' [net-unknown-name]\n"
        "block a(x) { return x -> conv(ww) }\n                              ^\n");

  const std::string definitions = test::error_of(
      "block c(a = 1, q) { return a }\nblock relu(x) { return x }\nblock c(x) { return x }\nnetwork n(k) {\n  input x: [4]\n  return x\n}\n");
  INFO(definitions);
  CHECK(count(definitions, ": error: ") == 4);
  CHECK_THAT(definitions, Catch::StartsWith("bad.net:1:16: error: parameter 'q' has no default"));
  CHECK_THAT(definitions, Catch::Contains("bad.net:2:7: error: block 'relu' has the name of a built-in"));
  CHECK_THAT(definitions, Catch::Contains("bad.net:3:7: error: block 'c' is defined twice"));
  CHECK_THAT(definitions, Catch::Contains("bad.net:4:11: error: network parameter 'k' needs a default value"));
}

TEST_CASE("elaboration still stops at its first error, so a failed layer does not cascade") {
  const std::string error = test::error_of(
      "network n {\n  input x: [3, 8, 8]\n  y = x -> conv(8, 3, groups: 5)\n  z = y -> conv(8, 3, groups: 5)\n  return z\n}\n");
  CHECK(count(error, ": error: ") == 1);
}

TEST_CASE("pathological files end in errors quickly, never a hang") {
  std::string garbage;
  const char* words[] = {"foo", "=", "1", "->", "+", "relu", "netwrk", "block", "(", ")", ",", "x"};
  for (int i = 0; i < 10000; ++i) {
    // Balanced by construction ("(" and ")" pair within a line), so the parser, not precheck, sees it.
    garbage += std::string(words[i % 8]) + " " + words[(i * 7) % 8] + " " + words[(i * 3 + 1) % 8] + " (" +
               words[10 + i % 2] + ") " + words[(i * 5) % 8] + "\n";
  }
  const std::string error = refused_quickly(garbage);
  CHECK(count(error, ": error: ") == 20);
  CHECK_THAT(error, Catch::Contains("more errors not shown"));

  // One error per line of a whole 4 MB file: recovery gives up after 10,000, and says "at least".
  std::string lines;
  for (int i = 0; i < 2'000'000; ++i) lines += "x\n";
  CHECK_THAT(refused_quickly(lines), Catch::EndsWith("bad.net: note: at least 9980 more errors not shown (at most 20 are reported)\n"));

  std::string body = "network n {\n";
  for (int i = 0; i < 100'000; ++i) body += " 1\n";
  CHECK_THAT(refused_quickly(body + "}\n"), Catch::Contains("note: at least 9980 more errors not shown"));

  // Unclosed braces stop at precheck's one error, not a cascade from every statement after them.
  const std::string unclosed = refused_quickly("network n {\n  input x: [4]\n  if true {\n  y x\n  return x\n");
  CHECK(count(unclosed, ": error: ") == 1);
  CHECK_THAT(unclosed, Catch::Contains("expected '}' to close the '{' at line 3"));
  CHECK(count(refused_quickly(std::string(150, '{') + "\n" + missing_equals(30)), ": error: ") == 1);
  CHECK(count(refused_quickly(missing_equals(5) + std::string(150, '}')), ": error: ") == 1);
}
