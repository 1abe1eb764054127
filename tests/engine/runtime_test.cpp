// Software stacks as data (issue #35, engine/runtime.hpp): the catalogue's runtimes parse; eager
// PyTorch's changes nothing; its Python host adds the host's time; each key changes exactly what it says.
#include "engine/generation.hpp"
#include "engine/host_dispatch.hpp"
#include "engine/runtime.hpp"
#include "engine/simulate.hpp"
#include "lang/catalogue.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include <unistd.h>

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
  for (const char* name : {"gpt2", "resnet18", "llama2_7b"})
  for (const ir::Precision precision : {ir::Precision::BF16, ir::Precision::FP8}) {
    CAPTURE(runtime, name, ir::precision_name(precision));
    const auto stack = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path(runtime)));
    const ir::Network net = lang::load_network(lang::resolve_network_path(name), {});
    engine::Options plain{.precision = precision};
    engine::Options with = plain;
    with.runtime = stack;
    const engine::Report a = engine::simulate(net, a100(), plain), b = engine::simulate(net, a100(), with);
    CHECK(a.totals.time_train_step_s == b.totals.time_train_step_s);
    CHECK(a.totals.time_fwd_s == b.totals.time_fwd_s);
    CHECK(a.totals.flops_fwd == b.totals.flops_fwd);
  }
}

TEST_CASE("under pytorch-python the GPU waits on the Python host, and only there") {
  const auto eager = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path("pytorch-python")));
  REQUIRE(eager->host_forward_op);
  REQUIRE(eager->host_backward_op);
  for (const char* name : {"gpt2", "resnet18"}) {
    for (const std::int64_t batch : {1, 256}) {
      CAPTURE(name, batch);
      const ir::Network net = lang::load_network(lang::resolve_network_path(name), {});
      // The GPU alone with the same foreach update: pytorch-foreach.rt.
      engine::Options plain{.batch = batch, .precision = ir::Precision::BF16};
      plain.runtime = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path("pytorch-foreach")));
      engine::Options with = plain;
      with.runtime = eager;
      const engine::Totals gpu = engine::simulate(net, a100(), plain).totals, host = engine::simulate(net, a100(), with).totals;
      CHECK(host.flops_fwd == gpu.flops_fwd);
      // The host's clock and the GPU's: never faster than either alone, never slower than both in turn.
      CHECK(host.time_fwd_s >= std::max(gpu.time_fwd_s, host.host_fwd_s) * (1 - 1e-12));
      CHECK(host.time_fwd_s <= (gpu.time_fwd_s + host.host_fwd_s) * (1 + 1e-12));
      CHECK(host.time_train_step_s >= std::max(gpu.time_train_step_s, host.host_train_step_s) * (1 - 1e-12));
      CHECK(host.time_train_step_s <= (gpu.time_train_step_s + host.host_train_step_s) * (1 + 1e-12));
      CHECK_THAT(host.time_train_step_s, WithinRel(host.time_fwd_train_s + host.time_bwd_s + host.time_update_s, 1e-12));
      // Every layer after the input is a call from Python.
      CHECK_THAT(host.host_fwd_s, WithinRel(static_cast<double>(net.layers.size() - 1) * eager->host_forward_op->value, 1e-12));
      if (batch == 256) CHECK(host.time_fwd_s < 1.05 * gpu.time_fwd_s);   // a large batch hides the host
      if (batch == 1 && net.layers.front().output.size() > 1)   // a single image waits on it (gpt2's sample is 1,024 tokens)
        CHECK(host.time_fwd_s > 2.0 * gpu.time_fwd_s);
    }
  }
  // A CPU runs the ops itself: its calibration's launch overhead is its dispatch, and no host is added.
  const ir::Network net = lang::load_network(lang::resolve_network_path("resnet18"), {});
  const ir::Device cpu = lang::load_device(std::string(RIDGE_HW_DIR) + "/xeon-8480.hw");
  engine::Options with{.batch = 1};
  with.runtime = eager;
  CHECK(engine::simulate(net, cpu, with).totals.time_fwd_s == engine::simulate(net, cpu, {.batch = 1}).totals.time_fwd_s);
}

TEST_CASE("the eager host's clock, worked by hand") {
  // Three ops: the host takes 1, 3 and 3 units to issue them, the GPU 6, 1 and 1 to run them. The host
  // is done at 1, 4 and 7; the GPU starts op 1 at 1 and ends it at 7, runs op 2 from 7 (issued at 4)
  // to 8 and op 3 from 8 (issued at 7) to 9. Neither the sum of per-op maxima (12) nor the larger sum
  // (8) gives it.
  engine::HostClock clock;
  clock.issue(1, 6);
  clock.issue(3, 1);
  clock.issue(3, 1);
  CHECK(clock.host_s() == 7);
  CHECK(clock.gpu_s() == 9);
  // A host far slower than every op: each op waits on its issue, and the pass ends one op's time after
  // the host's last call.
  const ir::Network net = lang::load_network(lang::resolve_network_path("resnet18"), {});
  engine::Options o{.batch = 1};
  const engine::Report plain = engine::simulate(net, a100(), o);
  o.runtime = runtime_text("host.forward_op = 1 s source \"a test\"\n  host.backward_op = 2 s source \"a test\"");
  const engine::Totals slow = engine::simulate(net, a100(), o).totals;
  const double calls = static_cast<double>(net.layers.size() - 1);
  CHECK_THAT(slow.time_fwd_s, WithinRel(calls + plain.layers.back().time_fwd.paleo_s, 1e-12));
  // The backward: each layer with one a node of 2 s, from the last layer back to the first.
  double with_backward = 0.0;
  for (std::size_t id = 1; id < plain.layers.size(); ++id) with_backward += plain.layers[id].bwd.kernels > 0 ? 1.0 : 0.0;
  CHECK_THAT(slow.host_train_step_s, WithinRel(calls + 2.0 * with_backward, 1e-12));
  // A host of a nanosecond an op: the GPU's own passes, op after op, but for the first call.
  o.runtime = runtime_text("host.forward_op = 1 ns source \"a test\"");
  const engine::Totals fed = engine::simulate(net, a100(), o).totals;
  CHECK_THAT(fed.time_fwd_s, WithinRel(plain.totals.time_fwd_s + 1e-9, 1e-12));
  CHECK_THAT(fed.time_train_step_s, WithinRel(plain.totals.time_train_step_s + 1e-9, 1e-12));
}

TEST_CASE("the eager host against PyTorch on an H100 it was not fitted on: ResNet-50 at batch 1, the step's wall time") {
  // validate/measured/h100-sxm5-2026-11-27/networks.csv (three runs, the median of their medians): the
  // inference forward in bf16 at batch 1 took 5.54 ms of wall time with the GPU busy 0.82 ms of it; the
  // training step (foreach AdamW, bf16 weights) 32.69 ms with 2.79 ms busy. host.forward_op and
  // host.backward_op were fitted on other runs and networks (runtimes/pytorch-python.rt).
  const ir::Network net = lang::load_network(lang::resolve_network_path("resnet50"), {});
  const ir::Device h100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  engine::Options o{.batch = 1, .precision = ir::Precision::BF16};
  o.runtime = std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path("pytorch-python")));
  CHECK_THAT(engine::simulate(net, h100, o).totals.time_fwd_s, WithinRel(5.54e-3, 0.15));
  o.optimizer = engine::Optimizer::AdamW;
  o.master_weights = false;
  CHECK_THAT(engine::simulate(net, h100, o).totals.time_train_step_s, WithinRel(32.69e-3, 0.15));
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

TEST_CASE("a runtime's launch overhead replaces the device's, its host time is added to every pass") {
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

// A quantised run as a stack runs it (engine/quant_storage.hpp), at fp8: a layer norm feeding a
// linear, X = 8 x 64 x 1024 inputs and Y = 8 x 64 x 4096 outputs, P = 1024 x 4096 + 4096 weights. Against the same layers at bf16 (every
// tensor at 2 B), the linear reads its weights at 1 B (P fewer bytes) and, with a cast kernel, X more
// (the cast reads 2X, writes X; the GEMM reads X), writes X more, and runs one kernel more; its backward
// casts dY (reads 2Y, writes dY and its transpose, 2Y) and its GEMMs read dY twice, dY's transpose
// and X at 1 B: 2Y - X more read, 2Y more written. The layer norm is the same at both.
TEST_CASE("an fp8 stack keeps its activations at 16 bits and pays its casts: one linear worked by hand") {
  const ir::Network net = lang::parse_network(R"(network a {
  input x: [64, 1024]
  return add(x, parameter([64, 1024])) -> layernorm(eps: 1e-5) as norm -> linear(4096) as up
}
)", "a.net");
  const ir::Device h100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const double X = 8.0 * 64 * 1024, Y = 8.0 * 64 * 4096, P = 1024.0 * 4096 + 4096;
  const engine::Report bf16 = engine::simulate(net, h100, {.batch = 8, .precision = ir::Precision::BF16});
  const auto layer = [](const engine::Report& r, const std::string& name) {
    for (const engine::LayerRow& row : r.layers)
      if (row.name == name) return row;
    FAIL("no layer " << name);
    return engine::LayerRow{};
  };
  const engine::LayerRow base = layer(bf16, "up");
  REQUIRE(base.params == P);
  const auto fp8 = [&](const std::string& keys) {
    engine::Options o{.batch = 8, .precision = ir::Precision::FP8};
    o.runtime = runtime_text("quant.activations = bf16 source \"a test\"\n" + keys);
    return engine::simulate(net, h100, o);
  };
  SECTION("a cast kernel, delayed scaling") {
    const engine::Report r = fp8("quant.cast = kernel source \"a test\"\nquant.scaling = delayed source \"a test\"");
    const engine::LayerRow up = layer(r, "up");
    CHECK(up.fwd.bytes_read == base.fwd.bytes_read - P + X);
    CHECK(up.fwd.bytes_written == base.fwd.bytes_written + X);
    CHECK(up.fwd.kernels == base.fwd.kernels + 1);
    CHECK(up.bwd.bytes_read == base.bwd.bytes_read - P + 2 * Y - X);
    CHECK(up.bwd.bytes_written == base.bwd.bytes_written + 2 * Y);
    CHECK(up.bwd.kernels == base.bwd.kernels + 1);
    CHECK(layer(r, "norm").fwd == layer(bf16, "norm").fwd);
    CHECK(layer(r, "norm").bwd == layer(bf16, "norm").bwd);
    // The GEMM at the fp8 rate: twice bf16's on Hopper's tensor cores.
    REQUIRE(up.gemm_fwd);
    REQUIRE(base.gemm_fwd);
    CHECK(up.gemm_fwd->sm_flops == 2 * base.gemm_fwd->sm_flops);
    CHECK(r.totals.weight_bytes == bf16.totals.weight_bytes / 2);
  }
  SECTION("current scaling reads each cast's input once more, in an amax kernel") {
    const engine::LayerRow up = layer(fp8("quant.cast = kernel source \"a test\"\nquant.scaling = current source \"a test\""), "up");
    CHECK(up.fwd.bytes_read == base.fwd.bytes_read - P + X + 2 * X);
    CHECK(up.fwd.kernels == base.fwd.kernels + 2);
    CHECK(up.bwd.bytes_read == base.bwd.bytes_read - P + 2 * Y - X + 2 * Y);
    CHECK(up.bwd.kernels == base.bwd.kernels + 2);
  }
  SECTION("a fused cast: the GEMM reads the 8-bit copy its producer wrote, no kernel of its own") {
    const engine::LayerRow up = layer(fp8("quant.cast = fused source \"a test\""), "up");
    CHECK(up.fwd.bytes_read == base.fwd.bytes_read - P - X);
    CHECK(up.fwd.bytes_written == base.fwd.bytes_written);
    CHECK(up.fwd.kernels == base.fwd.kernels);
  }
  SECTION("without quant.activations every tensor is at 8 bits, as without a runtime") {
    engine::Options plain{.batch = 8, .precision = ir::Precision::FP8};
    engine::Options with = plain;
    with.runtime = runtime_text("quant.cast = kernel source \"a test\"");
    CHECK(layer(engine::simulate(net, h100, with), "up").fwd == layer(engine::simulate(net, h100, plain), "up").fwd);
  }
}

TEST_CASE("an fp8 stack's KV cache: Llama-2-7B's 0.5 MiB per token at 16 bits, half at fp8") {
  // 32 layers x (4096 keys + 4096 values) per token: 524,288 B at 2 B (the figure vLLM's and others'
  // sizing guides give for Llama-2-7B at fp16), 262,144 B at 1 B.
  const auto at = llama2_7b_at();
  engine::Options o{.precision = ir::Precision::FP8};
  const auto per_token = [&](const std::string& keys) {
    engine::Options with = o;
    if (!keys.empty()) with.runtime = runtime_text(keys);
    return engine::generate(at, a100(), with, 64, 2, {}).kv_cache_bytes_per_token;
  };
  CHECK(per_token("") == 262144);
  CHECK(per_token("quant.activations = bf16 source \"a test\"") == 524288);
  CHECK(per_token("quant.activations = bf16 source \"a test\"\nquant.kv_cache = fp8 source \"a test\"") == 262144);
  // A decode step reads the cache at its width: at batch 8 after a 2,048-token prompt, 4 GiB at 16
  // bits (more than the 6.7 GB of weights at fp8) and half that at fp8.
  const ir::Device h100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/h100-sxm5.hw");
  const auto decode = [&](const std::string& keys) {
    engine::Options with = o;
    with.batch = 8;
    with.runtime = runtime_text(keys);
    return engine::generate(at, h100, with, 2048, 2, {}).decode_last.totals.bytes_fwd;
  };
  CHECK_THAT(decode("quant.activations = bf16 source \"a test\"") -
                 decode("quant.activations = bf16 source \"a test\"\nquant.kv_cache = fp8 source \"a test\""),
             WithinRel(8.0 * 2048 * 262144, 1e-12));   // 2,048 cached tokens a sequence
}

TEST_CASE("tensor parallelism sends a quantised stack's activations at 16 bits") {
  // Llama-2-7B at fp8 on two H100s of a DGX: each all-reduce carries the hidden states at the width the
  // stack keeps them, so the messages are bf16's under a stack with 16-bit activations and half of
  // them without one.
  const auto at = llama2_7b_at();
  const ir::Device dgx = lang::load_device(std::string(RIDGE_HW_DIR) + "/dgx-h100.hw");
  engine::GenerationParallel two;
  two.tensor = 2;
  const auto communication = [&](ir::Precision p, const std::string& keys) {
    engine::Options o{.batch = 8, .precision = p};
    if (!keys.empty()) o.runtime = runtime_text(keys);
    const engine::Generation g = engine::generate(at, dgx, o, 512, 2, two);
    return g.communication_prefill_s;
  };
  const double bf16 = communication(ir::Precision::BF16, "");
  CHECK(communication(ir::Precision::FP8, "quant.activations = bf16 source \"a test\"") == bf16);
  CHECK(communication(ir::Precision::FP8, "") < bf16);
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
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  quant.cast = inline source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:16: error: 'quant.cast' takes one of kernel, fused [hw-value]"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  quant.activations = fp32 source \"s\"\n}\n", runtime),
             Catch::Contains("t.rt:3:23: error: 'quant.activations' takes one of fp8, bf16, fp16 [hw-value]"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  quant.scalling = static source \"s\"\n}\n", runtime),
             Catch::Contains("unknown runtime key 'quant.scalling' (did you mean 'quant.scaling'?)"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n  launch_overhead = 1 us\n}\n", runtime), Catch::Contains("has no source"));
  CHECK_THAT(error("runtime \"x\" {\n  step_overhead = 1 GB source \"s\"\n}\n", runtime),
             Catch::Contains("'GB' is a size, but 'step_overhead' takes a time"));
  CHECK_THAT(error("runtime \"x\" {\n}\n", runtime), Catch::Contains("the runtime has no 'version"));
  CHECK_THAT(error("runtime \"x\" {\n  version = \"1\"\n}\n", device), Catch::Contains("this file describes a runtime"));
  CHECK_THAT(error("device \"x\" {\n  kind = gpu\n}\n", runtime), Catch::Contains("this file describes a device"));
}

TEST_CASE("a runtime built on another (`base`) starts from it: its keys replace the base's, a pattern of the same name in place") {
  // In a folder of its own: `base = "NAME"` is NAME.rt beside the file before the catalogue's.
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("ridge_runtime_base_test_" + std::to_string(::getpid()));   // builds test side by side
  std::filesystem::create_directories(folder);
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::filesystem::path path = folder / name;
    std::ofstream(path) << text;
    return path.string();
  };
  write("first.rt", "runtime \"first\" {\n  version = \"1\"\n  attention = flash source \"s\"\n"
                    "  fuse.a = \"linear -> elementwise+\" source \"s\"\n  fuse.b = \"elementwise -> elementwise+\" source \"s\"\n}\n");
  const ir::Runtime second = lang::load_runtime(write("second.rt",
      "runtime \"second\" {\n  base = \"first\"\n  launch_overhead = 1 us source \"t\"\n"
      "  fuse.a = \"normalization -> elementwise+\" source \"t\"\n  fuse.c = \"elementwise+ -> normalization\" source \"t\"\n}\n"));
  CHECK(second.id == "second");
  CHECK(second.name == "second");
  CHECK(second.version == "1");                       // the base's, not restated
  CHECK(second.attention == std::optional<std::string>("flash"));
  REQUIRE(second.launch_overhead);
  CHECK(second.launch_overhead->value == 1e-6);
  REQUIRE(second.fusions.size() == 3);
  CHECK(second.fusions[0].name == "a");
  CHECK(second.fusions[0].text == "normalization -> elementwise+");   // replaced where it stood
  CHECK(second.fusions[1].name == "b");
  CHECK(second.fusions[2].name == "c");
  CHECK(second.sources.at("fuse.a") == "t");
  CHECK(second.sources.at("fuse.b") == "s");

  // The catalogue's two: each is its base but for what it says.
  const ir::Runtime trt = lang::load_runtime(lang::resolve_runtime_path("tensorrt-llm"));
  const ir::Runtime trt_fp8_kv = lang::load_runtime(lang::resolve_runtime_path("tensorrt-llm-fp8-kv"));
  CHECK(trt_fp8_kv.quant_kv_cache == ir::Precision::FP8);
  CHECK_FALSE(trt.quant_kv_cache);
  CHECK(trt_fp8_kv.quant_activations == trt.quant_activations);
  CHECK(trt_fp8_kv.attention == trt.attention);
  CHECK(trt_fp8_kv.fusions.size() == trt.fusions.size());
  const ir::Runtime compiled = lang::load_runtime(lang::resolve_runtime_path("torch-compile"));
  const ir::Runtime graphs = lang::load_runtime(lang::resolve_runtime_path("torch-compile-cudagraphs"));
  CHECK_FALSE(compiled.launch_overhead);
  REQUIRE(graphs.launch_overhead);
  CHECK(graphs.launch_overhead->value == 0.5e-6);
  CHECK(graphs.fuse_training == compiled.fuse_training);
  REQUIRE(graphs.fusions.size() == compiled.fusions.size());
  for (std::size_t i = 0; i < graphs.fusions.size(); ++i) CHECK(graphs.fusions[i].text == compiled.fusions[i].text);

  // What cannot be a base, each at the value, with its id.
  const auto error = [&](const std::string& name, const std::string& text) {
    try {
      lang::load_runtime(write(name, text));
    } catch (const lang::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error("lost.rt", "runtime \"x\" {\n  base = \"no-such-stack\"\n}\n"),
             Catch::Contains("lost.rt:2:10: error: no runtime \"no-such-stack\" beside this file or in the catalogue") &&
                 Catch::Contains("[hw-base]"));
  write("ping.rt", "runtime \"ping\" {\n  base = \"pong\"\n  version = \"1\"\n}\n");
  CHECK_THAT(error("pong.rt", "runtime \"pong\" {\n  base = \"ping\"\n  version = \"1\"\n}\n"),
             Catch::Contains("ping.rt:2:10: error: '") && Catch::Contains("pong.rt' is built on this file"));
  CHECK_THAT(error("self.rt", "runtime \"x\" {\n  base = \"self\"\n}\n"), Catch::Contains("is built on this file"));
  CHECK_THAT(error("word.rt", "runtime \"x\" {\n  base = vllm\n  version = \"1\"\n}\n"),
             Catch::Contains("word.rt:2:10: error: expected a \"string\", as in 'base = \"vllm\"'"));
  CHECK_THAT(error("twice.rt", "runtime \"x\" {\n  base = \"first\"\n  base = \"first\"\n}\n"), Catch::Contains("duplicate key 'base'"));
  // An error in the base is reported in the base's own file.
  write("broken.rt", "runtime \"broken\" {\n  version = \"1\"\n  atention = flash source \"s\"\n}\n");
  CHECK_THAT(error("child.rt", "runtime \"x\" {\n  base = \"broken\"\n}\n"),
             Catch::Contains("broken.rt:3:3: error: unknown runtime key") && Catch::Contains("child.rt:2:10: note: in the base named here"));
  std::filesystem::remove_all(folder);
}

TEST_CASE("runtimes/README.md names every runtime of the catalogue, and its example parses") {
  std::ifstream in(std::string(RIDGE_RUNTIMES_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(readme.empty());
  for (const auto& entry : std::filesystem::directory_iterator(RIDGE_RUNTIMES_DIR)) {
    if (entry.path().extension() != ".rt") continue;
    CAPTURE(entry.path().filename().string());
    CHECK(readme.find("| `" + entry.path().stem().string() + "` |") != std::string::npos);
  }
  // The example, read as if it were a file of the catalogue (its base is found beside it).
  const std::size_t start = readme.find("```\nruntime ");
  REQUIRE(start != std::string::npos);
  const std::size_t end = readme.find("```", start + 4);
  const ir::Runtime example = lang::parse_runtime(readme.substr(start + 4, end - start - 4), std::string(RIDGE_RUNTIMES_DIR) + "/example.rt");
  const ir::Runtime vllm = lang::load_runtime(std::string(RIDGE_RUNTIMES_DIR) + "/vllm.rt");
  CHECK(example.quant_kv_cache == ir::Precision::FP8);
  CHECK(example.version == vllm.version);
  CHECK(example.fusions.size() == vllm.fusions.size());
}
