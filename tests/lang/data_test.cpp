// Configuration tables as data: indexing lists and tuples, `for x in LIST`, nested lists and
// file-level constants. Each construct is checked for what it computes (by the layers it makes)
// and, in errors_test.cpp's style, for where its errors point.
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {

// The `out` of each linear layer, in order: what the small networks below use to show values.
std::vector<std::int64_t> linear_outs(const ir::Network& n) {
  std::vector<std::int64_t> outs;
  for (const auto& l : n.layers)
    if (l.op == ir::op("linear")) outs.push_back(l.attrs.i("out"));
  return outs;
}

// A network on a [4] input whose body is `body`, returning x.
ir::Network net(const std::string& body, const std::string& top = "") {
  return lang::parse_network(top + "network n {\n  input x: [4]\n" + body + "\n  return x\n}\n", "data.net");
}

}  // namespace

TEST_CASE("lists and tuples are indexed from the front and, with negative indices, from the back") {
  CHECK(linear_outs(net("  xs = [8, 16, 32]\n  x = x -> linear(xs[0]) -> linear(xs[2]) -> linear(xs[-1]) -> linear(xs[-3])")) ==
        std::vector<std::int64_t>{8, 32, 32, 8});
  // Any expression indexes and is an index: calls, groups, list literals, arithmetic.
  CHECK(linear_outs(net("  xs = [8, 16, 32]\n  i = 1\n  x = x -> linear([5, 6, 7][i + 1]) -> linear(xs[len(xs) - 1] + xs[i * 0])")) ==
        std::vector<std::int64_t>{7, 40});
  // Prefixes apply after the index: -xs[0] is -(xs[0]).
  CHECK(linear_outs(net("  xs = [-8]\n  x = x -> linear(-xs[0])")) == std::vector<std::int64_t>{8});
  // A tuple (what split returns) indexes like a list; a '[' on the next line still indexes.
  const ir::Network n = net("  x = x -> linear(8)\n  second = split(x, 2)\n    [1]\n  x = add(split(x, 2)[0], second)");
  CHECK(n.layers[n.output].output == ir::Shape{4});
}

TEST_CASE("nested lists hold tables, and indexing chains read them") {
  const std::string top = "cfg = [[64, 64], [128, 128, 128], []]\n";
  CHECK(linear_outs(net("  x = x -> linear(cfg[1][2]) -> linear(cfg[0][-1] + len(cfg[1])) -> linear(len(cfg[-1]) + 1)", top)) ==
        std::vector<std::int64_t>{128, 67, 1});
  CHECK(linear_outs(net("  t = [[1, [2, [3, 44]]]]\n  x = x -> linear(t[0][1][1][1])")) == std::vector<std::int64_t>{44});
  // One row per line, with a trailing comma after the last item of a list, and rows unpacked by name.
  const std::string table = "rows = [\n  [8, 2],   # width, count\n  [16, 1],\n]\n";
  CHECK(linear_outs(net("  for row in rows {\n    w, k = row\n    for i in 0 .. k {\n      x = x -> linear(w)\n    }\n  }", table)) ==
        std::vector<std::int64_t>{8, 8, 16});
  CHECK_THAT(test::error_of("network n {\n  input x: [4]\n  k = [,]\n  return x\n}"), Catch::StartsWith("bad.net:3:8: error: expected ']', found ','"));
}

TEST_CASE("for x in LIST runs its body once per item, in order, and loops over tuples too") {
  CHECK(linear_outs(net("  for c in [8, 16, 32] {\n    x = x -> linear(c)\n  }")) == std::vector<std::int64_t>{8, 16, 32});
  // Rows of a table, with inner loops over each row; the range form is unchanged beside it.
  const ir::Network rows = net("  for row in [[1, 2], [3]] {\n    for w in row {\n      x = x -> linear(w)\n    }\n  }\n"
                               "  for i in 0 .. 2 {\n    x = x -> linear(10 + i)\n  }");
  CHECK(linear_outs(rows) == std::vector<std::int64_t>{1, 2, 3, 10, 11});
  // An empty list runs nothing; rebinding the list inside the body does not change the loop.
  CHECK(linear_outs(net("  for c in [] {\n    x = x -> linear(1)\n  }\n  xs = [5, 6]\n"
                        "  for c in xs {\n    xs = [7]\n    x = x -> linear(c)\n  }")) == std::vector<std::int64_t>{5, 6});
  // A tuple: the pieces of split.
  const ir::Network t = net("  x = x -> linear(8)\n  for piece in split(x, 4) {\n    x = piece -> relu\n  }");
  CHECK(t.layers[t.output].output == ir::Shape{2});
  // `return` inside a for-in loop ends the block.
  const ir::Network r = lang::parse_network(
      "block first_big(xs) {\n  for v in xs {\n    if v > 10 { return v }\n  }\n  return 0\n}\n"
      "network n {\n  input x: [4]\n  return x -> linear(first_big([3, 12, 40]))\n}\n", "data.net");
  CHECK(linear_outs(r) == std::vector<std::int64_t>{12});
}

TEST_CASE("file-level constants are evaluated in order and seen by blocks, the network and its defaults") {
  const ir::Network n = lang::parse_network(R"(
expansion = 4
widths = [16, 32]
last = widths[-1] * expansion     # earlier constants are visible
wide, deep = [true, false]         # unpacking works as in a body
block b(x, planes) {
  return x -> linear(planes * expansion)
}
network n(out = last + 1) {
  input x: [4]
  for w in widths {
    x = b(x, w)
  }
  if wide && !deep {
    x = x -> linear(out)
  }
  return x
}
)", "consts.net");
  CHECK(linear_outs(n) == std::vector<std::int64_t>{64, 128, 129});
  CHECK(n.layers.back().name == "linear1");
  // A body may shadow a constant with a local variable of its own; the constant is unchanged elsewhere.
  const ir::Network s = lang::parse_network(
      "k = 3\nblock b(x) { k = 5\n return x -> linear(k) }\n"
      "network n {\n  input x: [4]\n  return x -> b -> linear(k)\n}\n", "consts.net");
  CHECK(linear_outs(s) == std::vector<std::int64_t>{5, 3});
  // Constants may come after the blocks and the network that use them.
  CHECK(linear_outs(lang::parse_network("network n {\n  input x: [4]\n  return x -> linear(k)\n}\nk = 6\n", "c.net")) ==
        std::vector<std::int64_t>{6});
}

TEST_CASE("file-level constants cannot be set from outside, network parameters can") {
  const std::string text = "k = 6\nnetwork n(w = 2) {\n  input x: [4]\n  return x -> linear(k * w)\n}\n";
  CHECK(linear_outs(lang::parse_network(text, "c.net", {{"w", "3"}})) == std::vector<std::int64_t>{18});
  const std::string error = test::error_of(text, {{"k", "2"}});
  CHECK_THAT(error, Catch::StartsWith("bad.net:2:9: error: --set k=2: 'k' is a file-level constant, not a parameter of network 'n'"));
  CHECK_THAT(error, Catch::Contains("only network parameters can be set"));
}

TEST_CASE("bad indexing, loops and constants are reported at the construct with what was expected") {
  // clang-format off
  const auto [what, text, line, col, message] = GENERATE(table<const char*, std::string, int, int, const char*>({
    {"an index past the end", "network n {\n  input x: [4]\n  xs = [1, 2, 3]\n  return x -> linear(xs[3])\n}", 4, 25, "index 3 is out of range for a list of 3 values; expected -3 .. 2"},
    {"a negative index past the front", "network n {\n  input x: [4]\n  return x -> linear([1, 2][-3])\n}", 3, 29, "index -3 is out of range for a list of 2 values"},
    {"an index into an empty list", "network n {\n  input x: [4]\n  return x -> linear([][0])\n}", 3, 25, "index 0 is out of range for a list with no values"},
    {"an index into a nested row", "c = [[1, 2], [3]]\nnetwork n {\n  input x: [4]\n  return x -> linear(c[1][1])\n}", 4, 27, "index 1 is out of range for a list of 1 value"},
    {"a fractional index", "network n {\n  input x: [4]\n  return x -> linear([1, 2][0.5])\n}", 3, 29, "expected an integer for an index, got 0.5"},
    {"a boolean index", "network n {\n  input x: [4]\n  return x -> linear([1, 2][true])\n}", 3, 29, "expected a number for an index, got a boolean"},
    {"indexing a number", "network n {\n  input x: [4]\n  k = 3\n  return x -> linear(k[0])\n}", 4, 22, "cannot index a number; expected a list or a tuple before '['"},
    {"indexing a tensor", "network n {\n  input x: [4]\n  return x[0]\n}", 3, 10, "cannot index a tensor"},
    {"an index left open", "network n {\n  input x: [4]\n  k = [1][0\n  return x\n}", 5, 1, "expected ']' to close the '[' at line 3, found '}'"},
    {"an empty index", "network n {\n  input x: [4]\n  k = [1][]\n  return x\n}", 3, 11, "expected expression, found ']'"},
    {"looping over a number", "network n {\n  input x: [4]\n  for i in 3 { }\n  return x\n}", 3, 12, "expected a list or tuple to loop over, got a number (for a range of numbers write `for i in FROM .. TO`)"},
    {"a loop with neither '..' nor '{'", "network n {\n  input x: [4]\n  for i in 0 3 { }\n  return x\n}", 3, 14, "expected '..' or '{', found '3'"},
    {"a loop over a list past the iteration limit", "network n {\n  input x: [4]\n  for i in 0 .. 999999 { }\n  for c in [1, 2] { }\n  return x\n}", 4, 3, "this loop would run 2 times, past the limit of 1000000 loop iterations for all loops together (999999 already run)"},
    {"a constant defined twice", "k = 1\nk = 2\nnetwork n {\n  input x: [4]\n  return x\n}", 2, 1, "file-level constant 'k' is defined twice"},
    {"a constant named like an op", "relu = 1\nnetwork n {\n  input x: [4]\n  return x\n}", 1, 1, "file-level constant 'relu' has the name of an op, block or function"},
    {"a constant used before it is set", "a = b + 1\nb = 2\nnetwork n {\n  input x: [4]\n  return x\n}", 1, 5, "unknown name 'b'"},
    {"a constant using a network parameter", "k = 2 * w\nnetwork n(w = 1) {\n  input x: [4]\n  return x\n}", 1, 9, "file-level constant uses 'w', a parameter of network 'n'"},
    {"a network parameter named like a constant", "w = 1\nnetwork n(w = 2) {\n  input x: [4]\n  return x\n}", 2, 11, "network parameter 'w' has the name of a file-level constant"},
    {"a tensor op in a constant", "k = relu(1)\nnetwork n {\n  input x: [4]\n  return x\n}", 1, 10, "expected a tensor for 'x' of 'relu', got a number"},
    {"a constant without a value", "k =\nnetwork n {\n  input x: [4]\n  return x\n}", 2, 1, "expected expression, found 'network'"},
    {"a misspelt keyword at the top", "blok b(x) { return x }\nnetwork n {\n  input x: [4]\n  return x\n}", 1, 1, "expected 'import', 'block', 'network' or NAME = VALUE, found 'blok'"},
  }));
  // clang-format on
  INFO(what);
  test::check_rejected(text, line, col, message);
}
