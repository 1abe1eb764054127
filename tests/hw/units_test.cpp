// Units of `.hw` figures: conversions to SI base units, and the errors for wrong or missing units.
#include "lang/hw/units.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using ridge::lang::hw::Dimension;
using ridge::lang::hw::parse_unit;

namespace {

// One-figure device, so a unit can be tried on a key of a known dimension.
std::string device_with(const std::string& line) {
  return "device \"test\" {\n  kind = gpu\n  source = \"test\"\n  " + line + "\n}\n";
}

double figure(const std::string& line, double (*pick)(const ridge::ir::Device&)) {
  return pick(ridge::lang::parse_device(device_with(line), "test.hw"));
}

}  // namespace

TEST_CASE("units convert to SI base units") {
  // Exact powers and decimal prefixes: the conversions are products of exact or nearly exact
  // doubles, so 1e-12 relative is ample.
  const auto [unit, dimension, scale] = GENERATE(table<std::string, Dimension, double>({
      {"GiB", Dimension::Size, 1073741824.0},  // 2^30
      {"KiB", Dimension::Size, 1024.0},
      {"MiB", Dimension::Size, 1048576.0},
      {"TiB", Dimension::Size, 1099511627776.0},
      {"GB", Dimension::Size, 1e9},
      {"B", Dimension::Size, 1.0},
      {"GB/s", Dimension::Bandwidth, 1e9},
      {"GiB/s", Dimension::Bandwidth, 1073741824.0},
      {"Gb/s", Dimension::Bandwidth, 1e9 / 8},
      {"TFLOP/s", Dimension::Rate, 1e12},
      {"TOP/s", Dimension::Rate, 1e12},
      {"PFLOP/s", Dimension::Rate, 1e15},
      {"EFLOP/s", Dimension::Rate, 1e18},
      {"kFLOP/s", Dimension::Rate, 1e3},
      {"FLOP", Dimension::Work, 1.0},   // an op's size, for a PPP curve over size
      {"GFLOP", Dimension::Work, 1e9},
      {"MOP", Dimension::Work, 1e6},
      {"s", Dimension::Time, 1.0},
      {"ms", Dimension::Time, 1e-3},
      {"us", Dimension::Time, 1e-6},
      {"ns", Dimension::Time, 1e-9},
      {"%", Dimension::Fraction, 0.01},
      {"USD/h", Dimension::Price, 1.0},
  }));
  CAPTURE(unit);
  const auto parsed = parse_unit(unit);
  REQUIRE(parsed);
  CHECK(parsed->dimension == dimension);
  CHECK_THAT(parsed->scale, Catch::Matchers::WithinRel(scale, 1e-12));
}

TEST_CASE("units that are not units are refused") {
  const std::string unit = GENERATE("TFLOPS", "GBps", "gb/s", "Kib", "ks", "GFLOPS", "x", "KB", "USD", "kUSD/h");
  CAPTURE(unit);
  CHECK_FALSE(parse_unit(unit));
}

TEST_CASE("figures in a .hw file arrive in SI base units") {
  CHECK(figure("memory.size = 1 GiB", [](const auto& d) { return d.memory_size->value; }) == 1073741824.0);
  CHECK_THAT(figure("memory.bandwidth = 1555 GB/s", [](const auto& d) { return d.memory_bandwidth->value; }),
             Catch::Matchers::WithinRel(1.555e12, 1e-12));
  CHECK_THAT(figure("launch_overhead = 5 us", [](const auto& d) { return d.launch_overhead->value; }),
             Catch::Matchers::WithinRel(5e-6, 1e-12));
  CHECK(figure("price = 2.5 USD/h source \"an offer\"", [](const auto& d) { return d.price->value; }) == 2.5);
  CHECK_THAT(figure("ppp.matmul.compute = 70 %",
                    [](const auto& d) { return d.ppp.at({ridge::ir::OpClass::MatMul, std::nullopt}).compute->value; }),
             Catch::Matchers::WithinRel(0.7, 1e-12));
  CHECK_THAT(figure("ppp.matmul.memory = 0.7", [](const auto& d) {
               return d.ppp.at({ridge::ir::OpClass::MatMul, std::nullopt}).memory->value;
             }),
             Catch::Matchers::WithinRel(0.7, 1e-12));
}
