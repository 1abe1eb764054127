// The simulate program, run as a user would. Output goes through files, not pipes, to keep it simple.
#include "tests/engine/json_parse.hpp"
#include "tests/support/run_program.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using Run = ridge::testing::ProgramRun;
using ridge::testing::slurp;

fs::path dir() {
  const fs::path d = fs::temp_directory_path() / ("ridge-cli-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

Run simulate(const std::string& args) { return ridge::testing::run_program(RIDGE_SIMULATE, args, dir()); }

std::string file(const std::string& folder, const std::string& name) { return folder + "/" + name; }

}  // namespace

TEST_CASE("simulate with a missing network file fails with a diagnostic") {
  const Run r = simulate("/nonexistent/model.net /nonexistent/device.hw");
  REQUIRE(r.exited);   // a crash is not a refusal
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("/nonexistent/model.net: error: cannot open file"));
  CHECK(r.out.empty());
}

TEST_CASE("simulate rejects bad options with a message") {
  // Each refusal: the program exited (not killed), with status 1 and the option named in the message.
  const std::pair<std::string, std::string> cases[] = {
      {"a.net b.hw --batch 0", "simulate: error: --batch: '0' is not a batch size between 1 and 16777216"},
      {"a.net b.hw --batch 1,x", "simulate: error: --batch: 'x' is not a batch size between 1 and 16777216"},
      {"a.net b.hw --dtype fp12", "simulate: error: --dtype: 'fp12' is not one of fp64, fp32, tf32, fp16, bf16, fp8, int8"},
      // Issue #41: a malformed --dim was reported as a malformed --set.
      {"a.net b.hw --dim seq", "simulate: error: --dim: expected name=value, got 'seq'"},
      {"a.net b.hw --set seq", "simulate: error: --set: expected name=value, got 'seq'"}};
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    const Run r = simulate(args);
    REQUIRE(r.exited);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith(message));
    CHECK(r.out.empty());
  }
  // No arguments: the option parser's usage error (CLI11's RequiredError exit code, 106).
  const Run none = simulate("");
  REQUIRE(none.exited);
  CHECK(none.status == 106);
  CHECK_THAT(none.err, Catch::Contains("network is required"));
}

TEST_CASE("simulate --devices takes 1 ..= 65536 (docs/language.md, Limits)") {
  const std::string net = file(RIDGE_MODELS_DIR, "resnet18.net");
  const std::string hw = file(RIDGE_HW_DIR, "a100-sxm4-40gb.hw");
  for (const char* devices : {"0", "65537", "-1", "x"}) {
    CAPTURE(devices);
    const Run r = simulate("'" + net + "' '" + hw + "' --devices " + devices);
    REQUIRE(r.exited);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith(std::string("simulate: error: --devices: '") + devices +
                                        "' is not a device count between 1 and 65536"));
    CHECK(r.out.empty());
  }
  for (const char* devices : {"1", "65536"}) {
    CAPTURE(devices);
    const Run r = simulate("'" + net + "' '" + hw + "' --devices " + devices + " --scaling weak --format csv");
    INFO(r.err);
    REQUIRE(r.exited);
    CHECK(r.status == 0);
    CHECK_FALSE(r.out.empty());
  }
}

TEST_CASE("simulate -o leaves the previous file untouched when it fails") {
  // A folder of its own, emptied first: dir() is named by the process id, which a later run (the ASan
  // suite after the Release one) can be given again, with the earlier run's files still in it.
  const fs::path folder = dir() / "untouched";
  fs::remove_all(folder);
  fs::create_directories(folder);
  const fs::path target = folder / "report.json";
  { std::ofstream(target) << "previous"; }
  const Run r = simulate("/nonexistent/model.net /nonexistent/device.hw -o '" + target.string() + "'");
  CHECK(r.status != 0);
  CHECK(slurp(target) == "previous");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder)) ++n;
  CHECK(n == 1);   // report.json alone: no temporary left beside it
}

TEST_CASE("simulate runs VGG-19 on the A100 end to end") {
  const std::string net = file(RIDGE_MODELS_DIR, "vgg19.net");
  const std::string hw = file(RIDGE_HW_DIR, "a100-sxm4-40gb.hw");
  REQUIRE(fs::exists(net));
  REQUIRE(fs::exists(hw));
  const Run table = simulate("'" + net + "' '" + hw + "' --batch 64");
  INFO(table.err);
  REQUIRE(table.status == 0);
  CHECK(table.out.find("ridge point") != std::string::npos);
  const fs::path target = dir() / "vgg19.json";
  const Run json = simulate("'" + net + "' '" + hw + "' --batch 64 --format json -o '" + target.string() + "'");
  REQUIRE(json.status == 0);
  const auto j = ridge::testing::parse_json(slurp(target));
  // torchvision VGG19_Weights.IMAGENET1K_V1: 143,667,240 parameters, 19.63 GFLOPS (MACs) per sample.
  CHECK(j["runs"].array.at(0)["params"].number == 143667240);
  CHECK(j["runs"].array.at(0)["macs"].number / 64 == Approx(19.63e9).epsilon(0.001));
  const Run cmp = simulate("'" + net + "' '" + hw + "' '" + hw + "' --batch 1,8 --format csv");
  REQUIRE(cmp.status == 0);
  CHECK(std::count(cmp.out.begin(), cmp.out.end(), '\n') == 5);
}

TEST_CASE("simulate takes zoo and catalogue names as well as paths") {
  // Run from a folder with no models/ or hw/: the names resolve to the source tree's catalogue.
  const Run by_name = simulate("vgg19 a100-sxm4-40gb --batch 64 --format json");
  INFO(by_name.err);
  REQUIRE(by_name.status == 0);
  const Run by_path = simulate("'" + file(RIDGE_MODELS_DIR, "vgg19.net") + "' '" + file(RIDGE_HW_DIR, "a100-sxm4-40gb.hw") +
                               "' --batch 64 --format json");
  REQUIRE(by_path.status == 0);
  CHECK(by_name.out == by_path.out);
  const Run unknown = simulate("no_such_net a100-sxm4-40gb");
  CHECK(unknown.status == 1);
  CHECK_THAT(unknown.err, Catch::StartsWith("no_such_net: error: cannot open file"));
}

TEST_CASE("a system .hw simulates at the default batch, its scaling table where the batch splits") {
  // dgx-a100-40gb.hw is 8 A100s: batch 1 cannot be split over them, so no scaling rows were asked
  // for and none are made; the note says how to get them. At batch 8 the rows 1, 2, 4, 8 appear.
  const Run one = simulate("resnet50 dgx-a100-40gb");
  INFO(one.err);
  REQUIRE(one.status == 0);
  CHECK_THAT(one.out, Catch::Contains("Totals (resnet50, batch 1, fp32)"));
  CHECK_THAT(one.out, Catch::Contains("batch 1 cannot be split over them"));
  const Run eight = simulate("resnet50 dgx-a100-40gb --batch 8");
  REQUIRE(eight.status == 0);
  CHECK_THAT(eight.out, !Catch::Contains("cannot be split"));
  CHECK_THAT(eight.out, Catch::Contains("speedup"));
  // Asked for explicitly, an impossible split is still an error.
  const Run asked = simulate("resnet50 dgx-a100-40gb --devices 8");
  CHECK(asked.status == 1);
  CHECK_THAT(asked.err, Catch::Contains("batch 1 cannot be split over 8 devices"));
}

TEST_CASE("the table sums per block with --depth and ranks layers by time with --top") {
  const Run depth = simulate("resnet50 a100-sxm4-40gb --depth 1");
  INFO(depth.err);
  REQUIRE(depth.status == 0);
  CHECK_THAT(depth.out, Catch::Contains("Block") && Catch::Contains("\nlayer3 ") && Catch::Contains("Totals (resnet50"));
  CHECK_THAT(depth.out, !Catch::Contains("layer3.bottleneck1"));
  const Run top = simulate("resnet50 a100-sxm4-40gb --top 3 --pass forward");
  REQUIRE(top.status == 0);
  CHECK_THAT(top.out, Catch::Contains("Share") && Catch::Contains("Cumulative"));
  // The header, three layers, and the rules around them, before the totals.
  const std::string grid = top.out.substr(0, top.out.find("Totals"));
  CHECK(std::count(grid.begin(), grid.end(), '\n') == 3 + 4);
  // The engine computes the rows, so JSON and CSV carry the same ones (issue #34: renderers compute
  // nothing, and what the table shows reaches every format).
  const Run json = simulate("resnet50 a100-sxm4-40gb --top 3 --pass forward --format json");
  INFO(json.err);
  REQUIRE(json.status == 0);
  const auto doc = ridge::testing::parse_json(json.out);
  const auto& rows = doc["breakdown"].array;
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["time_fwd_s"].number >= rows[1]["time_fwd_s"].number);
  CHECK(rows[1]["time_fwd_s"].number >= rows[2]["time_fwd_s"].number);
  CHECK(rows[2]["cumulative"].number > rows[0]["share"].number);
  const Run csv = simulate("resnet50 a100-sxm4-40gb --depth 1 --format csv");
  REQUIRE(csv.status == 0);
  CHECK(csv.out.rfind("network,device,device_id,batch,dtype,name,op,layers,", 0) == 0);
  CHECK_THAT(csv.out, Catch::Contains(",layer3,,"));
  const Run two = simulate("resnet50 a100-sxm4-40gb t4 --top 3");
  CHECK(two.status == 1);
  CHECK_THAT(two.err, Catch::Contains("--depth and --top show one report"));
}

namespace {

// Fields of one CSV line (RFC 4180 quoting, as the renderers write it).
std::size_t csv_fields(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) ++n;
  }
  return n;
}

// Every line has the header's number of fields: one table, loadable by csv.DictReader or pandas.
void check_tidy(const std::string& text, const std::string& header_start) {
  std::istringstream lines(text);
  std::string header;
  std::getline(lines, header);
  CHECK_THAT(header, Catch::StartsWith(header_start));
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    CAPTURE(line);
    CHECK(csv_fields(line) == csv_fields(header));
  }
  CHECK(rows > 0);
}

}  // namespace

TEST_CASE("CSV is one tidy table per file: the scaling table goes to a file of its own") {
  const fs::path out = dir() / "tidy";
  fs::remove_all(out);
  fs::create_directories(out);
  const Run r = simulate("resnet50 a100-sxm4-40gb --batch 8 --devices 4 --format csv -o '" + (out / "r.csv").string() + "'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("the scaling table (CSV): " + (out / "r-scaling.csv").string()));
  check_tidy(slurp(out / "r.csv"), "network,device,device_id,batch,dtype,name,op,op_class");
  check_tidy(slurp(out / "r-scaling.csv"), "network,device,device_id,batch,dtype,scaling");
  // A sweep's comparison rows carry the network.
  const Run sweep = simulate("resnet50 a100-sxm4-40gb --batch 1,8 --format csv");
  REQUIRE(sweep.status == 0);
  check_tidy(sweep.out, "network,device,device_id,batch,dtype");
  CHECK_THAT(sweep.out, Catch::Contains("\nresnet50,"));
}

TEST_CASE("With the report on standard output no file is written that the user did not name (issue #34)") {
  // It wrote NETWORK-scaling.csv into the working directory; the side table is left out, with a note
  // that says how to get it.
  const fs::path scratch = dir() / "stdout-only";
  fs::remove_all(scratch);
  const ridge::testing::ProgramRun r = ridge::testing::run_program(
      RIDGE_SIMULATE, "resnet50 a100-sxm4-40gb --batch 8 --devices 4 --format csv", scratch);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(scratch)) made.push_back(e.path().filename().string());
  std::sort(made.begin(), made.end());
  CHECK(made == std::vector<std::string>{"program.err", "program.out"});
  CHECK_THAT(r.err, Catch::Contains("the scaling table (CSV) is left out: give -o FILE"));
  check_tidy(r.out, "network,device,device_id,batch,dtype,name,op,op_class");
}

TEST_CASE("measured times without --svg show beside the predictions in the table") {
  const fs::path csv = dir() / "measured.csv";
  std::ofstream(csv) << "layer,pass,seconds\nstage1.conv1,forward,0.00005\nstage1.conv1,backward,0.0001\n";
  const Run r = simulate("vgg19 a100-sxm4-40gb --measured '" + csv.string() + "'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Measured fwd") && Catch::Contains("50.0 us") && Catch::Contains("1 of 46 layers"));
  // JSON carries the same pairs, every layer with its error where it was measured.
  const Run json = simulate("vgg19 a100-sxm4-40gb --format json --measured '" + csv.string() + "'");
  INFO(json.err);
  REQUIRE(json.status == 0);
  const auto rows = ridge::testing::parse_json(json.out)["measured"].array;
  REQUIRE(rows.size() == 46);
  CHECK(rows[0]["name"].string == "stage1.conv1");
  CHECK(rows[0]["measured_fwd_s"].number == 0.00005);
  CHECK(rows[0]["error_fwd"].number == (rows[0]["predicted_fwd_s"].number - 0.00005) / 0.00005);
  CHECK(rows[1]["measured_fwd_s"].type == ridge::testing::Json::Type::Null);
  // Where the table cannot hold them (it shows the breakdown instead), it says so rather than doing nothing.
  const Run top = simulate("vgg19 a100-sxm4-40gb --top 3 --measured '" + csv.string() + "'");
  CHECK(top.status == 1);
  CHECK_THAT(top.err, Catch::Contains("--measured puts measured times beside the predictions in the table"));
  const Run two = simulate("vgg19 a100-sxm4-40gb t4 --measured '" + csv.string() + "'");
  CHECK(two.status == 1);
  CHECK_THAT(two.err, Catch::Contains("--measured pairs measured times with the predictions of one report"));
}

TEST_CASE("simulate --prompt --generate reports a decoder's inference phases in JSON") {
  // Llama-2-7B in fp16 on an H100: 128 prompt tokens, 20 generated; KV cache 524,288 B per token
  // (2 x 32 layers x 4096 x 2 B) for the 147 tokens cached at the peak (the 20th is never fed back).
  const Run r = simulate("llama2_7b h100-sxm5 --dtype fp16 --prompt 128 --generate 20 --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto j = ridge::testing::parse_json(r.out)["generation"].array.at(0);
  CHECK(j["kv_cache_bytes"].number == 524288.0 * 147);
  for (const char* key : {"prefill_s", "decode_per_token_s", "latency_s", "tokens_per_s"}) {
    INFO(key);
    CHECK(j[key].number > 0);
  }
  // 20 tokens: the prefill gives the first, 19 decode steps the rest.
  CHECK(j["latency_s"].number == Approx(j["prefill_s"].number + 19 * j["decode_per_token_s"].number).epsilon(1e-12));
  const Run cnn = simulate("resnet18 h100-sxm5 --prompt 8 --generate 8");
  CHECK(cnn.status == 1);
  const Run half = simulate("llama2_7b h100-sxm5 --prompt 8");
  CHECK(half.status == 1);
  CHECK_THAT(half.err, Catch::Contains("--prompt and --generate go together"));
}

TEST_CASE("simulate --prompt --generate --tensor-parallel puts a 70B decoder on four GPUs of a DGX") {
  // Llama-2-70B in bf16 is 138 GB of weights (69B parameters x 2 B): more than one 80 GB A100, a quarter
  // of it (and of the KV cache) on each of four.
  const Run one = simulate("llama2_70b dgx-a100-80gb --dtype bf16 --prompt 128 --generate 128");
  REQUIRE(one.status == 0);
  CHECK_THAT(one.out, Catch::Contains("DOES NOT FIT in 80.0 GiB"));
  const Run four = simulate("llama2_70b dgx-a100-80gb --dtype bf16 --prompt 128 --generate 128 --tensor-parallel 4 --format json");
  INFO(four.err);
  REQUIRE(four.status == 0);
  const auto g = ridge::testing::parse_json(four.out)["generation"].array.at(0);
  CHECK(g["tensor_parallel"].number == 4);
  CHECK(g["memory_per_device_bytes"].number < 80.0 * (1 << 30));
  CHECK(g["memory_per_device_bytes"].number > g["weight_bytes"].number / 4);
  CHECK(g["fits"].boolean);
  CHECK(g["communication_decode_s"].number > 0);
  const Run replicas = simulate("llama2_70b dgx-a100-80gb --prompt 128 --generate 128 --data-parallel 2");
  CHECK(replicas.status == 1);
  CHECK_THAT(replicas.err, Catch::Contains("--data-parallel, --search"));
}

TEST_CASE("simulate --serve reports a deployment under a load, the same with the same seed") {
  const std::string args = "llama2_7b h100-sxm5 --dtype bf16 --serve --rate 2 --duration 20 --prompt-tokens 100..300 "
                           "--output-tokens 20..60 --slo-ttft 0.5 --slo-tpot 0.05 --format json";
  const Run r = simulate(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto row = ridge::testing::parse_json(r.out)["serving"].array.at(0);
  CHECK(row["requests"].number > 10);
  CHECK(row["prompt_tokens_low"].number == 100);
  CHECK(row["output_tokens_high"].number == 60);
  CHECK(row["slo_ttft_s"].number == 0.5);
  CHECK(row["ttft_p50_s"].number <= row["ttft_p99_s"].number);
  CHECK(row["tpot_mean_s"].number > 0);
  CHECK(simulate(args).out == r.out);                 // seeded: the same run again
  CHECK(simulate(args + " --seed 2").out != r.out);
  const Run both = simulate("llama2_7b h100-sxm5 --serve --prompt 8 --generate 8");
  CHECK(both.status == 1);
  CHECK_THAT(both.err, Catch::Contains("--serve takes its load from"));
  const Run backwards = simulate("llama2_7b h100-sxm5 --serve --prompt-tokens 300..100");
  CHECK(backwards.status == 1);
  CHECK_THAT(backwards.err, Catch::Contains("--prompt-tokens: '300..100' has its low end above its high end"));
  const Run cnn = simulate("resnet18 h100-sxm5 --serve");
  CHECK(cnn.status == 1);
  // Llama-2-70B's 138 GB of bf16 weights on one 80 GB GPU: no KV cache at all, said, not simulated.
  const Run full = simulate("llama2_70b h100-sxm5 --dtype bf16 --serve --duration 5");
  CHECK(full.status == 1);
  CHECK_THAT(full.err, Catch::Contains("leave no room for the KV cache"));
}

TEST_CASE("simulate --serve takes chunked prefill, replicas behind a router, bursts, and requests from a CSV") {
  const Run r = simulate("llama2_7b h100-sxm5 --dtype bf16 --serve --rate 8 --duration 10 --batching chunked --replicas 2 "
                         "--router least-outstanding --burstiness 0.5 --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto row = ridge::testing::parse_json(r.out)["serving"].array.at(0);
  CHECK(row["batching"].string == "chunked");
  CHECK(row["max_batched_tokens"].number == 512);   // vLLM's default with chunked prefill
  CHECK(row["replicas"].number == 2);
  CHECK(row["router"].string == "least-outstanding");
  CHECK(row["arrivals"].string == "gamma");
  CHECK(row["completed"].number == row["requests"].number);
  CHECK(row["utilisation"].number > 0);
  const Run text = simulate("llama2_7b h100-sxm5 --dtype bf16 --serve --rate 8 --duration 10 --batching chunked --replicas 2");
  CHECK_THAT(text.out, Catch::Contains("2 replicas (round-robin)"));
  CHECK_THAT(text.out, Catch::Contains("chunked prefill, decodes first: at most 256 sequences, 512 tokens an iteration"));

  // A trace replayed: its three requests, as they are.
  const fs::path csv = dir() / "requests.csv";
  std::ofstream(csv) << "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,2000,5\n0.75,30,40\n";
  const Run replay = simulate("llama2_7b h100-sxm5 --dtype bf16 --serve --requests '" + csv.string() + "' --format json");
  INFO(replay.err);
  REQUIRE(replay.status == 0);
  const auto replayed = ridge::testing::parse_json(replay.out)["serving"].array.at(0);
  CHECK(replayed["requests"].number == 3);
  CHECK(replayed["arrivals"].string == "trace");
  CHECK(replayed["prompt_tokens_high"].number == 2000);
  // Its prompt_tokens column as a length distribution, sampled.
  const Run sampled = simulate("llama2_7b h100-sxm5 --dtype bf16 --serve --rate 4 --duration 10 --prompt-tokens '" + csv.string() +
                               "' --format json");
  INFO(sampled.err);
  REQUIRE(sampled.status == 0);
  const auto sampled_row = ridge::testing::parse_json(sampled.out)["serving"].array.at(0);
  CHECK(sampled_row["prompt_tokens_low"].number == 30);
  CHECK(sampled_row["prompt_tokens_high"].number == 2000);
  // A bad cell is an error at its place in the file, and nothing is written.
  const fs::path bad = dir() / "bad.csv";
  std::ofstream(bad) << "arrival_s,prompt_tokens,output_tokens\n0,100,ten\n";
  const Run refused = simulate("llama2_7b h100-sxm5 --serve --requests '" + bad.string() + "'");
  CHECK(refused.status == 1);
  CHECK(refused.out.empty());
  CHECK_THAT(refused.err, Catch::Contains("bad.csv:2:7: error: expected a whole number of tokens from 1 to 1048576 [trace-value]"));
  const Run both = simulate("llama2_7b h100-sxm5 --serve --requests '" + csv.string() + "' --rate 3");
  CHECK(both.status == 1);
  CHECK_THAT(both.err, Catch::Contains("--requests gives the arrivals and lengths"));
}

TEST_CASE("simulate's training set-up flags reach the report") {
  const Run r = simulate("gpt2 a100-sxm4-40gb --dtype bf16 --optimizer adamw --recompute selective --batch 4 --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto t = ridge::testing::parse_json(r.out)["runs"].array.at(0);
  const double P = t["params"].number;
  CHECK(P == 124439808);   // GPT-2 small, tied head counted once
  CHECK(t["master_weight_bytes"].number == 4 * P);
  CHECK(t["optimizer_state_bytes"].number == 8 * P);
  CHECK(t["gradient_bytes"].number == 2 * P);
  CHECK(t["mfu"].number > 0);
  CHECK(t["hfu"].number > t["mfu"].number);
  CHECK(t["tokens_per_sample"].number == 1024);
}

TEST_CASE("simulate --serve --search names the cheapest deployment that meets the goals") {
  const std::string args = "llama2_7b h100-sxm5 a100-sxm4-40gb --dtype bf16 --serve --search --rate 20 --duration 30 "
                           "--output-tokens 64 --slo-ttft 0.3 --slo-tpot 0.02";
  const Run r = simulate(args + " --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto rows = ridge::testing::parse_json(r.out)["serving"].array;
  REQUIRE(rows.size() == 2);   // one per device file (one GPU each: one split)
  CHECK(rows.front()["meets_slo"].boolean);
  CHECK(rows.front()["price_per_hour"].number <= rows.back()["price_per_hour"].number);
  CHECK(rows.front()["price_per_hour"].number ==
        Approx(rows.front()["devices"].number * (rows.front()["device_id"].string == "h100-sxm5" ? 4.916 : 1.844)));
  const Run text = simulate(args);
  CHECK_THAT(text.out, Catch::Contains("ranked by price per hour"));
  CHECK_THAT(text.out, Catch::Contains("The first in full:"));
  const Run no_goal = simulate("llama2_7b h100-sxm5 --serve --search");
  CHECK(no_goal.status == 1);
  CHECK_THAT(no_goal.err, Catch::Contains("needs a goal to meet"));
  const Run replicas = simulate("llama2_7b h100-sxm5 --serve --search --replicas 2 --slo-ttft 1");
  CHECK(replicas.status == 1);
  CHECK_THAT(replicas.err, Catch::Contains("give --max-replicas"));
  // A model no split of the file fits is refused with the reason, not an error of the whole search.
  const Run big = simulate("llama2_70b h100-sxm5 dgx-h100 --dtype bf16 --serve --search --rate 2 --duration 10 --slo-ttft 2");
  INFO(big.err);
  REQUIRE(big.status == 0);
  CHECK_THAT(big.out, Catch::Contains("refused: h100-sxm5 at tensor parallel 1 x pipeline 1: the weights"));
}

TEST_CASE("simulate --serve --svg and --trace draw the deployment's KV cache and iterations") {
  const fs::path svg = dir() / "serve.svg", trace = dir() / "serve.json";
  const Run r = simulate("llama2_7b h100-sxm5 --dtype bf16 --serve --rate 4 --duration 10 --replicas 2 --batching chunked --svg '" +
                         svg.string() + "' --trace '" + trace.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto row = ridge::testing::parse_json(r.out)["serving"].array.at(0);
  const auto events = ridge::testing::parse_json(slurp(trace))["traceEvents"].array;
  std::size_t slices = 0, counters = 0;
  double busy = 0.0;
  for (const auto& e : events) {
    if (e["ph"].string == "X") {
      ++slices;
      busy += e["dur"].number;
    }
    if (e["ph"].string == "C") ++counters;
  }
  CHECK(slices == static_cast<std::size_t>(row["iterations"].number));   // one slice per iteration
  CHECK(counters == 2 * slices);                                           // KV cache and sequences
  // The slices' time is the replicas' busy time: utilisation x replicas x makespan.
  CHECK_THAT(busy / 1e6, Catch::Matchers::WithinRel(row["utilisation"].number * 2 * row["makespan_s"].number, 1e-6));
  const std::string picture = slurp(svg);
  CHECK_THAT(picture, Catch::StartsWith("<?xml"));
  CHECK_THAT(picture, Catch::Contains("replica 1"));
}

TEST_CASE("simulate --serve --disaggregate hands each KV cache from prefill replicas to decode replicas") {
  const Run r = simulate("llama2_70b dgx-h100 --dtype bf16 --serve --rate 2 --duration 20 --tensor-parallel 2 --disaggregate 1:2 "
                         "--format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto row = ridge::testing::parse_json(r.out)["serving"].array.at(0);
  CHECK(row["prefill_replicas"].number == 1);
  CHECK(row["decode_replicas"].number == 2);
  CHECK(row["replicas"].number == 3);
  CHECK(row["devices"].number == 6);
  CHECK(row["completed"].number == row["requests"].number);
  // 512 prompt tokens of Llama-2-70B's KV cache (80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes =
  // 320 KiB a token), half on each of the 2 devices, over the DGX H100's NVLink 4 as its .hw gives it:
  // 450 GB/s at 0.82 efficiency, and 5 us.
  const double half = 512.0 * 80 * 8 * 128 * 2 * 2 / 2;
  CHECK_THAT(row["transfer_mean_s"].number, Catch::Matchers::WithinRel(half / (450e9 * 0.82) + 5e-6, 1e-9));
  const Run bad = simulate("llama2_7b h100-sxm5 --serve --disaggregate 1:0");
  CHECK(bad.status == 1);
  CHECK_THAT(bad.err, Catch::Contains("is not P:D"));
  const Run both = simulate("llama2_7b h100-sxm5 --serve --disaggregate 1:1 --replicas 2");
  CHECK(both.status == 1);
  CHECK_THAT(both.err, Catch::Contains("not with --replicas or --search"));
}

TEST_CASE("simulate --runtime takes a stack by name or file, and a missing one is an error") {
  const Run r = simulate("llama2_7b a100-sxm4-80gb --dtype fp16 --prompt 128 --generate 4 --runtime vllm --format json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("\"id\": \"report-runtime\""));
  const Run missing = simulate("gpt2 a100-sxm4-40gb --runtime nonesuch");
  CHECK(missing.status == 1);
  CHECK_THAT(missing.err, Catch::Contains("nonesuch"));
  const Run device = simulate("gpt2 a100-sxm4-40gb --runtime " + std::string(RIDGE_HW_DIR) + "/t4.hw");
  CHECK(device.status == 1);
  CHECK_THAT(device.err, Catch::Contains("this file describes a device"));
}
