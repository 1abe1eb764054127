// Bad input, one case per error class: each must be a diagnostic with file:line:col, the source
// line, a caret under the column and what was expected, never a crash or a hang.
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace ridge;

namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A chain of n distinct blocks, b0 calling b1 calling ... b(n-1).
std::string block_chain(int n) {
  std::string text;
  for (int i = 0; i + 1 < n; ++i)
    text += "block b" + std::to_string(i) + "(x) { return b" + std::to_string(i + 1) + "(x) }\n";
  text += "block b" + std::to_string(n - 1) + "(x) { return x -> relu }\n";
  return text + "network n {\n input x: [4]\n return b0(x)\n}\n";
}

// Blocks that each call the next twice: 2^n instances without a single loop.
std::string exponential_blocks(int n) {
  std::string text;
  for (int i = 0; i + 1 < n; ++i)
    text += "block e" + std::to_string(i) + "(v) { a = e" + std::to_string(i + 1) + "(v)\n return e" +
            std::to_string(i + 1) + "(a) }\n";
  text += "block e" + std::to_string(n - 1) + "(v) { return v + 1 }\n";
  return text + "network n {\n input x: [4]\n k = e0(1)\n return x -> linear(4)\n}\n";
}

}  // namespace

TEST_CASE("bad .net input is reported at the right place with what was expected") {
  // clang-format off
  const auto [what, text, line, col, message] = GENERATE(table<const char*, std::string, int, int, const char*>({
    {"a comment-only file", "# nothing here\n", 1, 1, "expected a network definition"},
    {"a truncated file", "network n {\n  input x: [3, 8, 8]\n  return x ->", 3, 14, "expected '}' to close the '{' at line 1"},
    {"a file cut after the name", "network n", 1, 10, "expected '{', found end of file"},
    {"an unbalanced bracket", "network n {\n  input x: [3, 8, 8)\n}", 2, 20, "expected ']' to close the '[' at line 2, found ')'"},
    {"a stray brace", "network n {\n}\n}\n", 3, 1, "unexpected '}' with nothing open to close"},
    {"garbage at the top", "netwrk n {}", 1, 1, "expected 'import', 'block', 'network' or NAME = VALUE, found 'netwrk'"},
    {"a missing '='", "network n {\n  input x: [4]\n  y x\n}", 3, 5, "expected '=', found 'x'"},
    {"a missing expression", "network n {\n  input x: [4]\n  y =\n}", 4, 1, "expected expression, found '}'"},
    {"a missing ')' between arguments", "network n {\n  input x: [4]\n  return x -> linear(4 4)\n}", 3, 24, "expected ')', found '4'"},
    {"a stray value where a statement belongs", "network n {\n  input x: [4]\n  return x\n  42\n}", 4, 3, "expected a statement or '}', found '42'"},
    {"an unknown op", "network n {\n  input x: [3, 8, 8]\n  return x -> conv2d(8, 3)\n}", 3, 15, "unknown op or block 'conv2d' (did you mean 'conv'?)"},
    {"an unknown block", "network n {\n  input x: [3, 8, 8]\n  return resblock(x)\n}", 3, 10, "unknown op or block 'resblock'"},
    {"an unknown name", "network n {\n  input x: [3, 8, 8]\n  return y -> relu\n}", 3, 10, "unknown name 'y'"},
    {"an unknown keyword argument", "network n {\n  input x: [3, 8, 8]\n  return x -> conv(8, 3, strid: 2)\n}", 3, 26, "'conv' has no argument 'strid'; expected conv(x, out, kernel, stride: ..."},
    {"an unknown block parameter", "block b(x) { return x }\nnetwork n {\n  input x: [4]\n  return b(x, depth: 2)\n}", 4, 15, "block 'b' has no parameter 'depth'; expected one of: x"},
    {"a missing argument", "network n {\n  input x: [3, 8, 8]\n  return x -> conv(8)\n}", 3, 15, "'conv' needs argument 'kernel'"},
    {"a missing block argument", "block b(x, planes) { return x }\nnetwork n {\n  input x: [4]\n  return b(x)\n}", 4, 10, "block 'b' needs argument 'planes'"},
    {"too many arguments", "network n {\n  input x: [4]\n  return relu(x, x)\n}", 3, 18, "'relu' takes at most 1 argument(s), got more"},
    {"a non-integer channel count", "network n {\n  input x: [3, 8, 8]\n  return x -> conv(8.5, 3)\n}", 3, 20, "expected an integer for 'out' of 'conv', got 8.5 ("},
    {"a number where a tensor is needed", "network n {\n  input x: [4]\n  return matmul(x, 2)\n}", 3, 20, "expected a tensor for 'b' of 'matmul', got a number"},
    {"a word where a number is needed", "network n {\n  input x: [4]\n  return x -> dropout(\"half\")\n}", 3, 23, "expected a number for 'p' of 'dropout', got a word (\"half\")"},
    {"a word the op does not know", "network n {\n  input x: [3, 4, 4]\n  return x -> upsample(2, mode: \"cubic\")\n}", 3, 15, "'mode' of 'upsample' is \"cubic\"; expected one of \"nearest\", \"linear\", \"bilinear\", \"bicubic\", \"trilinear\""},
    {"an unterminated word", "network n {\n  input x: [3, 4, 4]\n  return x -> upsample(2, mode: \"nearest)\n}", 4, 1, "expected a closing '\"' on the same line, found '}'"},
    {"a channel mismatch", "network n {\n  input x: [3, 8, 8]\n  y = x -> conv(8, 3, pad: 1)\n  return add(x, y)\n}", 4, 10, "add1: shapes [3, 8, 8] and [8, 8, 8] do not broadcast"},
    {"a grouped conv mismatch", "network n {\n  input x: [6, 8, 8]\n  return x -> conv(8, 3, groups: 4)\n}", 3, 15, "input channels (6) are not divisible by groups (4)"},
    {"a window larger than the input", "network n {\n  input x: [3, 4, 4]\n  return x -> conv(8, 7)\n}", 3, 15, "larger than the padded input"},
    {"a duplicate layer name", "network n {\n  input x: [4]\n  return x -> relu as a -> relu as a\n}", 3, 28, "two layers are named 'a'"},
    {"recursion", "block a(x) { return b(x) }\nblock b(x) { return a(x) }\nnetwork n {\n  input x: [4]\n  return a(x)\n}", 2, 21, "block 'a' is instantiated recursively (a -> b -> a)"},
    {"a loop past the iteration limit", "network n {\n  input x: [4]\n  for i in 0 .. 2000000 { }\n  return x\n}", 3, 3, "past the limit of 1000000 loop iterations"},
    {"too-deep nesting", "network n {\n  input x: [4]\n  v = " + repeat("(", 250) + "1" + repeat(")", 250) + "\n  return x\n}", 3, 206, "nesting is deeper than 200 levels"},
    {"block calls nested too deep", block_chain(70), 64, 23, "block calls nest deeper than 64 levels"},
    {"a non-ASCII character", "network n {\n  input x: [4]  \xE2\x80\x94 the input\n}", 2, 17, "non-ASCII byte 0xE2 outside a comment"},
    {"binary garbage", std::string("\x7F" "ELF\x02\x01\x01\0\0\0", 10), 1, 1, "control character 0x7F"},
    {"a NUL byte", std::string("network n {\0}", 13), 1, 12, "NUL byte"},
    {"an absurd size", "network n {\n  input x: [3, 8, 8]\n  return x -> conv(1e30, 3)\n}", 3, 20, "expected an integer for 'out' of 'conv', got an absurd value"},
    {"an absurd input", "network n {\n  input x: [100000, 100000, 100000]\n  return x\n}", 2, 12, "absurdly large"},
    {"an infinite value", "network n {\n  input x: [4]\n  return x -> linear(1e308 * 10)\n}", 3, 22, "absurd value"},
    {"division by zero", "network n {\n  input x: [4]\n  return x -> linear(4 / (2 - 2))\n}", 3, 24, "division by zero"},
    {"an 'as' on a function", "network n {\n  input x: [4]\n  c = channels(x) as k\n  return x\n}", 3, 22, "'as' names a layer or block instance"},
    {"a block without return", "block b(x) { y = x }\nnetwork n {\n  input x: [4]\n  return b(x)\n}", 1, 7, "block 'b' ended without 'return'"},
    {"a network without input", "network n {\n  v = 1\n}", 1, 9, "network 'n' has no 'input'"},
    {"a second network", "network a { }\nnetwork b { }", 2, 1, "a file holds exactly one network"},
    {"a tuple unpacked into the wrong count", "network n {\n  input x: [4, 2]\n  a, b, c = split(x, 2)\n  return a\n}", 3, 3, "cannot unpack a tuple of 2 values into 3 names"},
    {"a tensor used as a condition", "network n {\n  input x: [4]\n  if x { }\n  return x\n}", 3, 6, "expected true or false for the condition of 'if', got a tensor"},
  }));
  // clang-format on
  INFO(what);
  test::check_rejected(text, line, col, message);
}

TEST_CASE("an empty file is an error at 1:1") {
  CHECK_THAT(test::error_of(""), Catch::StartsWith("bad.net:1:1: error: expected a network definition"));
}

TEST_CASE("errors inside blocks carry a note for each instantiation") {
  const std::string error = test::error_of(
      "block inner(x) { return x -> conv(8, 3, groups: 5) }\n"
      "block outer(x) { return inner(x) }\n"
      "network n {\n  input x: [6, 8, 8]\n  return outer(x)\n}");
  CHECK_THAT(error, Catch::StartsWith("bad.net:1:30: error: outer1.inner1.conv1: input channels (6) are not divisible"));
  CHECK_THAT(error, Catch::Contains("bad.net:2:25: note: block 'inner' instantiated here\nblock outer(x) { return inner(x) }\n" +
                                    std::string(24, ' ') + "^\n"));
  CHECK_THAT(error, Catch::Contains("bad.net:5:10: note: block 'outer' instantiated here"));
}

TEST_CASE("too many layers are refused quickly") {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = test::error_of("network n {\n  input x: [4]\n  for i in 0 .. 200000 {\n    x = x -> relu\n  }\n  return x\n}");
  CHECK_THAT(error, Catch::StartsWith("bad.net:4:14: error: the network has more than 100000 layers"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("blocks that expand exponentially stop with an error instead of hanging") {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = test::error_of(exponential_blocks(40));
  CHECK_THAT(error, Catch::Contains("error: elaboration takes more than"));
  CHECK_THAT(error, Catch::Contains("note: block 'e0' instantiated here"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("deeply nested else-if ladders, long chains and long sums do not overflow the stack") {
  std::string ladder = "network n {\n input x: [4]\n v = 3\n if v == 0 { v = 1 }";
  for (int i = 0; i < 20000; ++i) ladder += " else if v == " + std::to_string(i + 1) + " { v = 2 }";
  ladder += "\n return x -> linear(v) -> relu" + repeat(" -> relu", 20000) + "\n}";
  CHECK(lang::parse_network(ladder, "ladder.net").layers.size() == 20003);
  const std::string sum = "network n {\n input x: [4]\n v = 1" + repeat(" + 1", 100000) + " - 100000\n return x -> linear(v)\n}";
  CHECK(lang::parse_network(sum, "sum.net").layers.back().attrs.i("out") == 1);
  CHECK_THAT(test::error_of("network n {\n input x: [4]\n v = " + repeat("- ! ", 50000) + "1\n return x\n}"),
             Catch::Contains("expected true or false for the operand of '!', got a number"));
}

TEST_CASE("a missing file is a diagnostic naming the file") {
  try {
    lang::load_network("/nonexistent/ridge/missing.net");
    FAIL("no error");
  } catch (const lang::Error& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("/nonexistent/ridge/missing.net: error: cannot open file"));
  }
}
