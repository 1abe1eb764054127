// Networks of several inputs (issue #38): an encoder-decoder's source and target, the memory a
// cross-attention reads. Each `input` statement after the first is a layer named after its variable,
// with the batch leading; the counts are worked by hand.
#include "tests/lang/lang_test_util.hpp"

#include "engine/op_costs.hpp"
#include "engine/simulate.hpp"
#include "lang/builder.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using test::error_of;
using test::total_parameters;

namespace {

// A decoder step's cross-attention: 7 target positions attend to 20 memory positions, E = 64.
const char* kCross = R"(network cross {
  input tgt: [7, 64]
  input memory: [20, 64]
  q = tgt -> linear(64) as q
  k = memory -> linear(64) as k
  v = memory -> linear(64) as v
  y = attention(q, k, v, heads: 4) as cross
  return add(y, tgt) as residual
}
)";

double macs(const ir::Network& net) {
  const auto grads = engine::grad_flags(net);
  double m = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i) m += engine::op_cost(net, net.layers[i], 1, ir::Precision::FP32, grads[i]).macs;
  return m;
}

}  // namespace

TEST_CASE("a second input is a layer named after its variable, and cross-attention reads it") {
  const ir::Network net = lang::parse_network(kCross, "cross.net");
  REQUIRE(net.layers.size() == 7);
  CHECK(net.layers[0].name == "input");
  CHECK(net.layers[0].output == ir::Shape{7, 64});
  CHECK(net.layers[1].name == "memory");
  CHECK(net.layers[1].op == ir::kInputOp);
  CHECK(net.layers[1].output == ir::Shape{20, 64});
  CHECK(net.layers[1].origin == "cross.net:3:3");
  CHECK(net.layers.at(net.output).output == ir::Shape{7, 64});
  // Three 64 x 64 projections with biases; per sample q 7·64·64, k and v 20·64·64 each MACs, and the
  // attention's two products 7·20·64 each (4 heads of 16).
  CHECK(total_parameters(net) == 3 * (64 * 64 + 64));
  CHECK(macs(net) == 7 * 64 * 64 + 2 * 20 * 64 * 64 + 2 * 7 * 20 * 64);
  // Both inputs are the batch's: at batch 8, eight samples' work, and the memory's values counted as
  // the network's activations (the inputs' bytes are in the inference memory).
  const ir::Device a100 = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-40gb.hw");
  const engine::Report one = engine::simulate(net, a100, {.batch = 1}), eight = engine::simulate(net, a100, {.batch = 8});
  CHECK(eight.totals.macs == 8 * one.totals.macs);
  CHECK(one.totals.peak_activation_bytes >= (7 + 20) * 64 * 4.0);
}

TEST_CASE("the C++ builder makes the same network, and refuses a taken input name") {
  lang::NetworkBuilder b("cross", {7, 64});
  const auto memory = b.add_input({20, 64}, "memory");
  const auto q = b.linear(b.input(), 64, true, "q");
  const auto k = b.linear(memory, 64, true, "k");
  const auto v = b.linear(memory, 64, true, "v");
  const auto y = b.call("attention", {q, k, v}, {{"heads", std::int64_t{4}}}, "cross");
  const ir::Network built = b.finish(b.add(y, b.input(), "residual"));
  const ir::Network text = lang::parse_network(kCross, "cross.net");
  REQUIRE(built.layers.size() == text.layers.size());
  for (std::size_t i = 0; i < built.layers.size(); ++i) {
    CAPTURE(i);
    CHECK(built.layers[i].name == text.layers[i].name);
    CHECK(built.layers[i].op == text.layers[i].op);
    CHECK(built.layers[i].inputs == text.layers[i].inputs);
    CHECK(built.layers[i].output == text.layers[i].output);
  }
  lang::NetworkBuilder again("n", {4});
  (void)again.add_input({4}, "m");
  CHECK_THROWS_WITH(again.add_input({4}, "m"), Catch::Contains("two layers are named 'm'"));
  CHECK_THROWS_WITH(again.add_input({4}, "input"), Catch::Contains("two layers are named 'input'"));
}

TEST_CASE("an input that reuses a tensor's name, or sits in a block, is an error at its place") {
  CHECK_THAT(error_of("network n {\n  input x: [4]\n  input x: [4]\n  return x\n}\n"),
             Catch::Contains("bad.net:3:9") && Catch::Contains("'x' is already a value of the network"));
  CHECK_THAT(error_of("network n {\n  input x: [4]\n  y = x -> relu\n  input y: [4]\n  return y\n}\n"),
             Catch::Contains("bad.net:4:9") && Catch::Contains("'y' is already a value"));
  CHECK_THAT(error_of("block b(x) {\n  input m: [4]\n  return x\n}\nnetwork n {\n  input x: [4]\n  return b(x)\n}\n"),
             Catch::Contains("bad.net:2:3") && Catch::Contains("'input' belongs in the network"));
}
