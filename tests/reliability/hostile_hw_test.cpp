// Hostile `.hw` inputs: zero, negative, NaN, inf and absurd figures. Each is a diagnostic, or (where
// the figure is legal but extreme) a simulation with finite results or a clear refusal.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using reliability::hw_error;
using reliability::repeat;

namespace {

std::string device_with(const std::string& line) {
  return "device \"x\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = 10 TFLOP/s\n  memory.bandwidth = 1 TB/s\n  " +
         line + "\n}\n";
}

const ir::Network& tiny() {
  static const ir::Network n = lang::parse_network(
      "network tiny {\n  input x: [3, 32, 32]\n  return x -> conv(16, 3, pad: 1) -> batchnorm -> relu -> flatten -> linear(10)\n}\n",
      "tiny.net");
  return n;
}

}  // namespace

TEST_CASE("zero, negative, NaN and infinite figures in .hw are errors at the figure") {
  const std::pair<std::string, std::string> cases[] = {
      {"0 TFLOP/s", "15: error: 'peak.fp16' must be positive, found 0"},
      {"-1 TFLOP/s", "15: error: 'peak.fp16' must be positive, found -1"},
      {"nan TFLOP/s", "15: error: 'peak.fp16' must be a finite number (a double holds up to 1.8e308), found nan"},
      {"inf TFLOP/s", "15: error: 'peak.fp16' must be a finite number (a double holds up to 1.8e308), found inf"},
      {"-inf TFLOP/s", "15: error: 'peak.fp16' must be a finite number (a double holds up to 1.8e308), found -inf"},
      {"NaN TFLOP/s", "24: error: expected '=', found '/'"},        // 'NaN' is a word, not a number
      {"Infinity TFLOP/s", "29: error: expected '=', found '/'"},
      // Beyond a double: read as infinite, and refused as a figure (issue #41: it was "no value found").
      {"1e309 TFLOP/s", "15: error: 'peak.fp16' must be a finite number (a double holds up to 1.8e308), found inf"},
      {"-0 TFLOP/s", "15: error: 'peak.fp16' must be positive, found -0"},
      {"0e0 TFLOP/s", "15: error: 'peak.fp16' must be positive, found 0"},
      {"1e-400 TFLOP/s", "15: error: 'peak.fp16' must be positive, found 0"},   // underflows to 0
      // A finite number whose unit scales it past the largest double (docs/language.md: "values that
      // overflow a double are refused").
      {"1e300 EFLOP/s", "15: error: 'peak.fp16' overflows a double"}};
  for (const auto& [value, message] : cases) {
    CAPTURE(value);
    const std::string error = hw_error(device_with("peak.fp16 = " + value));
    CHECK_THAT(error, Catch::StartsWith("hostile.hw:6:" + message));
  }
}

TEST_CASE("every kind of figure refuses zero, negative and non-finite values") {
  const auto refusal = [](const std::string& key, const std::string& v) {
    if (v.starts_with("0") || v.starts_with("-")) return "'" + key + "' must be positive, found " + v.substr(0, v.find(' '));
    return "'" + key + "' must be a finite number (a double holds up to 1.8e308), found " + v.substr(0, v.find(' '));
  };
  for (const std::string key : {"memory.size", "l2.size"})
    for (const std::string v : {"0 GiB", "-40 GiB", "nan GiB", "inf GiB"}) {
      CAPTURE(key, v);
      CHECK_THAT(hw_error(device_with(key + " = " + v)), Catch::StartsWith("hostile.hw:6:") && Catch::Contains("error: " + refusal(key, v)));
    }
  for (const std::string v : {"0 us", "-5 us", "nan us", "inf s"}) {
    CAPTURE(v);
    CHECK_THAT(hw_error(device_with("launch_overhead = " + v)),
               Catch::StartsWith("hostile.hw:6:21: error: " + refusal("launch_overhead", v)));
  }
  const std::string fraction = "'ppp.matmul.compute' is a fraction of peak in (0, 1], found ";
  const std::pair<std::string, std::string> ppp[] = {
      {"0", refusal("ppp.matmul.compute", "0")}, {"-1", refusal("ppp.matmul.compute", "-1")},
      {"nan", refusal("ppp.matmul.compute", "nan")}, {"1.5", fraction + "1.5"}, {"1e300", fraction + "1e+300"},
      {"inf", refusal("ppp.matmul.compute", "inf")}, {"0 %", refusal("ppp.matmul.compute", "0")},
      {"101 %", fraction + "101 %"}, {"1.01", fraction + "1.01"}, {"-5 %", refusal("ppp.matmul.compute", "-5")}};
  for (const auto& [v, message] : ppp) {
    CAPTURE(v);
    CHECK_THAT(hw_error(device_with("ppp.matmul.compute = " + v)), Catch::StartsWith("hostile.hw:6:24: error: " + message));
  }
  for (const std::string v : {"0", "-8", "2.5", "1e300", "nan"}) {
    CAPTURE(v);
    CHECK_THAT(hw_error(device_with("link.nvlink.bandwidth = 300 GB/s\n  system.interconnect = nvlink\n  system.count = " + v)),
               Catch::StartsWith("hostile.hw:8:18: error: 'system.count' takes a whole number of devices, at least 1"));
  }
}

TEST_CASE("extreme but legal figures simulate to finite numbers or a clear refusal") {
  // The smallest and largest positive doubles as figures: times may be huge, but never inf or NaN.
  // Expected: a peak of 1e300 EFLOP/s overflows a double and is refused by the parser; a tiny peak or
  // a tiny bandwidth makes times overflow and simulate refuses the device; the largest figures give a
  // finite report.
  enum Outcome { ParseError, Overflow, Report };
  struct Case {
    std::string peak, bw;
    Outcome outcome;
  };
  const Case cases[] = {{"1e-300 FLOP/s", "1e-300 B/s", Overflow},     {"1e-300 FLOP/s", "1.7e308 B/s", Overflow},
                        {"4.9e-324 FLOP/s", "1e-300 B/s", Overflow},   {"4.9e-324 FLOP/s", "1.7e308 B/s", Overflow},
                        {"1e300 EFLOP/s", "1e-300 B/s", ParseError},   {"1e300 EFLOP/s", "1.7e308 B/s", ParseError},
                        {"1.7e308 FLOP/s", "1e-300 B/s", Overflow},    {"1.7e308 FLOP/s", "1.7e308 B/s", Report}};
  for (const Case& c : cases) {
    CAPTURE(c.peak, c.bw);
    const std::string text = "device \"x\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = " + c.peak +
                             "\n  memory.bandwidth = " + c.bw + "\n}\n";
    if (c.outcome == ParseError) {
      CHECK_THROWS_WITH(lang::parse_device(text, "extreme.hw"),
                        Catch::StartsWith("extreme.hw:4:15: error: 'peak.fp32' overflows a double"));
      continue;
    }
    const ir::Device dev = lang::parse_device(text, "extreme.hw");
    if (c.outcome == Overflow) {
      CHECK_THROWS_WITH(engine::simulate(tiny(), dev, {.batch = 256}),
                        Catch::Contains("has figures so extreme that times or rates overflow"));
    } else {
      const engine::Report r = engine::simulate(tiny(), dev, {.batch = 256});
      CHECK(reliability::all_finite(r));
      CHECK(r.totals.time_fwd_s > 0);
    }
  }
}

TEST_CASE("a device with nothing but its kind gives a clear refusal when simulated") {
  const ir::Device dev = lang::parse_device("device \"bare\" {\n  kind = cpu\n}\n", "bare.hw");
  CHECK_THROWS_AS(engine::simulate(tiny(), dev, {}), engine::SimulationError);
}

TEST_CASE("100,000 lines of figures, a 100,000-character string and a 100,000-digit number are handled quickly") {
  double s = reliability::seconds([] {
    CHECK_THAT(hw_error(device_with(repeat("provenance = \"x\"\n  ", 100000))), Catch::Equals(""));
  });
  CHECK(s < 2.0);
  s = reliability::seconds([] {
    // 99,999 duplicates, reported up to the cap of 20 errors per file (docs/language.md, Limits).
    const std::string error = hw_error(device_with(repeat("peak.fp16 = 1 TFLOP/s\n  ", 100000)));
    CHECK_THAT(error, Catch::StartsWith("hostile.hw:7:3: error: duplicate key 'peak.fp16'"));
    std::size_t errors = 0;
    for (std::size_t at = error.find("error:"); at != std::string::npos; at = error.find("error:", at + 1)) ++errors;
    CHECK(errors == 20);
    CHECK(hw_error(device_with("provenance = \"" + repeat("a", 100000) + "\"")).empty());
    CHECK_THAT(hw_error(device_with("peak.fp16 = " + repeat("9", 100000) + " TFLOP/s")),
               Catch::StartsWith("hostile.hw:6:15: error: expected a value: a number with its unit"));
    CHECK_THAT(hw_error(device_with("peak.fp16 = 0." + repeat("0", 100000) + "1 TFLOP/s")),
               Catch::StartsWith("hostile.hw:6:15: error: expected a value: a number with its unit"));
  });
  CHECK(s < 2.0);
}

TEST_CASE("nested braces, unterminated strings and stray bytes in .hw are errors") {
  CHECK_THAT(hw_error(repeat("{", 100000)),
             Catch::StartsWith("hostile.hw:1:1: error: expected a device declaration 'device \"NAME\" { ... }', found '{'"));
  CHECK_THAT(hw_error("device \"x" + repeat("\\", 10000)),
             Catch::StartsWith("hostile.hw:1:10010: error: expected '\"' to close the string, found the end of the file"));
  CHECK_THAT(hw_error(device_with("source = \"unterminated")),
             Catch::StartsWith("hostile.hw:6:25: error: expected '\"' to close the string, found the end of the line"));
  CHECK_THAT(hw_error(device_with("\x01\x02\x7f\xff\xfe")),
             Catch::StartsWith("hostile.hw:6:3: error: expected a key such as 'peak.fp32', or '}' to close the device, found byte 0x01"));
  CHECK_THAT(hw_error(""), Catch::StartsWith("hostile.hw:1:1: error: expected a device declaration") &&
                               Catch::Contains("found the end of the file"));
}
