// calibrate's command line, torch-free (validate/calibrate_command.hpp): what it accepts, what it
// refuses before anything is measured, and where CLI11 answers by itself.
#include "validate/calibrate_command.hpp"

#include "engine/io/output_safety.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace ridge;

namespace {

struct Run {
  validate::ParsedCommand parsed;
  std::string out, err;
};

Run parse(std::vector<std::string> args) {
  args.insert(args.begin(), "calibrate");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Run r{validate::parse_calibrate_command(static_cast<int>(argv.size()), argv.data(), out, err), "", ""};
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("calibrate's command line: networks loaded in order, held-out ones marked, options read") {
  const Run r = parse({"--out", "/tmp/ridge-cmd.hw", "--batch", "4", "--dtype", "bf16", "--device", "cuda:1", "--threads",
                       "2", "--seq-len", "64", "--no-probes", "--size-bands", "0", "--gemm-size", "512", "--fit-launch-overhead", "alexnet",
                       "--holdout", "resnet18", "gpt2"});
  REQUIRE(r.parsed.command);
  const validate::CalibrateCommand& c = *r.parsed.command;
  CHECK(c.device.cuda);
  CHECK(c.device.index == 1);
  CHECK(c.batch == 4);
  CHECK(c.precision == ir::Precision::BF16);
  CHECK(c.threads == 2);
  CHECK_FALSE(c.probes);
  CHECK_FALSE(c.measure_dispatch);   // --fit-launch-overhead: fitted, as before issue #37
  CHECK(c.layers);
  CHECK_FALSE(c.fit.by_size);
  CHECK(c.gemm_size == 512);
  REQUIRE(c.networks.size() == 3);
  CHECK(c.networks[0].network.name == "alexnet");
  CHECK_FALSE(c.networks[0].holdout);
  CHECK(c.networks[1].holdout);
  CHECK(c.networks[2].holdout);
  // --seq-len reached the language model only: GPT-2's input is [seq_len] tokens.
  CHECK(c.networks[2].network.input().output == ir::Shape{64});
  // Several networks: one CSV per network beside --measurements' name.
  validate::CalibrateCommand one = c;
  one.measurements = "/tmp/m.csv";
  CHECK(one.measurements_path_for("alexnet") == "/tmp/m-alexnet.csv");
  one.networks.resize(1);
  CHECK(one.measurements_path_for("alexnet") == "/tmp/m.csv");
}

TEST_CASE("calibrate's command line: --help and usage errors are CLI11's answers, not exceptions") {
  const Run help = parse({"--help"});
  CHECK_FALSE(help.parsed.command);
  CHECK(help.parsed.exit_code == 0);
  CHECK(help.out.find("--holdout") != std::string::npos);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"alexnet"},                                    // no --out
        std::vector<std::string>{"--out", "/tmp/x.hw"},                         // no network
        std::vector<std::string>{"--out", "/tmp/x.hw", "--batch", "0", "alexnet"},
        std::vector<std::string>{"--out", "/tmp/x.hw", "--gemm-size", "0", "alexnet"},
        std::vector<std::string>{"--out", "/tmp/x.hw", "--budget", "-1", "alexnet"},
        std::vector<std::string>{"--out", "/tmp/x.hw", "--frobnicate", "alexnet"}}) {
    CAPTURE(args);
    const Run r = parse(args);
    CHECK_FALSE(r.parsed.command);
    CHECK(r.parsed.exit_code != 0);
    CHECK_FALSE(r.err.empty());
  }
}

TEST_CASE("calibrate's command line: what it refuses before anything is measured, and why") {
  CHECK_THROWS_WITH(parse({"--out", "/tmp/x.hw", "--device", "gpu", "alexnet"}).parsed,
                    Catch::Contains("--device must be cpu, cuda or cuda:N"));
  CHECK_THROWS_WITH(parse({"--out", "/tmp/x.hw", "--device", "cuda:-1", "alexnet"}).parsed,
                    Catch::Contains("--device must be"));
  CHECK_THROWS_WITH(parse({"--out", "/tmp/x.hw", "--dtype", "fp7", "alexnet"}).parsed, Catch::Contains("--dtype: 'fp7' is not one of fp64, fp32"));
  CHECK_THROWS_WITH(parse({"--out", "/tmp/x.hw", "--set", "sequnce=64", "gpt2"}).parsed,
                    Catch::Contains("no network given declares a parameter 'sequnce'"));
  CHECK_THROWS_WITH(parse({"--out", "/tmp/x.hw", "--set", "novalue", "gpt2"}).parsed, Catch::Contains("expected name=value"));
  CHECK_THROWS_AS(parse({"--out", "/tmp/x.hw", "no-such-network"}).parsed, lang::Error);
  // An output that names an input (or another output) is refused: a run never destroys its inputs.
  const std::string alexnet = std::string(RIDGE_MODELS_DIR) + "/alexnet.net";
  CHECK_THROWS_AS(parse({"--out", alexnet, "alexnet"}).parsed, engine::io::OutputConflict);
  CHECK_THROWS_AS(parse({"--out", "/tmp/x.hw", "--measurements", alexnet, "alexnet"}).parsed, engine::io::OutputConflict);
  CHECK_THROWS_AS(parse({"--out", "/tmp/x.hw", "--measurements", "/tmp/x.hw", "alexnet"}).parsed, engine::io::OutputConflict);
}
