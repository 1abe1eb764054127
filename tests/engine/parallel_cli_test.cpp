// The parallel options of the simulate program, run as a user would.
#include "tests/engine/json_parse.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using Run = ridge::testing::ProgramRun;

Run simulate(const std::string& args) {
  const fs::path d = fs::temp_directory_path() / ("ridge-parallel-cli-" + std::to_string(::getpid()));
  return ridge::testing::run_program(RIDGE_SIMULATE, args, d);
}

const std::string kGpt = std::string(RIDGE_MODELS_DIR) + "/gpt.net";
const std::string kPod = std::string(RIDGE_HW_DIR) + "/superpod-a100-80gb.hw";

}  // namespace

TEST_CASE("a strategy's JSON carries step, MFU, tokens/s, memory, bubble and every collective's time") {
  const Run r = simulate(kGpt + " " + kPod + " --dtype bf16 --optimizer adam --tensor-parallel 2 --pipeline-parallel 2 "
                                             "--data-parallel 2 --global-batch 16 --micro-batch 2 --format json");
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  const auto doc = ridge::testing::parse_json(r.out);
  CHECK(doc["schema"].string == "ridge/1");   // the one document shape, the plan as its "parallel" member
  const auto& j = doc["parallel"];
  CHECK(j["devices"].number == 8);
  const auto& s = j["strategies"].array.at(0);
  for (const char* key : {"step_s", "mfu", "tokens_per_s", "memory_per_device_bytes", "bubble_fraction"}) {
    CAPTURE(key);
    CHECK(s[key].number > 0);
  }
  // 16 samples in micro-batches of 2 over 2 replicas: 4 micro-batches; bubble (2 - 1) / 4.
  CHECK(s["micro_batches"].number == 4);
  CHECK(s["bubble_fraction"].number == 0.25);
  for (const char* c : {"tensor_parallel", "pipeline_p2p", "data_parallel"}) {
    CAPTURE(c);
    CHECK(s["collectives"][c]["exposed_s"].number > 0);
  }
}

TEST_CASE("a strategy that does not divide the model is refused with a clear error") {
  const Run r = simulate(kGpt + " " + kPod + " --tensor-parallel 5 --global-batch 8");
  REQUIRE(r.exited);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("--tensor-parallel 5 does not divide the 12 attention heads"));
  CHECK(r.out.empty());
}

TEST_CASE("simulate --search prints the fastest strategies that fit") {
  const Run r = simulate(kGpt + " " + kPod + " --dtype bf16 --optimizer adam --search --devices 16 --global-batch 64 --top 3");
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("strategy") && Catch::Contains("MFU") && Catch::Contains("memory/device"));
  CHECK_THAT(r.out, Catch::Contains("strategies that divide the model"));
}
