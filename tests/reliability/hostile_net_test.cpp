// Hostile `.net` inputs: deep nesting, recursion, huge repetition counts, sizes that would overflow
// 64-bit counts. Each must end in a diagnostic, quickly; none may crash, hang or eat memory.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace ridge;
using reliability::net_error;
using reliability::repeat;
using reliability::seconds;

namespace {

// A one-line network around an expression, for nesting tests.
std::string network_with(const std::string& value) {
  return "network n {\n  input x: [4]\n  v = " + value + "\n  return x -> linear(4)\n}\n";
}

}  // namespace

TEST_CASE("100,000 nested parentheses are refused at the nesting limit, quickly") {
  std::string error;
  const double s = seconds([&] { error = net_error(network_with(repeat("(", 100000) + "1" + repeat(")", 100000))); });
  CHECK_THAT(error, Catch::Contains("hostile.net:3:") && Catch::Contains("nesting is deeper than 200"));
  CHECK(s < 2.0);
}

TEST_CASE("100,000 nested lists and unbalanced brackets are refused, not parsed recursively") {
  CHECK_THAT(net_error(network_with(repeat("[", 100000) + "1" + repeat("]", 100000))),
             Catch::StartsWith("hostile.net:3:") && Catch::Contains("nesting is deeper than 200"));
  CHECK_THAT(net_error(network_with(repeat("(", 100000))),
             Catch::StartsWith("hostile.net:3:206: error: nesting is deeper than 200"));
  // A closing bracket with nothing open is a parse error at the first one.
  CHECK_THAT(net_error(network_with(repeat(")", 100000))),
             Catch::StartsWith("hostile.net:3:7: error: expected '}' to close the '{' at line 1, found ')'"));
  // Each '?' counts a level until its ':'.
  CHECK_THAT(net_error(network_with(repeat("c ? ", 100000) + "1")),
             Catch::StartsWith("hostile.net:3:") && Catch::Contains("nesting is deeper than 200"));
}

TEST_CASE("nesting of exactly 200 levels is accepted, 201 refused (docs/language.md, Limits)") {
  // The network's '{' is one level, so 199 parentheses reach 200 and 200 parentheses 201.
  CHECK(net_error(network_with(repeat("(", 199) + "1" + repeat(")", 199))) == "");
  CHECK_THAT(net_error(network_with(repeat("(", 200) + "1" + repeat(")", 200))),
             Catch::StartsWith("hostile.net:3:206: error: nesting is deeper than 200 levels"));
}

TEST_CASE("expressions and block calls nesting past 1000 levels during elaboration are refused") {
  // 60 blocks (under the 64-call limit), each calling the next inside parentheses (under the 200
  // nesting limit per line): 20 parentheses per call pass 1000 levels of evaluation, 10 do not.
  const auto chain = [](int parens) {
    std::string text = "block b0(x) { return x }\n";
    for (int i = 1; i <= 60; ++i)
      text += "block b" + std::to_string(i) + "(x) { return " + repeat("(", parens) + "b" + std::to_string(i - 1) +
              "(x)" + repeat(")", parens) + " }\n";
    return text + "network n {\n  input x: [4]\n  return b60(x)\n}\n";
  };
  CHECK(net_error(chain(10)) == "");
  CHECK_THAT(net_error(chain(20)), Catch::StartsWith("hostile.net:") &&
                                       Catch::Contains("error: expressions and block calls nest more than 1000 deep"));
}

TEST_CASE("100,000 nested blocks and if bodies are refused at the nesting limit") {
  const std::string ifs = "network n {\n  input x: [4]\n" + repeat("if true {", 100000) + repeat("}", 100000) + "\n  return x\n}\n";
  CHECK_THAT(net_error(ifs), Catch::StartsWith("hostile.net:3:") && Catch::Contains("nesting is deeper than 200"));
  CHECK_THAT(net_error(repeat("{", 100000)), Catch::StartsWith("hostile.net:1:201: error: nesting is deeper than 200"));
}

TEST_CASE("a chain of 100,000 unary minuses or 100,000 operators does not overflow the stack") {
  // Neither nests (a prefix chain and a flat operator chain), so both elaborate, iteratively, to the
  // right value: (-)^100000 1 = 1 and 1 * 1 * ... = 1, so linear(v + 1) has 2 outputs.
  const auto out = [](const std::string& v) {
    return lang::parse_network("network n {\n  input x: [4]\n  v = " + v + "\n  return x -> linear(v + 1)\n}\n", "ok.net")
        .layers.back()
        .output;
  };
  CHECK(out(repeat("-", 100000) + "1") == ir::Shape{2});
  CHECK(out(repeat("-", 99999) + "(-3)") == ir::Shape{4});   // an odd count flips the sign: 3 + 1
  CHECK(out("1" + repeat(" * 1", 100000)) == ir::Shape{2});
}

TEST_CASE("a block that calls itself is an error pointing at the call, not a stack overflow") {
  std::string error;
  const double s = seconds([&] {
    error = net_error("block loop(x) { return loop(x) }\nnetwork n {\n  input x: [4]\n  return loop(x)\n}\n");
  });
  CHECK_THAT(error, Catch::StartsWith("hostile.net:1:24: error: block 'loop' is instantiated recursively (loop -> loop)"));
  CHECK(s < 2.0);
}

TEST_CASE("blocks that call each other in a cycle are an error") {
  const std::string error = net_error(
      "block ping(x) { return x -> relu -> pong }\nblock pong(x) { return x -> relu -> ping }\n"
      "network n {\n  input x: [4]\n  return ping(x)\n}\n");
  CHECK_THAT(error, Catch::StartsWith("hostile.net:2:37: error: block 'ping' is instantiated recursively (ping -> pong -> ping)"));
  CHECK_THAT(error, Catch::Contains("hostile.net:1:37: note: block 'pong' instantiated here"));
  CHECK_THAT(error, Catch::Contains("hostile.net:5:10: note: block 'ping' instantiated here"));
}

TEST_CASE("a recursive default argument is an error") {
  CHECK_THAT(net_error("block f(x, n = 1) { return f(x, n + 1) }\nnetwork n {\n  input x: [4]\n  return f(x)\n}\n"),
             Catch::StartsWith("hostile.net:1:28: error: block 'f' is instantiated recursively (f -> f)"));
}

TEST_CASE("repetition counts of 10^12, 2^63 and 10^308 are refused before a single iteration runs") {
  const std::pair<std::string, std::string> cases[] = {
      {"1e12", "3:3: error: this loop would run 1000000000000 times, past the limit of 1000000 loop iterations"},
      {"9223372036854775807", "3:17: error: expected an integer for a loop bound, got an absurd value"},
      {"9223372036854775808", "3:17: error: expected an integer for a loop bound, got an absurd value"},
      {"1e308", "3:17: error: expected an integer for a loop bound, got an absurd value (1e+308)"},
      {"2 * 1e308", "3:17: error: expected an integer for a loop bound, got an absurd value (inf)"},
      {"1 / 0", "3:19: error: division by zero in '/'"}};
  for (const auto& [to, message] : cases) {
    CAPTURE(to);
    std::string error;
    const double s = seconds([&] {
      error = net_error("network n {\n  input x: [4]\n  for i in 0 .. " + to + " {\n    x = x -> relu\n  }\n  return x\n}\n");
    });
    CHECK_THAT(error, Catch::StartsWith("hostile.net:" + message));
    CHECK(s < 2.0);
  }
}

TEST_CASE("nested loops whose product is huge stop at the iteration budget") {
  const std::string error = net_error(
      "network n {\n  input x: [4]\n  v = 0\n  for i in 0 .. 500000 {\n    for j in 0 .. 500001 {\n      v = v + 1\n"
      "    }\n  }\n  return x\n}\n");
  CHECK_THAT(error, Catch::StartsWith("hostile.net:5:5: error: this loop would run 500001 times, past the limit of "
                                      "1000000 loop iterations for all loops together (500000 already run)"));
}

TEST_CASE("arithmetic that overflows to inf or NaN is an error where a size is needed") {
  const std::pair<std::string, std::string> cases[] = {
      {"1e308 * 10", "4:22: error: expected an integer for 'out' of 'linear', got an absurd value (inf)"},
      {"0 / 0", "3:9: error: division by zero in '/'"},
      {"1 / 0", "3:9: error: division by zero in '/'"},
      {"-1 / 0", "3:10: error: division by zero in '/'"},
      {"5 % 0", "3:9: error: division by zero in '%'"},
      {"5 // 0", "3:9: error: division by zero in '//'"},
      {"1e300 * 1e300 - 1e300 * 1e300", "4:22: error: expected an integer for 'out' of 'linear', got an absurd value ("}};
  for (const auto& [v, message] : cases) {
    CAPTURE(v);
    const std::string error = net_error("network n {\n  input x: [4]\n  v = " + v + "\n  return x -> linear(v)\n}\n");
    CHECK_THAT(error, Catch::StartsWith("hostile.net:" + message));
  }
}

TEST_CASE("input shapes whose element count overflows 64 bits are refused") {
  const std::string absurd = "is absurdly large (limit 68719476736 elements per sample)";
  const std::string integer = "expected an integer for an input dimension, got ";
  const std::pair<std::string, std::string> cases[] = {
      {"[4294967296, 4294967296, 4294967296]", "input: the output shape [4294967296, 4294967296, 4294967296] " + absurd},
      {"[1e18]", integer + "an absurd value (1e+18)"},
      {"[9223372036854775807]", integer + "an absurd value"},
      {"[1e308]", integer + "an absurd value (1e+308)"},
      {"[65536, 65536, 65536, 65536]", "input: the output shape [65536, 65536, 65536, 65536] " + absurd},
      {"[0]", "input: the output shape [0] has an empty dimension"},
      {"[-3]", "input: the output shape [-3] has an empty dimension"},
      {"[2.5]", integer + "2.5"}};
  for (const auto& [shape, message] : cases) {
    CAPTURE(shape);
    CHECK_THAT(net_error("network n {\n  input x: " + shape + "\n  return x\n}\n"),
               Catch::StartsWith("hostile.net:2:12: error: " + message));
  }
}

TEST_CASE("layers whose weights or outputs would overflow 64-bit counts are refused") {
  const std::string absurd = " is absurdly large (limit 68719476736 elements per sample)";
  const std::pair<std::string, std::string> cases[] = {
      {"linear(1e15)", "3:15: error: linear1: the output shape [64, 32, 1000000000000000]" + absurd},
      {"linear(4294967296)", "3:15: error: linear1: the output shape [64, 32, 4294967296]" + absurd},
      {"conv(1e12, 3)", "3:15: error: conv1: the output shape [1000000000000, 30, 30]" + absurd},
      {"conv(64, 1e9)", "3:15: error: conv1: the window (1000000000) is larger than the padded input height (32)"},
      // Each factor of a window is bounded before it is multiplied: a dilation of 2^32 times a kernel of
      // 2^32 + 1 used to wrap the 64-bit span and be accepted (issue 20).
      {"conv(64, 3, dilation: 1e12)", "3:15: error: conv1: kernel, stride, padding and dilation must be at most 2147483648"},
      {"conv(64, 3, pad: 1e12)", "3:15: error: conv1: kernel, stride, padding and dilation must be at most 2147483648"},
      {"conv(16, [4294967297, 1], dilation: [4294967296, 1])", "3:15: error: conv1: kernel, stride, padding and dilation must be at most 2147483648"},
      {"reshape([1e10, 1e10])", "3:15: error: reshape1: reshape target [10000000000, 10000000000] is absurdly large"},
      {"maxpool(1e12)", "3:15: error: maxpool1: kernel, stride, padding and dilation must be at most 2147483648"},
      {"maxpool(40)", "3:15: error: maxpool1: the window (40) is larger than the padded input height (32)"},
      {"adaptive_avgpool(1e9)", "3:15: error: adaptive_avgpool1: the output shape [64, 1000000000, 1000000000]" + absurd},
      {"channel_shuffle(0)", "3:15: error: channel_shuffle1: channels (64) are not divisible by groups (0)"},
      {"split(0)", "3:21: error: cannot split 64 into 0 chunks"}};
  for (const auto& [call, message] : cases) {
    CAPTURE(call);
    CHECK_THAT(net_error("network n {\n  input x: [64, 32, 32]\n  return x -> " + call + "\n}\n"),
               Catch::StartsWith("hostile.net:" + message));
  }
}

TEST_CASE("a network valid per sample is refused at batch 2^40 rather than overflowing") {
  const ir::Network net = lang::parse_network("network n {\n  input x: [3, 224, 224]\n  return x -> conv(64, 3) -> relu\n}\n", "n.net");
  const ir::Device dev = reliability::test_device();
  for (const std::int64_t batch : {std::int64_t{1} << 40, std::int64_t{1} << 62, engine::kMaxBatch + 1, std::int64_t{0},
                                   std::int64_t{-1}}) {
    CAPTURE(batch);
    CHECK_THROWS_AS(engine::simulate(net, dev, {.batch = batch}), engine::SimulationError);
  }
}

TEST_CASE("the largest per-sample tensor at the largest batch is refused, not rounded") {
  // 2^36 elements per sample (the limit) x 2^24 samples = 2^60 elements: beyond 2^53, where doubles stop
  // counting exactly.
  const ir::Network net =
      lang::parse_network("network n {\n  input x: [16, 65536, 65536]\n  return x -> relu\n}\n", "big.net");
  CHECK_THROWS_WITH(engine::simulate(net, reliability::test_device(), {.batch = engine::kMaxBatch}),
                    Catch::Contains("2^53"));
}

TEST_CASE("every zoo network at the largest batch gives finite figures or a clear refusal") {
  const ir::Device dev = reliability::test_device();
  for (const auto& entry : std::filesystem::directory_iterator(RIDGE_MODELS_DIR)) {
    if (entry.path().extension() != ".net") continue;
    CAPTURE(entry.path().filename().string());
    const ir::Network net = lang::load_network(entry.path().string());
    for (const ir::Precision p : {ir::Precision::FP32, ir::Precision::INT8}) {
      try {
        const engine::Report r = engine::simulate(net, dev, {.batch = engine::kMaxBatch, .precision = p});
        CHECK(reliability::all_finite(r));
      } catch (const engine::SimulationError& e) {
        CHECK_THAT(e.what(), Catch::Contains("2^53"));
      }
    }
  }
}
