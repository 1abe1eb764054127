// Hostile `.hw` inputs: zero, negative, NaN, inf and absurd figures. Each is a diagnostic, or (where
// the figure is legal but extreme) a simulation with finite results or a clear refusal.
#include "hostile.hpp"

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
  for (const std::string value : {"0 TFLOP/s", "-1 TFLOP/s", "nan TFLOP/s", "inf TFLOP/s", "-inf TFLOP/s", "NaN TFLOP/s",
                                  "Infinity TFLOP/s", "1e309 TFLOP/s", "-0 TFLOP/s", "0e0 TFLOP/s", "1e-400 TFLOP/s"}) {
    CAPTURE(value);
    const std::string error = hw_error(device_with("peak.fp16 = " + value));
    CHECK_THAT(error, Catch::StartsWith("hostile.hw:6:") && Catch::Contains("error:"));
  }
}

TEST_CASE("every kind of figure refuses zero, negative and non-finite values") {
  for (const std::string key : {"memory.size", "l2.size"})
    for (const std::string v : {"0 GiB", "-40 GiB", "nan GiB", "inf GiB"}) CHECK_THAT(hw_error(device_with(key + " = " + v)), Catch::Contains("error:"));
  for (const std::string v : {"0 us", "-5 us", "nan us", "inf s"})
    CHECK_THAT(hw_error(device_with("launch_overhead = " + v)), Catch::Contains("error:"));
  for (const std::string v : {"0", "-1", "nan", "1.5", "1e300", "inf", "0 %", "101 %", "1.01", "-5 %"})
    CHECK_THAT(hw_error(device_with("ppp.matmul.compute = " + v)), Catch::Contains("error:"));
  for (const std::string v : {"0", "-8", "2.5", "1e300", "nan"})
    CHECK_THAT(hw_error(device_with("link.nvlink.bandwidth = 300 GB/s\n  system.interconnect = nvlink\n  system.count = " + v)),
               Catch::Contains("error:"));
}

TEST_CASE("extreme but legal figures simulate to finite numbers or a clear refusal") {
  // The smallest and largest positive doubles as figures: times may be huge, but never inf or NaN.
  for (const std::string peak : {"1e-300 FLOP/s", "4.9e-324 FLOP/s", "1e300 EFLOP/s", "1.7e308 FLOP/s"})
    for (const std::string bw : {"1e-300 B/s", "1.7e308 B/s"}) {
      CAPTURE(peak, bw);
      const std::string text = "device \"x\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = " + peak +
                               "\n  memory.bandwidth = " + bw + "\n}\n";
      ir::Device dev;
      try {
        dev = lang::parse_device(text, "extreme.hw");
      } catch (const lang::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("error:"));
        continue;
      }
      try {
        const engine::Report r = engine::simulate(tiny(), dev, {.batch = 256});
        CHECK(reliability::all_finite(r));
      } catch (const engine::SimulationError& e) {
        CHECK(std::string(e.what()).size() > 0);
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
    CHECK_THAT(hw_error(device_with(repeat("peak.fp16 = 1 TFLOP/s\n  ", 100000))), Catch::Contains("error:"));
    CHECK(hw_error(device_with("provenance = \"" + repeat("a", 100000) + "\"")).empty());
    CHECK_THAT(hw_error(device_with("peak.fp16 = " + repeat("9", 100000) + " TFLOP/s")), Catch::Contains("error:"));
    CHECK_THAT(hw_error(device_with("peak.fp16 = 0." + repeat("0", 100000) + "1 TFLOP/s")), Catch::Contains("error:"));
  });
  CHECK(s < 2.0);
}

TEST_CASE("nested braces, unterminated strings and stray bytes in .hw are errors") {
  CHECK_THAT(hw_error(repeat("{", 100000)), Catch::Contains("error:"));
  CHECK_THAT(hw_error("device \"x" + repeat("\\", 10000)), Catch::Contains("error:"));
  CHECK_THAT(hw_error(device_with("source = \"unterminated")), Catch::Contains("error:"));
  CHECK_THAT(hw_error(device_with("\x01\x02\x7f\xff\xfe")), Catch::Contains("error:"));
  CHECK_THAT(hw_error(""), Catch::Contains("error:"));
}
