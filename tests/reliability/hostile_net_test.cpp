// Hostile `.net` inputs: deep nesting, recursion, huge repetition counts, sizes that would overflow
// 64-bit counts. Each must end in a diagnostic, quickly; none may crash, hang or eat memory.
#include "hostile.hpp"

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
  CHECK_THAT(net_error(network_with(repeat("[", 100000) + "1" + repeat("]", 100000))), Catch::Contains("nesting is deeper"));
  CHECK_THAT(net_error(network_with(repeat("(", 100000))), Catch::Contains("error:"));
  CHECK_THAT(net_error(network_with(repeat(")", 100000))), Catch::Contains("error:"));
  CHECK_THAT(net_error(network_with(repeat("c ? ", 100000) + "1")), Catch::Contains("error:"));
}

TEST_CASE("100,000 nested blocks and if bodies are refused at the nesting limit") {
  const std::string ifs = "network n {\n  input x: [4]\n" + repeat("if true {", 100000) + repeat("}", 100000) + "\n  return x\n}\n";
  CHECK_THAT(net_error(ifs), Catch::Contains("nesting is deeper than 200"));
  CHECK_THAT(net_error(repeat("{", 100000)), Catch::Contains("error:"));
}

TEST_CASE("a chain of 100,000 unary minuses or 100,000 operators does not overflow the stack") {
  CHECK_THAT(net_error(network_with(repeat("-", 100000) + "1")), Catch::Contains("error:") || Catch::Equals(""));
  CHECK_THAT(net_error(network_with("1" + repeat(" * 1", 100000))), Catch::Equals("") || Catch::Contains("error:"));
}

TEST_CASE("a block that calls itself is an error pointing at the call, not a stack overflow") {
  std::string error;
  const double s = seconds([&] {
    error = net_error("block loop(x) { return loop(x) }\nnetwork n {\n  input x: [4]\n  return loop(x)\n}\n");
  });
  CHECK_THAT(error, Catch::StartsWith("hostile.net:1:") && Catch::Contains("error:"));
  CHECK(s < 2.0);
}

TEST_CASE("blocks that call each other in a cycle are an error") {
  const std::string error = net_error(
      "block ping(x) { return x -> relu -> pong }\nblock pong(x) { return x -> relu -> ping }\n"
      "network n {\n  input x: [4]\n  return ping(x)\n}\n");
  CHECK_THAT(error, Catch::Contains("error:"));
  CHECK_THAT(error, Catch::Contains("note: block"));
}

TEST_CASE("a recursive default argument is an error") {
  CHECK_THAT(net_error("block f(x, n = 1) { return f(x, n + 1) }\nnetwork n {\n  input x: [4]\n  return f(x)\n}\n"),
             Catch::Contains("error:"));
}

TEST_CASE("repetition counts of 10^12, 2^63 and 10^308 are refused before a single iteration runs") {
  for (const std::string to : {"1e12", "9223372036854775807", "9223372036854775808", "1e308", "2 * 1e308", "1 / 0"}) {
    CAPTURE(to);
    std::string error;
    const double s = seconds([&] {
      error = net_error("network n {\n  input x: [4]\n  for i in 0 .. " + to + " {\n    x = x -> relu\n  }\n  return x\n}\n");
    });
    CHECK_THAT(error, Catch::Contains("hostile.net:3:") && Catch::Contains("error:"));
    CHECK(s < 2.0);
  }
}

TEST_CASE("nested loops whose product is huge stop at the iteration budget") {
  const std::string error = net_error(
      "network n {\n  input x: [4]\n  v = 0\n  for i in 0 .. 500000 {\n    for j in 0 .. 500001 {\n      v = v + 1\n"
      "    }\n  }\n  return x\n}\n");
  CHECK_THAT(error, Catch::Contains("loop iterations"));
}

TEST_CASE("arithmetic that overflows to inf or NaN is an error where a size is needed") {
  for (const std::string v : {"1e308 * 10", "0 / 0", "1 / 0", "-1 / 0", "5 % 0", "5 // 0", "1e300 * 1e300 - 1e300 * 1e300"}) {
    CAPTURE(v);
    const std::string error = net_error("network n {\n  input x: [4]\n  v = " + v + "\n  return x -> linear(v)\n}\n");
    CHECK_THAT(error, Catch::Contains("error:"));
  }
}

TEST_CASE("input shapes whose element count overflows 64 bits are refused") {
  for (const std::string shape : {"[4294967296, 4294967296, 4294967296]", "[1e18]", "[9223372036854775807]",
                                  "[1e308]", "[65536, 65536, 65536, 65536]", "[0]", "[-3]", "[2.5]"}) {
    CAPTURE(shape);
    CHECK_THAT(net_error("network n {\n  input x: " + shape + "\n  return x\n}\n"), Catch::Contains("error:"));
  }
}

TEST_CASE("layers whose weights or outputs would overflow 64-bit counts are refused") {
  for (const std::string call : {"linear(1e15)", "linear(4294967296)", "conv(1e12, 3)", "conv(64, 1e9)",
                                 "conv(64, 3, dilation: 1e12)", "conv(64, 3, pad: 1e12)", "reshape([1e10, 1e10])",
                                 "maxpool(1e12)", "adaptive_avgpool(1e9)", "channel_shuffle(0)", "split(0)"}) {
    CAPTURE(call);
    CHECK_THAT(net_error("network n {\n  input x: [64, 32, 32]\n  return x -> " + call + "\n}\n"),
               Catch::Contains("error:"));
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
