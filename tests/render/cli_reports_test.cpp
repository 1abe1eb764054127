// The report options of the simulate program, run as a user would: files appear, parse and render;
// stdout stays one valid document per format.
#include "tests/render/fixtures.hpp"

#include "tests/engine/json_parse.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/wait.h>

namespace fs = std::filesystem;
using ridge::testing::Json;

namespace {

using Run = ridge::testing::ProgramRun;
using ridge::testing::slurp;

std::string model(const char* n) { return std::string("'") + RIDGE_MODELS_DIR + "/" + n + ".net'"; }
std::string hw(const char* n) { return std::string("'") + RIDGE_HW_DIR + "/" + n + ".hw'"; }

Run simulate(const std::string& args) { return ridge::testing::run_program(RIDGE_SIMULATE, args, ridge::testing::temp_dir()); }

}  // namespace

TEST_CASE("simulate --svg writes a roofline and --trace a trace that parses") {
  const fs::path dir = ridge::testing::temp_dir();
  const fs::path svg = dir / "vgg19.svg", trace = dir / "vgg19.json";
  fs::remove(svg);
  fs::remove(trace);
  const Run r = simulate(model("vgg19") + " " + hw("a100-sxm4-40gb") + " --batch 8 --svg '" + svg.string() +
                         "' --trace '" + trace.string() + "'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string s = slurp(svg);
  CHECK(s.rfind("<?xml", 0) == 0);
  CHECK(s.find("ridge point 12.5 FLOP/B") != std::string::npos);
  CHECK(s.find("arithmetic intensity (FLOP/byte)") != std::string::npos);
  CHECK(s.find("performance (FLOP/s)") != std::string::npos);
  const Json t = ridge::testing::JsonParser(slurp(trace)).parse();
  CHECK(t["traceEvents"].array.size() > 50);
}

TEST_CASE("simulate --devices prints the scaling table after the report") {
  const Run r = simulate(model("resnet50") + " " + hw("a100-sxm4-40gb") +
                         " --batch 256 --devices 8 --link pcie --overlap --dataset-size 1281167");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Data-parallel strong scaling: resnet50") != std::string::npos);
  CHECK(r.out.find("link: pcie") != std::string::npos);
  CHECK(r.out.find("epoch") != std::string::npos);
}

TEST_CASE("simulate --devices with --format json stays one JSON document") {
  const Run r = simulate(model("resnet18") + " " + hw("a100-sxm4-40gb") + " --batch 64 --devices 4 --scaling weak --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const Json j = ridge::testing::JsonParser(r.out).parse();
  CHECK(j["runs"].array.size() == 1);
  const auto& rows = j["scaling"].array;
  REQUIRE(rows.size() == 3);   // 1, 2, 4 devices
  for (const Json& row : rows) {
    CHECK(row["scaling"].string == "weak");
    CHECK(row["network"].string == "resnet18");
    CHECK(row["batch"].number == 64);
  }
  CHECK(rows[2]["devices"].number == 4);
  CHECK(rows[2]["global_batch"].number == 256);
}

TEST_CASE("simulate with several networks ranks them and sweeps dtypes") {
  const fs::path dir = ridge::testing::temp_dir() / "sweep";
  fs::create_directories(dir);
  const Run r = simulate(model("resnet18") + " " + model("vgg11") + " " + model("mobilenet_v2") + " " + hw("t4") +
                         " --batch 1,32 --dtype fp32,fp16 --svg '" + (dir / "s.svg").string() + "'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Spearman rank correlation across 3 networks") != std::string::npos);
  CHECK(fs::exists(dir / "s-throughput-vs-batch.svg"));
  CHECK(fs::exists(dir / "s-latency-vs-flops.svg"));
  CHECK(fs::exists(dir / "s-roofline-t4-fp16-b32.svg"));
}

TEST_CASE("simulate refuses a link the device does not have and writes nothing") {
  const fs::path svg = ridge::testing::temp_dir() / "refused.svg";
  fs::remove(svg);
  const Run r = simulate(model("resnet18") + " " + hw("a100-sxm4-40gb") + " --devices 2 --batch 8 --link ethernet --svg '" +
                         svg.string() + "'");
  CHECK(r.status == 1);
  CHECK(r.err.find("no link 'ethernet'") != std::string::npos);
  CHECK_FALSE(fs::exists(svg));
}

TEST_CASE("simulate rejects a bad dtype in a list") {
  const Run r = simulate(model("resnet18") + " " + hw("a100-sxm4-40gb") + " --dtype fp32,fp12");
  CHECK(r.status == 1);
  CHECK(r.err.find("fp12") != std::string::npos);
}
