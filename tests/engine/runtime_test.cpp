// Software stacks as data (issue #35, engine/runtime.hpp): the catalogue's runtimes parse; eager
// PyTorch's changes nothing; each key changes exactly what it says.
#include "engine/generation.hpp"
#include "engine/runtime.hpp"
#include "engine/simulate.hpp"
#include "lang/catalogue.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

std::shared_ptr<const ir::Runtime> runtime_text(const std::string& body) {
  return std::make_shared<const ir::Runtime>(lang::parse_runtime("runtime \"test\" {\n  version = \"1\"\n" + body + "\n}\n", "test.rt"));
}

engine::NetworkAt llama2_7b_at() {
  const std::string path = std::string(RIDGE_MODELS_DIR) + "/llama2_7b.net";
  return [path](std::int64_t seq, std::int64_t past) {
    return lang::load_network(path, {{"seq_len", std::to_string(seq)}, {"past", std::to_string(past)}});
  };
}

ir::Device a100() { return lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-80gb.hw"); }

}  // namespace

TEST_CASE("every runtime of the catalogue parses, names its version and sources what it says") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RIDGE_RUNTIMES_DIR)) {
    if (entry.path().extension() != ".rt") continue;
    CAPTURE(entry.path().string());
    ++files;
    const ir::Runtime r = lang::load_runtime(entry.path().string());
    CHECK(r.id == entry.path().stem().string());
    CHECK_FALSE(r.version.empty());
    if (r.attention) CHECK_FALSE(r.sources.at("attention").empty());
    if (r.last_position_logits) CHECK_FALSE(r.sources.at("logits").empty());
    if (r.launch_overhead) CHECK_FALSE(r.launch_overhead->source.empty());
  }
  CHECK(files >= 4);
  const std::string vllm = lang::resolve_runtime_path("vllm");   // runtimes/vllm.rt, here or in the source tree
  CHECK_THAT(vllm, Catch::EndsWith("runtimes/vllm.rt"));
  CHECK(std::filesystem::exists(vllm));
}

TEST_CASE("under pytorch-eager (and deepspeed, whose layers are PyTorch's) every prediction is the network's and the device's own") {
  for (const char* runtime : {"pytorch-eager", "deepspeed"})
  for (const char* name : {"gpt2", "resnet18", "llama2_7b"}) {
    CAPTURE(runtime, name);
    const auto eager = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path(runtime)));
    const ir::Network net = lang::load_network(lang::resolve_network_path(name), {});
    engine::Options plain{.precision = ir::Precision::BF16};
    engine::Options with = plain;
    with.runtime = eager;
    const engine::Report a = engine::simulate(net, a100(), plain), b = engine::simulate(net, a100(), with);
    CHECK(a.totals.time_train_step_s == b.totals.time_train_step_s);
    CHECK(a.totals.time_fwd_s == b.totals.time_fwd_s);
    CHECK(a.totals.flops_fwd == b.totals.flops_fwd);
  }
}

TEST_CASE("logits for the last position only: a prefill's lm_head sees one position, exactly") {
  const auto at = llama2_7b_at();
  engine::Options o{.batch = 2, .precision = ir::Precision::FP16};
  engine::Options last = o;
  last.runtime = runtime_text("logits = last source \"a test\"");
  const engine::Generation all = engine::generate(at, a100(), o, 128, 4, {});
  const engine::Generation one = engine::generate(at, a100(), last, 128, 4, {});
  // lm_head: 4096 -> 32000 without bias, 2 FLOPs a MAC, over 127 fewer positions of each of 2 prompts.
  CHECK(all.prefill.totals.flops_fwd - one.prefill.totals.flops_fwd == 2.0 * 2 * 127 * 4096 * 32000);
  CHECK(one.decode_first_s == all.decode_first_s);   // a decode step computes one position's logits anyway
  CHECK(one.prefill_s < all.prefill_s);
  // The pass itself: a slice before the output layer, whose shape follows.
  const ir::Network cut = engine::runtime::last_position_logits(at(128, 0));
  CHECK(cut.layers.back().name == "lm_head");
  CHECK(cut.layers.back().output == ir::Shape{1, 32000});
  CHECK(cut.layers[cut.layers.size() - 2].name == "norm.last_position");
  CHECK(cut.layers[cut.layers.size() - 2].output == ir::Shape{1, 4096});
}

TEST_CASE("a runtime's attention kernel is every attention layer's, as if the .net had said it") {
  const ir::Network net = lang::load_network(lang::resolve_network_path("llama2_7b"), {{"seq_len", "512"}});
  ir::Network flash = net;
  int attention = 0;
  for (ir::Layer& l : flash.layers)
    if (l.op == ir::op("attention")) {
      l.attrs.set("kernel", std::string("flash"));
      ++attention;
    }
  REQUIRE(attention == 32);
  engine::Options o{.precision = ir::Precision::BF16};
  engine::Options with = o;
  with.runtime = runtime_text("attention = flash source \"a test\"");
  const engine::Report written = engine::simulate(flash, a100(), o), said = engine::simulate(net, a100(), with);
  CHECK(said.totals.bytes_fwd == written.totals.bytes_fwd);
  CHECK(said.totals.time_train_step_s == written.totals.time_train_step_s);
  CHECK(said.totals.bytes_fwd < engine::simulate(net, a100(), o).totals.bytes_fwd);   // no score matrix
}

TEST_CASE("a runtime's launch overhead replaces the device's; its host time is added to every pass") {
  const ir::Network net = lang::load_network(lang::resolve_network_path("resnet18"), {});
  engine::Options o;
  o.runtime = runtime_text("launch_overhead = 0.5 us source \"a test\"");
  CHECK(engine::simulate(net, a100(), o).device.launch_overhead_s == 0.5e-6);
  const auto at = llama2_7b_at();
  engine::Options plain{.precision = ir::Precision::FP16};
  engine::Options host = plain;
  host.runtime = runtime_text("step_overhead = 2 ms source \"a test\"");
  const engine::Generation a = engine::generate(at, a100(), plain, 64, 8, {}), b = engine::generate(at, a100(), host, 64, 8, {});
  CHECK_THAT(b.prefill_s - a.prefill_s, WithinRel(2e-3, 1e-9));
  CHECK_THAT(b.decode_per_token_s - a.decode_per_token_s, WithinRel(2e-3, 1e-9));
  CHECK_THAT(b.latency_s - a.latency_s, WithinRel(8 * 2e-3, 1e-9));   // the prefill and 7 decode steps
}

TEST_CASE("a runtime file is checked like a device file, and neither passes for the other") {
  const auto error = [](const std::string& text, auto parse) {
    try {
      parse(text, "t.rt");
    } catch (const lang::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto runtime = [](const std::string& t, const std::string& f) { return lang::parse_runtime(t, f); };
  const auto device = [](const std::string& t, const std::string& f) { return lang::parse_device(t, f); };
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  atention = flash source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:3: error: unknown runtime key 'atention' (did you mean 'attention'?)"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  logits = first source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:12: error: 'logits' takes one of all, last [hw-value]"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  narrow_conv = pad source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:17: error: 'narrow_conv' takes one of vector, padded [hw-value]"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  optimizer = apex source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:15: error: 'optimizer' takes one of fused, foreach [hw-value]"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  launch_overhead = 1 us\n}\n", runtime), Catch::Contains("has no source"));
  CHECK_THAT(error("runtime \"x\" {\n  step_overhead = 1 GB source \"s\"\n}\n", runtime),
             Catch::Contains("'GB' is a size, but 'step_overhead' takes a time"));
  CHECK_THAT(error("runtime \"x\" {\n}\n", runtime), Catch::Contains("the runtime has no 'version"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n}\n", device), Catch::Contains("this file describes a runtime"));
  CHECK_THAT(error("device \"x\" {\n  kind = gpu\n}\n", runtime), Catch::Contains("this file describes a device"));
}
