// Parity between the engine and the LibTorch program built from the IR: the same parameter count and
// every layer's output shape, for the whole zoo; and every op of the spec table run on a batch > 1.
#include "validate/torch_program.hpp"

#include "lang/builder.hpp"
#include "engine/op_costs.hpp"
#include "lang/ir/ops.hpp"
#include "validate/lower/lowering.hpp"
#include "lang/parse.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

using namespace ridge;

namespace {

std::vector<std::string> zoo() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(RIDGE_MODELS_DIR))
    if (e.path().extension() == ".net") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

double engine_parameters(const ir::Network& net) {
  const auto grad = engine::grad_flags(net);
  double total = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    total += engine::op_cost(net, net.layers[i], 1, ir::Precision::FP32, grad[i]).params;
  return total;
}

// Runs the program and compares every layer's value with the IR's shape (batch prepended).
void check_shapes(const validate::TorchProgram& program, std::int64_t batch) {
  const c10::InferenceMode inference;
  const auto values = program.run_all(program.make_input(batch));
  const ir::Network& net = program.network();
  for (std::size_t id = 0; id < net.layers.size(); ++id) {
    ir::Shape expected{batch};
    expected.insert(expected.end(), net.layers[id].output.begin(), net.layers[id].output.end());
    const ir::Shape got = values[id].sizes().vec();
    INFO(net.name << " layer " << net.layers[id].name);
    CHECK(got == expected);
  }
}

}  // namespace

TEST_CASE("every zoo network runs in LibTorch with the engine's parameter count and every layer's shape") {
  const auto paths = zoo();
  REQUIRE_FALSE(paths.empty());
  const std::string path = GENERATE_COPY(from_range(paths));
  ir::Network net = lang::load_network(path);
  INFO(path);
  // The larger language models need gigabytes (Llama-2-70B: 276 GB) as fp32 LibTorch tensors: they
  // run here at a small width, depth and sequence, which keeps every op and shape rule of theirs in the
  // test (their full parameter counts are checked in tests/zoo).
  if (net.input().output.size() == 1 && engine_parameters(net) > 2e8) {
    const std::vector<std::string> params = lang::network_parameters(path);
    const auto has = [&](const char* p) { return std::find(params.begin(), params.end(), p) != params.end(); };
    lang::Overrides small{{"layers", "2"}, {"seq_len", "32"}, {"hidden", "128"}, {"heads", "4"}, {"vocab", "1000"}};
    if (has("kv_heads")) small["kv_heads"] = "2";
    if (has("intermediate")) small["intermediate"] = "256";
    net = lang::load_network(path, small);
  }
  const validate::TorchProgram program(net);
  CHECK(static_cast<double>(program.parameter_count()) == engine_parameters(net));
  check_shapes(program, 1);
}

namespace {

// Every op of the spec table, on several configurations written as `.net` text: LibTorch's output
// shapes (every layer) and parameter count must equal the IR's, in inference and training mode. The
// expected figures are LibTorch's own; a case per op is required, so a new op without one fails.
struct OpCase {
  std::string_view op;
  std::string_view input;    // per-sample shape
  std::string_view body;     // `x -> ...` returning the output
};
const OpCase kCases[] = {
    {"conv", "[4, 10, 10]", "x -> conv(8, 3, stride: 2, pad: 1, groups: 2)"},
    {"conv", "[4, 16]", "x -> conv(6, 5, dilation: 2, bias: false)"},
    {"conv", "[2, 6, 7, 8]", "x -> conv(4, [3, 1, 3], pad: [1, 0, 1])"},
    {"conv_transpose", "[4, 5, 5]", "x -> conv_transpose(6, 3, stride: 2, pad: 1, output_pad: 1)"},
    {"conv_transpose", "[4, 9]", "x -> conv_transpose(2, 4, stride: 2, groups: 2, bias: false)"},
    {"conv_transpose", "[2, 3, 4, 5]", "x -> conv_transpose(3, 2, stride: 2)"},
    {"maxpool", "[3, 9, 9]", "x -> maxpool(3, stride: 2, pad: 1, ceil: true)"},
    {"maxpool", "[3, 5, 5]", "x -> maxpool(3, stride: 3, pad: 1, ceil: true)"},   // the last-window rule: [3, 2, 2]
    {"maxpool", "[3, 12]", "x -> maxpool(2)"},
    {"maxpool", "[2, 4, 6, 6]", "x -> maxpool(2)"},
    {"avgpool", "[3, 9, 9]", "x -> avgpool(3, stride: 2, pad: 1, ceil: true, count_include_pad: false)"},
    {"avgpool", "[3, 12]", "x -> avgpool(4)"},
    {"adaptive_avgpool", "[3, 7, 9]", "x -> adaptive_avgpool([3, 4])"},
    {"adaptive_avgpool", "[3, 10]", "x -> adaptive_avgpool(3)"},
    {"adaptive_maxpool", "[3, 7, 9]", "x -> adaptive_maxpool(2)"},
    {"upsample", "[3, 4, 5]", "x -> upsample(scale: 2)"},
    {"upsample", "[3, 4, 5]", "x -> upsample(size: [7, 9], mode: \"bilinear\")"},
    {"upsample", "[3, 6]", "x -> upsample(scale: 3, mode: \"linear\", align_corners: true)"},
    {"pixel_shuffle", "[8, 3, 3]", "x -> pixel_shuffle(2)"},
    {"batchnorm", "[6, 5, 5]", "x -> batchnorm"},
    {"batchnorm", "[6, 9]", "x -> batchnorm(eps: 0.001)"},
    {"layernorm", "[5, 12]", "x -> layernorm"},
    {"layernorm", "[3, 4, 6]", "x -> layernorm(dims: 2, bias: false)"},
    {"rmsnorm", "[5, 12]", "x -> rmsnorm"},
    {"groupnorm", "[8, 5, 5]", "x -> groupnorm(4)"},
    {"instancenorm", "[4, 6, 6]", "x -> instancenorm(affine: true)"},
    {"linear", "[5, 12]", "x -> linear(7)"},
    {"linear", "[12]", "x -> linear(3, bias: false)"},
    {"matmul", "[5, 12]", "matmul(x, x -> transpose(0, 1))"},
    {"matmul", "[2, 5, 12]", "matmul(x, x -> transpose(1, 2))"},
    {"embedding", "[7]", "x -> embedding(50, 16)"},
    {"embedding", "[7]", "{e = x -> embedding(50, 16) as wte; return e -> linear(50, bias: false, tied: e)}"},
    {"parameter", "[4, 8]", "concat(parameter([1, 8]), x)"},
    {"parameter", "[4, 8]", "add(x, parameter([4, 8]))"},
    {"buffer", "[4, 8]", "add(x, buffer([4, 8]))"},
    {"buffer", "[4, 8]", "buffer([1, 4, 2]) -> linear(8) -> reshape([4, 8]) -> add(x)"},
    {"attention", "[6, 16]", "attention(x, x, x, heads: 4)"},
    {"attention", "[6, 16]", "attention(x, x -> linear(8), x -> linear(8), heads: 4, kv_heads: 2, causal: true)"},
    {"attention", "[6, 16]", "attention(x, x, x, heads: 2, kernel: \"flash\")"},
    {"attention", "[3, 16]", "attention(x, x, x, heads: 4, causal: true, past: 5)"},
    {"moe", "[6, 16]", "x -> moe(experts: 4, top_k: 2, hidden: 24)"},
    {"moe", "[6, 16]", "x -> moe(experts: 3, top_k: 1, hidden: 8, gated: false)"},
    {"lstm", "[6, 10]", "x -> lstm(12)"},
    {"lstm", "[6, 10]", "x -> lstm(8, layers: 2, bidirectional: true)"},
    {"gru", "[6, 10]", "x -> gru(8, layers: 2, bias: false)"},
    {"flatten", "[3, 4, 5]", "x -> flatten"},
    {"flatten", "[3, 4, 5]", "x -> flatten(axis: 1)"},
    {"reshape", "[3, 4, 5]", "x -> reshape([4, -1])"},
    {"transpose", "[3, 4, 5]", "x -> transpose(0, 2) -> relu"},
    {"permute", "[3, 4, 5]", "x -> permute([1, 2, 0]) -> relu"},
    {"expand", "[1, 5]", "x -> expand([4, 5]) -> relu"},
    {"concat", "[3, 4]", "concat(x, x, axis: 1)"},
    {"slice", "[6, 4]", "x -> slice(1, 3)"},
    {"gather", "[9, 4]", "x -> gather(20)"},
    {"channel_shuffle", "[8, 3, 3]", "x -> channel_shuffle(4)"},
    {"pad", "[3, 4, 5]", "x -> pad([1, 2, 0, 1])"},
    {"pad", "[3, 4, 5]", "x -> pad([2, 2, 1, 1], mode: \"reflect\")"},
    {"roll", "[3, 4, 5]", "x -> roll([1, -2], [1, 2])"},
    {"mean", "[3, 4, 5]", "x -> mean(axes: [1, 2])"},
    {"mean", "[3, 4]", "x -> mean(axes: [0], keepdim: true)"},
    {"sum", "[3, 4, 5]", "x -> sum(axes: [2])"},
    {"amax", "[3, 4, 5]", "x -> amax(axes: [0])"},
    {"norm", "[3, 4, 5]", "x -> norm(axes: [2], keepdim: true)"},
    {"norm", "[3, 4]", "x -> norm(axes: [0, 1])"},
    {"softmax", "[3, 4]", "x -> softmax"},
    {"log_softmax", "[3, 4]", "x -> log_softmax(axis: 0)"},
    {"dropout", "[3, 4]", "x -> dropout(0.1)"},
    {"add", "[3, 4]", "add(x, x -> slice(0, 1))"},
    {"add", "[3, 4]", "add(x, 1.5)"},
    {"sub", "[3, 4]", "sub(x, 2)"},
    {"mul", "[3, 4]", "mul(x, 0.125)"},
    {"mul", "[3, 4, 4]", "mul(x, x -> adaptive_avgpool(1))"},
    {"div", "[3, 4]", "div(x, add(x -> abs_free, 1))"},
    {"pow", "[3, 4]", "pow(x, 2)"},
    {"exp", "[3, 4]", "x -> exp"},
    {"sqrt", "[3, 4]", "x -> mul(x) -> add(1) -> sqrt"},
    {"rsqrt", "[3, 4]", "x -> mul(x) -> add(1) -> rsqrt"},
    {"relu", "[3, 4]", "x -> relu"},
    {"relu6", "[3, 4]", "x -> relu6"},
    {"leaky_relu", "[3, 4]", "x -> leaky_relu(0.2)"},
    {"clamp", "[3, 4]", "x -> clamp(min: -0.5, max: 0.25)"},
    {"clamp", "[3, 4]", "x -> clamp(max: 0.1)"},
    {"elu", "[3, 4]", "x -> elu"},
    {"prelu", "[3, 4, 4]", "x -> prelu(num: 3)"},
    {"sigmoid", "[3, 4]", "x -> sigmoid"},
    {"tanh", "[3, 4]", "x -> tanh"},
    {"silu", "[3, 4]", "x -> silu"},
    {"mish", "[3, 4]", "x -> mish"},
    {"softplus", "[3, 4]", "x -> softplus(beta: 2)"},
    {"gelu", "[3, 4]", "x -> gelu"},
    {"gelu", "[3, 4]", "x -> gelu(approximate: \"tanh\")"},
    {"hardsigmoid", "[3, 4]", "x -> hardsigmoid"},
    {"hardswish", "[3, 4]", "x -> hardswish"},
};

std::string case_text(const OpCase& c) {
  std::string body(c.body);
  // `abs_free`: a positive divisor without a language op for it.
  if (const auto at = body.find("x -> abs_free"); at != std::string::npos) body.replace(at, 13, "x -> mul(x)");
  const bool block = !body.empty() && body.front() == '{';
  if (block) body = body.substr(1, body.size() - 2);
  return "network t {\n  input x: " + std::string(c.input) + "\n" +
         (block ? "  " + body.substr(0, body.find("; return")) + "\n  return " + body.substr(body.find("return ") + 7)
                : "  return " + body) +
         "\n}\n";
}

}  // namespace

TEST_CASE("every op of the spec table has a lowering and a LibTorch case") {
  std::set<std::string_view> covered;
  for (const OpCase& c : kCases) covered.insert(c.op);
  for (const ir::OpSpec& spec : ir::all_ops()) {
    if (spec.name == "input") continue;
    INFO("op " << spec.name);
    CHECK(validate::lower::find(ir::op(spec.name)) != nullptr);
    CHECK(covered.count(spec.name) == 1);
  }
}

TEST_CASE("every op runs in LibTorch with the IR's shapes and parameter count, on a batch of 3") {
  const OpCase& c = GENERATE(from_range(std::begin(kCases), std::end(kCases)));
  const std::string text = case_text(c);
  INFO(text);
  const ir::Network net = lang::parse_network(text, "case.net");
  validate::TorchProgram program(net);
  CHECK(static_cast<double>(program.parameter_count()) == engine_parameters(net));
  check_shapes(program, 3);
  program.set_training(true);   // batch statistics and dropout masks: the training graph runs too
  check_shapes(program, 3);
}

TEST_CASE("a network of several inputs is refused by name: LibTorch programs take one") {
  lang::NetworkBuilder b("two", {4});
  const auto memory = b.add_input({4}, "memory");
  const ir::Network net = b.finish(b.add(b.input(), memory));
  CHECK_THROWS_WITH(validate::TorchProgram(net, {}), Catch::Contains("takes several inputs ('memory' besides the first)"));
}
