// Parity between the engine and the LibTorch program built from the IR: the same parameter count and
// every layer's output shape, for the whole zoo; and every op of the language run on a batch > 1.
#include "torch_program.hpp"

#include "builder.hpp"
#include "engine/op_costs.hpp"
#include "ir/ops.hpp"
#include "parse.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

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

// Attrs set field by field: designated initialisers would have to name every later field.
template <class Set>
ir::Attrs attrs(Set&& set) {
  ir::Attrs a;
  set(a);
  return a;
}

}  // namespace

TEST_CASE("every zoo network runs in LibTorch with the engine's parameter count and every layer's shape") {
  const auto paths = zoo();
  REQUIRE_FALSE(paths.empty());
  const std::string path = GENERATE_COPY(from_range(paths));
  const ir::Network net = lang::load_network(path);
  INFO(path);
  const validate::TorchProgram program(net);
  CHECK(static_cast<double>(program.parameter_count()) == engine_parameters(net));
  check_shapes(program, 1);
}

TEST_CASE("every op of the language runs with the matching ATen op on a batch of 3") {
  lang::NetworkBuilder b("every_op", {8, 12, 12});
  using ir::Op;
  auto x = b.conv(b.input(), 16, 3, {.padding = 1, .dilation = 1, .groups = 2});
  x = b.batchnorm(x);
  for (Op act : {Op::ReLU, Op::ReLU6, Op::SiLU, Op::Sigmoid, Op::HardSwish, Op::HardSigmoid, Op::GELU, Op::Tanh})
    x = b.activation(act, x);
  const auto mp = b.layer(Op::MaxPool, attrs([](auto& a) { a.kernel = {3, 3}; a.stride = {2, 2}; a.padding = {1, 1}; a.ceil_mode = true; }), {x});
  const auto ap = b.layer(Op::AvgPool, attrs([](auto& a) { a.kernel = {3, 3}; a.stride = {2, 2}; a.padding = {1, 1}; a.ceil_mode = true; a.count_include_pad = false; }), {x});
  auto y = b.concat({mp, ap});
  y = b.layer(Op::ChannelShuffle, attrs([](auto& a) { a.groups = 4; }), {y});
  const auto s0 = b.layer(Op::Slice, attrs([](auto& a) { a.start = 0; a.size = 16; }), {y});
  const auto s1 = b.layer(Op::Slice, attrs([](auto& a) { a.start = 16; a.size = 16; }), {y});
  const auto se = b.activation(Op::Sigmoid, b.adaptive_avgpool(s1, 1, 1));   // [16,1,1] scales [16,H,W]
  y = b.add(b.mul(s0, se), s1);
  const auto am = b.layer(Op::AdaptiveMaxPool, attrs([](auto& a) { a.output_size = {2, 2}; }), {y});
  auto t = b.layer(Op::Reshape, attrs([](auto& a) { a.shape = {4, -1}; }), {am});                        // [4, 16] tokens
  t = b.layernorm(b.linear(t, 16));
  const auto tt = b.layer(Op::Reshape, attrs([](auto& a) { a.shape = {16, 4}; }), {t});
  auto att = b.layer(Op::Softmax, attrs([](auto& a) { a.axis = -1; }), {b.matmul(t, tt)});               // [4, 4]
  t = b.add(b.matmul(att, t), b.linear(t, 16, false));
  const auto bias = b.layer(Op::Reshape, attrs([](auto& a) { a.shape = {16}; }), {b.adaptive_avgpool(s0, 1, 1)});
  t = b.add(t, bias);                                                              // [4,16] + [16]: lower rank broadcasts
  auto out = b.flatten(b.dropout(t, 0.2));
  const ir::Network net = b.finish(b.linear(out, 10));

  validate::TorchProgram program(net);
  CHECK(static_cast<double>(program.parameter_count()) == engine_parameters(net));
  check_shapes(program, 3);
  program.set_training(true);   // batch statistics and dropout masks: the training graph runs too
  check_shapes(program, 3);
}
