// Fusion as a pass over the network (issue #35, engine/fusion.hpp): which layers of the zoo's
// networks each catalogue runtime runs as one kernel, against what the stack documents, and what
// fusing does to the bytes and launches of a kernel, worked out by hand.
#include "engine/explain.hpp"
#include "engine/fusion.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "lang/catalogue.hpp"
#include "lang/diagnostics.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <set>

using namespace ridge;

namespace {

std::shared_ptr<const ir::Runtime> catalogue_runtime(const std::string& id) {
  return std::make_shared<const ir::Runtime>(lang::load_runtime(lang::resolve_runtime_path(id)));
}

ir::Network zoo(const std::string& name, const std::map<std::string, std::string>& args = {}) {
  return lang::load_network(std::string(RIDGE_MODELS_DIR) + "/" + name + ".net", args);
}

// Layer name -> the name of the layer heading its forward kernel (itself when it runs alone).
std::map<std::string, std::string> kernels_of(const ir::Network& net, const engine::fusion::Plan& plan,
                                              const std::vector<engine::fusion::Member>& pass) {
  std::map<std::string, std::string> out;
  for (std::size_t id = 0; id < net.layers.size(); ++id)
    out[net.layers[id].name] = plan.empty() || pass.empty() ? net.layers[id].name : net.layers[pass[id].kernel].name;
  return out;
}

int launches(const engine::Workload& w, bool backward = false) {
  int k = 0;
  for (std::size_t id = 0; id < w.cost_of.size(); ++id) k += backward ? w.cost(id).backward.kernels : w.cost(id).forward.kernels;
  return k;
}

// "flash-only": the network's attention as one flash kernel, nothing fused (what the serving runtimes
// change besides their fusions).
engine::Workload workload_under(const ir::Network& net, const std::string& runtime, std::int64_t batch = 8,
                                ir::Precision p = ir::Precision::FP16) {
  std::shared_ptr<const ir::Runtime> rt =
      runtime == "flash-only" ? std::make_shared<const ir::Runtime>(lang::parse_runtime(
                                    "runtime \"flash\" {\n  version = \"1\"\n  attention = flash source \"s\"\n}\n", "flash.rt"))
      : runtime.empty()       ? nullptr
                              : catalogue_runtime(runtime);
  return engine::workload(net, {.batch = batch, .precision = p, .runtime = rt});
}

}  // namespace

TEST_CASE("TensorRT folds every batch norm, activation and residual sum of ResNet-50 into its convolution") {
  // TensorRT's layer fusion catalogue: 'Convolution and Scale' (an inference batch norm), 'Convolution
  // and ReLU Activation', 'Convolution and ElementWise Operation' (the residual sum, then its ReLU).
  // So every kernel of the engine is a convolution, a pool or the classifier: 53 + 2 + 1.
  const ir::Network net = zoo("resnet50");
  const engine::fusion::Plan plan = engine::fusion::plan(net, catalogue_runtime("tensorrt").get());
  const auto kernel = kernels_of(net, plan, plan.forward);
  int convs = 0;
  for (const ir::Layer& l : net.layers) {
    const std::string op(ir::op_name(l.op));
    if (op == "conv") ++convs;
    if (op == "batchnorm" || op == "relu" || op == "add") {
      CAPTURE(l.name);
      const ir::Layer& head = net.layers[plan.forward[&l - net.layers.data()].kernel];
      CHECK(ir::op_name(head.op) == "conv");
    }
  }
  CHECK(convs == 53);
  CHECK(kernel.at("layer1.bottleneck1.add1") == "layer1.bottleneck1.conv3");   // the main branch's last conv
  CHECK(kernel.at("layer1.bottleneck1.batchnorm4") == "layer1.bottleneck1.conv4");   // the downsample's own
  CHECK(kernel.at("relu") == "conv1");
  CHECK(launches(workload_under(net, "tensorrt")) == 53 + 2 + 1);
  CHECK(launches(workload_under(net, "")) == 53 + 53 + 49 + 16 + 2 + 1);   // eager: one kernel per op
}

TEST_CASE("a fused convolution reads its input and weights and writes its result once") {
  // conv -> batchnorm -> relu of t output bytes: eager moves conv (in + w + t), bn (t + params + t),
  // relu (t + t). Fused, the GEMM's epilogue applies the scale and the ReLU on the way out: conv's own
  // bytes plus the batch norm's parameters, nothing else.
  const ir::Network net = zoo("resnet50");
  const engine::Workload eager = workload_under(net, "");
  const engine::Workload fused = workload_under(net, "tensorrt");
  std::map<std::string, std::size_t> id;
  for (std::size_t i = 0; i < net.layers.size(); ++i) id[net.layers[i].name] = i;
  const double t = 8.0 * 64 * 112 * 112 * 2;   // conv1's output at batch 8, fp16
  const auto bytes = [&](const engine::Workload& w, const std::string& name) { return w.cost(id.at(name)).forward.bytes(); };
  REQUIRE(bytes(eager, "bn1") > 2 * t);
  REQUIRE(bytes(eager, "relu") == 2 * t);
  CHECK(bytes(fused, "conv1") == bytes(eager, "conv1"));
  CHECK(bytes(fused, "bn1") == bytes(eager, "bn1") - 2 * t);
  CHECK(bytes(fused, "relu") == 0.0);
  CHECK(fused.cost(id.at("bn1")).forward.kernels == 0);
  CHECK(fused.cost(id.at("relu")).forward.kernels == 0);
  CHECK(fused.cost(id.at("conv1")).forward.flops == eager.cost(id.at("conv1")).forward.flops);
  // TensorRT builds inference engines: a training step is eager PyTorch's.
  CHECK(launches(fused, true) == launches(eager, true));
  for (std::size_t i = 0; i < net.layers.size(); ++i) CHECK(fused.cost(i).forward_train == eager.cost(i).forward_train);
}

TEST_CASE("a squeeze-excite scale stays out of the convolution that makes the tensor it scales") {
  // EfficientNet's mul(x, scale): scale comes from a pool over x, so no kernel making x can hold the
  // mul; nor can the SE block's last conv, whose [C, 1, 1] result the mul broadcasts (no epilogue).
  const ir::Network net = zoo("efficientnet_b0");
  const engine::fusion::Plan plan = engine::fusion::plan(net, catalogue_runtime("tensorrt").get());
  int scales = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const ir::Layer& l = net.layers[i];
    if (ir::op_name(l.op) != "mul") continue;
    ++scales;
    CAPTURE(l.name);
    const ir::LayerId head = plan.forward[i].kernel;
    CHECK((head == i || ir::op_name(net.layers[head].op) != "conv"));
  }
  CHECK(scales == 16);   // one per MBConv block
}

TEST_CASE("vLLM's Llama layer: fused residual norms, SiLU-and-multiply and rotary, GPT-2 as PyTorch runs it") {
  // vLLM 0.6's LlamaDecoderLayer.forward runs 9 kernels: fused_add_rms_norm, qkv_proj, rotary_embedding,
  // attention, o_proj, fused_add_rms_norm, gate_up_proj, silu_and_mul, down_proj. The zoo's llama.net
  // writes q, k, v and gate, up as separate projections, and RoPE per projection: 4 kernels more,
  // the horizontal merges a fusion pattern does not describe.
  const ir::Network one = zoo("llama", {{"layers", "1"}, {"seq_len", "64"}});
  const ir::Network two = zoo("llama", {{"layers", "2"}, {"seq_len", "64"}});
  const int per_layer = launches(workload_under(two, "vllm")) - launches(workload_under(one, "vllm"));
  CHECK(per_layer == 9 + 4);
  // Against the same layer with flash attention and nothing fused: two residual norms, SiLU-and-multiply
  // and two rotaries fewer.
  CHECK(launches(workload_under(two, "flash-only")) - launches(workload_under(one, "flash-only")) == per_layer + 5);
  const engine::fusion::Plan plan = engine::fusion::plan(two, catalogue_runtime("vllm").get());
  const auto kernel = kernels_of(two, plan, plan.forward);
  CHECK(kernel.at("decoder_layer1.post_attention_layernorm") == "decoder_layer1.add1");
  CHECK(kernel.at("decoder_layer2.input_layernorm") == "decoder_layer1.add2");
  CHECK(kernel.at("norm") == "decoder_layer2.add2");
  CHECK(kernel.at("decoder_layer1.mul1") == "decoder_layer1.act_fn");
  CHECK(kernel.at("decoder_layer1.q_rope.sin") == "decoder_layer1.q_rope.cos");
  // GPT-2 in vLLM keeps nn.LayerNorm, GELU and the residual adds as PyTorch's kernels.
  const ir::Network gpt2 = zoo("gpt2", {{"layers", "2"}, {"seq_len", "64"}});
  CHECK(launches(workload_under(gpt2, "vllm")) == launches(workload_under(gpt2, "flash-only")));
}

TEST_CASE("torch.compile fuses BERT's residual adds into their layer norms, in the backward too") {
  // Inductor fuses pointwise ops and reductions, never into a cuBLAS GEMM: each add -> LayerNorm
  // (the dropout between them passed through) is one kernel forward and one backward; the embeddings'
  // two adds and their LayerNorm another; GELU after its GEMM stays alone.
  const ir::Network net = zoo("bert_base", {{"layers", "2"}});
  const engine::fusion::Plan plan = engine::fusion::plan(net, catalogue_runtime("torch-compile").get());
  REQUIRE(!plan.backward.empty());
  const auto fwd = kernels_of(net, plan, plan.forward_train);
  CHECK(fwd.at("bert_layer1.attention_output_LayerNorm") == "bert_layer1.add1");
  CHECK(fwd.at("bert_layer1.output_LayerNorm") == "bert_layer1.add2");
  CHECK(fwd.at("embeddings.LayerNorm") == "embeddings.add1");
  CHECK(fwd.at("embeddings.add2") == "embeddings.add1");
  CHECK(fwd.at("bert_layer1.intermediate_act") == "bert_layer1.intermediate_act");
  const auto bwd = kernels_of(net, plan, plan.backward);
  CHECK(bwd.at("bert_layer1.add1") == "bert_layer1.attention_output_LayerNorm");   // its backward runs first
  const engine::Workload eager = workload_under(net, "");
  const engine::Workload compiled = workload_under(net, "torch-compile");
  CHECK(launches(compiled, true) < launches(eager, true));
  double eager_bytes = 0, compiled_bytes = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    eager_bytes += eager.cost(i).backward.bytes();
    compiled_bytes += compiled.cost(i).backward.bytes();
    CHECK(compiled.cost(i).backward.flops == eager.cost(i).backward.flops);
  }
  CHECK(compiled_bytes < eager_bytes);
}

TEST_CASE("a training step keeps a batch norm out of its convolution's epilogue") {
  // Its batch statistics need the whole output first: under torch.compile's training fusion the batch
  // norm heads its own kernel with the ReLU; a pattern beginning at the conv stops before it.
  ir::Runtime rt = *catalogue_runtime("tensorrt");
  rt.fuse_training = true;
  const ir::Network net = zoo("resnet18");
  const engine::fusion::Plan plan = engine::fusion::plan(net, &rt);
  const auto infer = kernels_of(net, plan, plan.forward);
  const auto train = kernels_of(net, plan, plan.forward_train);
  CHECK(infer.at("batchnorm1") == "conv1");
  CHECK(infer.at("relu1") == "conv1");
  CHECK(train.at("batchnorm1") == "batchnorm1");   // no tensorrt pattern starts at a batch norm
  CHECK(train.at("relu1") == "relu1");
}

TEST_CASE("with no fusion patterns the plan is empty and every cost is eager PyTorch's") {
  const ir::Network net = zoo("gpt2", {{"layers", "2"}, {"seq_len", "64"}});
  CHECK(engine::fusion::plan(net, nullptr).empty());
  CHECK(engine::fusion::plan(net, catalogue_runtime("pytorch-eager").get()).empty());
}

TEST_CASE("a bad fusion pattern is reported at its value with what was expected") {
  const auto error_of = [](const std::string& line) {
    try {
      lang::parse_runtime("runtime \"t\" {\n  version = \"1\"\n  " + line + "\n}\n", "t.rt");
    } catch (const lang::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("fuse.x = \"conv -> batchnorn\" source \"s\""), Catch::Contains("t.rt:3:12") && Catch::Contains("'batchnorn'"));
  CHECK_THAT(error_of("fuse.x = \"relu -> linear\" source \"s\""), Catch::Contains("may only begin a fused kernel"));
  CHECK_THAT(error_of("fuse.x = \"relu\" source \"s\""), Catch::Contains("at least two steps"));
  CHECK_THAT(error_of("fuse.x = \"relu -> reshape\" source \"s\""), Catch::Contains("is a view"));
  CHECK_THAT(error_of("fuse.x = \"relu -> -> add\" source \"s\""), Catch::Contains("step is empty"));
  CHECK_THAT(error_of("fuse.x = \"relu -> add\""), Catch::Contains("no source"));
  CHECK_THAT(error_of("fusion = always source \"s\""), Catch::Contains("inference, training"));
  CHECK_THAT(error_of("fuse.x = relu source \"s\""), Catch::Contains("expected a \"string\""));
}

TEST_CASE("an epilogue's arithmetic runs under the GEMM's main loop: a fused ReLU takes no time, its FLOPs still counted") {
  // bn1's scale and relu's max run on the vector lanes while the tensor cores work: only what they
  // still move takes time (relu nothing, bn1 its parameters).
  const ir::Network net = zoo("resnet50");
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-80gb.hw");
  const engine::Report r = engine::simulate(net, a100, {.batch = 64, .precision = ir::Precision::FP16, .runtime = catalogue_runtime("tensorrt")});
  const auto row = [&](const std::string& name) -> const engine::LayerRow& {
    for (const auto& l : r.layers)
      if (l.name == name) return l;
    FAIL("no layer " << name);
    return r.layers.front();
  };
  CHECK(row("relu").fwd.in_epilogue);
  CHECK(row("relu").fwd.flops == 64.0 * 64 * 112 * 112);
  CHECK(row("relu").time_fwd.paleo_s == 0.0);
  CHECK(row("relu").time_fwd.roofline_s == 0.0);   // nothing of its own to bound either
  CHECK(row("bn1").time_fwd.paleo_s < row("bn1").fwd.flops / r.device.vector_peak_used.flops_per_s);
  CHECK_FALSE(row("conv1").fwd.in_epilogue);
  CHECK_FALSE(row("maxpool").fwd.in_epilogue);
  // --explain says where a fused layer ran.
  const std::string text = engine::render::explain(engine::explain_layer(
      net, a100, {.batch = 64, .precision = ir::Precision::FP16, .runtime = catalogue_runtime("tensorrt")}, "bn1"));
  CHECK_THAT(text, Catch::Contains("runs inside conv1's kernel") && Catch::Contains("in the GEMM's epilogue"));
}

TEST_CASE("Megatron-Core's Llama layer: SwiGLU and rotary fused forward and backward, attention flash") {
  // megatron-core.rt: bias_swiglu_impl runs SiLU(gate) * up as one kernel, Transformer Engine's fused
  // RoPE one kernel per rotated tensor (the zoo writes each as a mul and an add), each forward and
  // backward; attention is TE's fused kernel. Against flash attention with nothing fused: three
  // launches fewer per layer in each direction.
  const ir::Network one = zoo("llama", {{"layers", "1"}, {"seq_len", "64"}});
  const ir::Network two = zoo("llama", {{"layers", "2"}, {"seq_len", "64"}});
  const auto per_layer = [&](const std::string& rt, bool backward) {
    return launches(workload_under(two, rt), backward) - launches(workload_under(one, rt), backward);
  };
  CHECK(per_layer("megatron-core", false) == per_layer("flash-only", false) - 3);
  CHECK(per_layer("megatron-core", true) == per_layer("flash-only", true) - 3);
  const engine::fusion::Plan plan = engine::fusion::plan(two, catalogue_runtime("megatron-core").get());
  REQUIRE(!plan.backward.empty());
  const auto fwd = kernels_of(two, plan, plan.forward_train);
  CHECK(fwd.at("decoder_layer1.mul1") == "decoder_layer1.act_fn");
  CHECK(fwd.at("decoder_layer1.q_rope.sin") == "decoder_layer1.q_rope.cos");
  // The residual adds and RMSNorms stay PyTorch's (Transformer Engine's) own kernels.
  CHECK(fwd.at("decoder_layer1.post_attention_layernorm") == "decoder_layer1.post_attention_layernorm");
  // GPT-2: no SwiGLU, no RoPE; only the attention changes.
  const ir::Network gpt2 = zoo("gpt2", {{"layers", "2"}, {"seq_len", "64"}});
  CHECK(launches(workload_under(gpt2, "megatron-core")) == launches(workload_under(gpt2, "flash-only")));
}
