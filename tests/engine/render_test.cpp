#include "engine/render/json_writer.hpp"
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"
#include "engine/simulate.hpp"

#include "tests/engine/fixtures.hpp"
#include "tests/engine/json_parse.hpp"
#include "tests/ir/resnet18_builder.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <limits>

using namespace ridge;
using engine::render::si;

TEST_CASE("numbers print with SI prefixes and units") {
  CHECK(si(1.81e9, "MAC") == "1.81 GMAC");
  CHECK(si(3.42e-3, "s") == "3.42 ms");
  CHECK(si(12.54, "FLOP/B") == "12.5 FLOP/B");
  CHECK(si(1555e9, "B/s") == "1.56 TB/s");
  CHECK(si(999.7, "s") == "1.00 ks");
  CHECK(si(0, "B") == "0 B");
  CHECK(si(std::numeric_limits<double>::infinity(), "s") == "-");
  CHECK(engine::render::count(11689512) == "11.7 M");
  CHECK(engine::render::count(216) == "216");
  CHECK(engine::render::ratio(0.25, "FLOP/B") == "0.250 FLOP/B");
  CHECK(engine::render::ratio(61.94, "FLOP/B") == "61.9 FLOP/B");
}

TEST_CASE("the JSON writer escapes strings and writes only finite numbers") {
  using engine::render::json_quote;
  CHECK(json_quote("a\"b\\c\n\t\x01") == "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  CHECK(json_quote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");          // valid UTF-8 passes through
  CHECK(json_quote("bad\xFF") == "\"bad\xEF\xBF\xBD\"");          // invalid bytes become U+FFFD
  CHECK(engine::render::json_number(std::nan("")) == "null");
  CHECK(engine::render::json_number(1e300 * 1e300) == "null");
  CHECK(engine::render::json_number(118013952) == "118013952");
  CHECK(engine::render::json_number(0.1) == "0.1");
  engine::render::JsonWriter w;
  w.begin_object().key("k").begin_array(true).value(1).value(2.5).end_array();
  CHECK_THROWS_AS(w.take(), std::logic_error);
}

TEST_CASE("a run's JSON parses back in the one schema, every row saying which simulation it is") {
  ir::Network net = testing::resnet18_from_builder();
  net.name = "res\"net\n18";   // a hostile name must survive the round trip
  engine::Results results;
  results.reports.push_back(engine::simulate(net, testing::a100(), {.batch = 8, .precision = ir::Precision::FP16}));
  const engine::Report& r = results.reports.front();
  const auto j = testing::parse_json(engine::render::json(results));
  CHECK(j["schema"].string == "ridge/1");
  for (const char* member : {"runs", "layers", "scaling", "generation", "correlation", "notes", "files"})
    CHECK(j[member].type == testing::Json::Type::Array);
  CHECK(j["parallel"].type == testing::Json::Type::Null);
  REQUIRE(j["runs"].array.size() == 1);
  const auto& run = j["runs"].array.front();
  CHECK(run["network"].string == net.name);
  CHECK(run["batch"].number == 8);
  CHECK(run["dtype"].string == "fp16");
  CHECK(run["device"].string == "NVIDIA A100-SXM4-40GB");
  CHECK(run["device_kind"].string == "gpu");
  CHECK(run["peak_flops"].number == 312e12);    // the A100's fp16 tensor-core peak (datasheet)
  CHECK(run["bandwidth"].number == 1555e9);
  CHECK(run["device_memory_bytes"].number == 40.0 * 1024 * 1024 * 1024);
  CHECK(run["params"].number == 11689512);     // torchvision's resnet18
  CHECK(run["time_train_step_s"].number == Approx(r.totals.time_train_step_s).epsilon(1e-15));
  const auto& layers = j["layers"].array;
  REQUIRE(layers.size() == net.layers.size());
  for (const auto& l : layers)
    for (const char* key : {"network", "device", "device_id", "batch", "dtype"}) CHECK(l.has(key));
  for (const char* key : {"name", "op", "output_shape", "params", "macs", "flops_fwd", "flops_bwd", "bytes_fwd",
                          "bytes_bwd", "roofline_fwd_s", "roofline_bwd_s", "time_fwd_s", "time_bwd_s", "bound_fwd",
                          "bound_bwd"})
    CHECK(layers[1].has(key));
  CHECK(layers[1]["name"].string == "conv1");
  CHECK(layers[1]["macs"].number == 8.0 * 118013952);
  CHECK(layers[1]["output_shape"].array.size() == 4);
  CHECK(layers[1]["output_shape"].array[0].number == 8);
  CHECK(j["notes"].array.size() == r.notes.size());
  CHECK(j["notes"].array.front()["dtype"].string == "fp16");
}

TEST_CASE("the CSV of a table has a row per layer under the JSON field names") {
  engine::Results results;
  results.reports.push_back(engine::simulate(testing::tiny(), testing::a100(), {}));
  const std::string csv = engine::render::csv(engine::render::layers_table(results.reports));
  CHECK(csv.rfind("network,device,device_id,batch,dtype,name,op,op_class,output_shape,params,macs,flops_fwd,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(results.reports.front().layers.size()) + 1);
  CHECK(csv.find(",1x8x8x8,") != std::string::npos);   // a shape without commas: no quoting needed
}

TEST_CASE("the table shows layers, totals, throughput, memory and the device's roofline") {
  const auto r = engine::simulate(testing::resnet18_from_builder(), testing::a100(), {.batch = 64});
  const std::string t = engine::render::table(r, engine::render::PassView::Train, true);
  for (const char* s : {"Layer", "Output shape", "Params", "MACs", "FLOPs fwd", "FLOPs bwd", "AI fwd", "Bound fwd",
                        "Roofline fwd", "Time bwd", "basic8.conv2", "[64, 64, 112, 112]", "samples/s",
                        "fits in", "ridge point", "12.5 FLOP/B", "1.56 TB/s", "multiply-add as 2", "vector fp32"})
    CHECK(t.find(s) != std::string::npos);
  const std::string fwd = engine::render::table(r, engine::render::PassView::Forward);
  CHECK(fwd.find("FLOPs bwd") == std::string::npos);
  CHECK(fwd.find("AI fwd") != std::string::npos);
  // The default keeps the pass's FLOPs, bound and times, and leaves bytes and roofline to --wide.
  const std::string compact = engine::render::table(r);
  for (const char* s : {"FLOPs fwd", "Bound fwd", "Time fwd", "Time bwd", "basic8.conv2", "fits in", "ridge point"})
    CHECK(compact.find(s) != std::string::npos);
  CHECK(compact.find("Roofline fwd") == std::string::npos);
  // --pass backward --wide: the backward's six columns and none of the forward's (this combination
  // once added forward headers without their cells and died in the grid).
  const std::string bwd_wide = engine::render::table(r, engine::render::PassView::Backward, true);
  CHECK(bwd_wide.find("Roofline bwd") != std::string::npos);
  CHECK(bwd_wide.find("FLOPs fwd") == std::string::npos);
}

TEST_CASE("the default table fits 120 columns for every zoo network, in every pass") {
  // Long names are cut in the middle to fit; the summary and notes wrap.
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  for (const auto& entry : std::filesystem::directory_iterator(RIDGE_MODELS_DIR)) {
    if (entry.path().extension() != ".net") continue;
    const engine::Report r = engine::simulate(lang::load_network(entry.path().string()), a100, {});
    for (const auto view : {engine::render::PassView::Train, engine::render::PassView::Forward, engine::render::PassView::Backward}) {
      std::istringstream lines(engine::render::table(r, view));
      std::size_t widest = 0;
      for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
      CAPTURE(entry.path().filename().string(), static_cast<int>(view));
      CHECK(widest <= 120);
    }
  }
}

TEST_CASE("several devices and batches make one comparison table") {
  std::vector<engine::Report> reports;
  for (const auto& d : {testing::a100(), testing::xeon()})
    for (std::int64_t b : {1, 8, 64}) reports.push_back(engine::simulate(testing::resnet18_from_builder(), d, {.batch = b}));
  const auto c = engine::compare(reports);
  REQUIRE(c.rows.size() == 6);
  CHECK(c.rows[5].batch == 64);
  const std::string t = engine::render::table(c);
  CHECK(t.find("2x Intel Xeon E5-2699 v4") != std::string::npos);
  CHECK(t.find("Train samples/s") != std::string::npos);
  engine::Results results;
  results.reports = reports;
  const auto j = testing::parse_json(engine::render::json(results));
  CHECK(j["runs"].array.size() == 6);
  CHECK(j["runs"].array[3]["fits_train"].type == testing::Json::Type::Null);   // the Xeon gives no memory size
  CHECK(j["layers"].array.size() == 6 * reports.front().layers.size());
  const std::string csv = engine::render::csv(engine::render::runs_table(reports));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
}

TEST_CASE("memory sizes print in binary units, as memory is sold, integer peaks in OP/s") {
  using engine::render::memory;
  CHECK(memory(40.0 * 1024 * 1024 * 1024) == "40.0 GiB");   // an A100 40GB's HBM2: 40 GiB
  CHECK(memory(80.0 * 1024 * 1024 * 1024) == "80.0 GiB");
  CHECK(memory(600e6) == "572 MiB");                        // 600e6 / 2^20 = 572.2
  CHECK(memory(512) == "512 B");
  CHECK(memory(0) == "0 B");
  CHECK(memory(1023.9 * 1024 * 1024) == "1.00 GiB");        // three digits would print 1024 MiB
  CHECK(engine::render::rate_unit(ir::Precision::INT8) == "OP/s");
  CHECK(engine::render::rate_unit(ir::Precision::BF16) == "FLOP/s");
  // The report says a 40 GiB card is 40 GiB, not "42.9 GB".
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const engine::Report r = engine::simulate(lang::load_network(std::string(RIDGE_MODELS_DIR) + "/vgg19.net"), a100, {});
  const std::string table = engine::render::table(r);
  CHECK_THAT(table, Catch::Contains("fits in 40.0 GiB"));
  CHECK_THAT(table, Catch::Contains("int8 624 TOP/s matrix"));
}
