// Helpers for the tests that run the simulate program on hostile inputs and check its outputs.
#pragma once

#include "tests/reliability/hostile.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

namespace ridge::reliability::cli {

namespace fs = std::filesystem;

using Run = ridge::testing::ProgramRun;
using ridge::testing::slurp;

inline fs::path fresh(const std::string& name) {
  const fs::path d = ridge::reliability::scratch() / "outputs" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary | std::ios::trunc) << text; }
inline std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

inline Run simulate(const std::string& args) {
  return ridge::testing::run_program(RIDGE_SIMULATE, args, ridge::reliability::scratch() / "outputs-capture");
}

inline void check_refused(const Run& r, const std::string& expected) {
  INFO(r.err);
  CHECK(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains(expected));
  CHECK(r.out.empty());
}

inline std::size_t entries(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

inline const std::string kNet = "network n {\n  input x: [3, 32, 32]\n  return x -> conv(16, 3) -> relu -> flatten -> linear(10)\n}\n";
inline std::string hw_named(const std::string& name, const std::string& extra = "") {
  return "device \"" + name + "\" {\n  kind = gpu\n  source = \"test\"\n  peak.fp32 = 10 TFLOP/s\n  memory.bandwidth = 1 TB/s\n" +
         extra + "}\n";
}


}  // namespace ridge::reliability::cli
