// The timeline parses as JSON in Chrome's trace-event format, with the slices one training step has.
#include "tests/render/fixtures.hpp"

#include "tests/engine/json_parse.hpp"
#include "engine/render/trace.hpp"
#include "engine/scaling.hpp"
#include "lang/catalogue.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using testing::Json;
using Catch::Matchers::WithinRel;

namespace {

Json parse(const std::string& text) { return testing::JsonParser(text).parse(); }

std::vector<const Json*> slices(const Json& doc, const std::string& cat) {
  std::vector<const Json*> out;
  for (const Json& e : doc["traceEvents"].array)
    if (e["ph"].string == "X" && e["cat"].string == cat) out.push_back(&e);
  return out;
}

}  // namespace

TEST_CASE("a one-device trace has a slice per layer for forward, backward and update, with costs in args") {
  const auto r = testing::report("resnet18", "a100-sxm4-40gb", 32, ir::Precision::FP32);
  const Json doc = parse(engine::render::trace(r));
  REQUIRE(doc["traceEvents"].type == Json::Type::Array);

  std::size_t fwd = 0, bwd = 0, upd = 0;
  for (const auto& row : r.layers) {
    fwd += row.time_fwd_train.paleo_s > 0;
    bwd += row.time_bwd.paleo_s > 0;
    upd += row.params > 0;
  }
  const auto f = slices(doc, "forward"), b = slices(doc, "backward"), u = slices(doc, "update");
  CHECK(f.size() == fwd);
  CHECK(b.size() == bwd);
  CHECK(u.size() == upd);
  CHECK(slices(doc, "allreduce").empty());
  CHECK(f.front()->operator[]("name").string == "conv1");
  CHECK(b.front()->operator[]("name").string == r.layers.back().name);   // backward runs in reverse

  // Every compute slice carries FLOPs, bytes and bound; the compute track is back to back.
  double end = 0, total_us = 0;
  for (const auto* list : {&f, &b, &u})
    for (const Json* e : *list) {
      const Json& args = (*e)["args"];
      CHECK(args.has("flops"));
      CHECK(args.has("bytes"));
      CHECK(args.has("bound"));
      CHECK((*e)["ts"].number >= end - 1e-6);
      end = (*e)["ts"].number + (*e)["dur"].number;
      total_us += (*e)["dur"].number;
    }
  // The slices add up to the report's training step (microseconds).
  CHECK_THAT(total_us, WithinRel(r.totals.time_train_step_s * 1e6, 1e-9));
  CHECK_THAT(end, WithinRel(r.totals.time_train_step_s * 1e6, 1e-9));
  // Thread names for the viewer.
  int names = 0;
  for (const Json& e : doc["traceEvents"].array) names += e["ph"].string == "M";
  CHECK(names >= 3);
}

TEST_CASE("a data-parallel trace adds the ring all-reduce, after backward or overlapped with it") {
  const bool overlap = GENERATE(false, true);
  engine::ScalingOptions o;
  o.batch = 256;
  o.devices = {8};
  o.overlap = overlap;
  const auto s = engine::scale(testing::network("resnet50"), testing::device("a100-sxm4-40gb"), o);
  const auto& p = s.points.back();
  REQUIRE(p.devices == 8);
  const Json doc = parse(engine::render::trace(s, p));
  const auto ar = slices(doc, "allreduce");
  REQUIRE(ar.size() == 1);
  const Json& e = *ar.front();
  CHECK_THAT(e["dur"].number, WithinRel(p.allreduce_s * 1e6, 1e-9));
  CHECK(e["args"]["devices"].number == 8);
  CHECK(e["args"]["link"].string == "nvlink");
  CHECK(e["args"]["bytes"].number == s.gradient_bytes);
  const auto b = slices(doc, "backward"), u = slices(doc, "update");
  const double bwd_start = (*b.front())["ts"].number;
  const double bwd_end = (*b.back())["ts"].number + (*b.back())["dur"].number;
  CHECK_THAT(e["ts"].number, WithinRel(overlap ? bwd_start : bwd_end, 1e-9));
  // The update waits for the reduced gradients; the step ends where scaling.hpp says.
  const double update_start = (*u.front())["ts"].number;
  CHECK(update_start >= e["ts"].number + e["dur"].number - 1e-6);
  const double step_end = (*u.back())["ts"].number + (*u.back())["dur"].number;
  CHECK_THAT(step_end, WithinRel(p.step_s * 1e6, 1e-9));
  CHECK(doc["otherData"]["devices"].number == 8);
}

TEST_CASE("the update slices name the optimizer the step ran (it said SGD under --optimizer adam)") {
  for (const auto& [optimizer, label] : {std::pair{engine::Optimizer::SgdMomentum, "SGD with momentum"},
                                         std::pair{engine::Optimizer::Adam, "Adam"}, std::pair{engine::Optimizer::AdamW, "AdamW"}}) {
    const engine::Report r = engine::simulate(testing::network("resnet18"), testing::device("t4"), {.batch = 8, .optimizer = optimizer});
    const Json doc = parse(engine::render::trace(r));
    const auto u = slices(doc, "update");
    REQUIRE_FALSE(u.empty());
    for (const Json* e : u) CHECK((*e)["args"]["optimizer"].string == label);
  }
}

TEST_CASE("under a runtime that times the host, each layer starts once the host has issued it and the GPU is free") {
  // resnet18 at batch 1 under pytorch-python: the host is the bound, so the GPU idles between layers.
  engine::Options o{.batch = 1};
  o.runtime = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path("pytorch-python")));
  const engine::Report r = engine::simulate(testing::network("resnet18"), testing::device("a100-sxm4-40gb"), o);
  REQUIRE(r.totals.host_forward_op_s > 0);
  const Json doc = parse(engine::render::trace(r));
  const auto f = slices(doc, "forward"), b = slices(doc, "backward");
  REQUIRE(f.size() > 2);
  // The first layer runs once the host has made one call; each later one no earlier than its call.
  CHECK_THAT((*f.front())["ts"].number, WithinRel(r.totals.host_forward_op_s * 1e6, 1e-9));
  double gaps = 0, end = 0;
  for (const Json* e : f) {
    CHECK((*e)["ts"].number >= end - 1e-6);
    gaps += (*e)["ts"].number - end;
    end = (*e)["ts"].number + (*e)["dur"].number;
  }
  CHECK(gaps > 0.5 * end);   // host-bound: the GPU waits more than half the forward
  // The passes end where the engine's totals say.
  CHECK_THAT(end, WithinRel(r.totals.time_fwd_train_s * 1e6, 1e-9));
  const double bwd_end = (*b.back())["ts"].number + (*b.back())["dur"].number;
  CHECK_THAT(bwd_end, WithinRel((r.totals.time_fwd_train_s + r.totals.time_bwd_s) * 1e6, 1e-9));
}
