// One memory model for one device and for many (issue #34): the parallel plan's activations are
// simulate()'s saved values split by tensor and sequence parallelism, and for a GPT block with dropout
// they are Korthikanti et al. 2022's Table 2, worked here from the paper, not from the program.
#include "engine/parallel/plan.hpp"
#include "engine/simulate.hpp"
#include "tests/engine/parallel_fixtures.hpp"

#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ridge;
using namespace ridge::engine::parallel;
using Catch::Matchers::WithinRel;

namespace {

// GPT-2's block as Megatron trains it without its fused kernels (attention's steps as kernels of their
// own, "eager"): dropout 0.1 after the softmax, after the projection and after the MLP; s = 128
// tokens, h = 256, a = 8 heads, 2 blocks, bf16.
constexpr double s = 128, h = 256, a = 8;
ir::Network gpt(int layers = 2) {
  return lang::parse_network(
      "block layer(x) {\n"
      "  y = x -> layernorm\n"
      "  q, k, v = y -> linear(768) -> split(3, axis: 1)\n"
      "  y = attention(q, k, v, heads: 8, causal: true, dropout: 0.1, kernel: \"eager\") -> linear(256) -> dropout(p: 0.1)\n"
      "  x = add(x, y)\n"
      "  y = x -> layernorm -> linear(1024) -> gelu -> linear(256) -> dropout(p: 0.1)\n"
      "  return add(x, y)\n"
      "}\n"
      "network gpt(seq_len = 128) {\n"
      "  input ids: [seq_len]\n"
      "  x = ids -> embedding(512, 256) -> dropout(p: 0.1)\n"
      "  for i in 0 .. " + std::to_string(layers) + " { x = layer(x) }\n"
      "  return x -> layernorm -> linear(512, bias: false)\n"
      "}\n",
      "gpt.net");
}

using testing::dgx;
engine::Options bf16() { return testing::mixed_adam(); }

}  // namespace

TEST_CASE("a GPT block keeps Korthikanti et al.'s 34 s b h + 5 a s^2 b bytes, split as their Table 2 splits them") {
  // Korthikanti et al., section 4.1 (16-bit values, 1-byte masks), per block of b sequences:
  //   attention 11 s b h + 5 a s^2 b: the QKV input 2, Q and K 4, softmax output 2 a s^2 b, its dropout
  //             mask a s^2 b and output 2 a s^2 b, V 2, the projection's input 2, its dropout mask 1;
  //   MLP 19 s b h: its input 2, GELU's input 8 and output 8, the dropout mask 1;
  //   two layer norms' inputs 4 s b h.
  // Tensor parallelism splits 24 s b h + 5 a s^2 b and repeats 10 s b h (the norms' inputs and
  // outputs, the two masks). Beyond the paper: each norm's mean and rstd, 2 s b values of 2 bytes.
  const double b = 2, sbh = s * b * h, scores = 5 * a * s * s * b, stats = 2 * 2 * s * b * 2;
  const ir::Network net = gpt();
  const MicroBatchProfile p = profile_micro_batch(net, dgx(), bf16(), 2, describe_transformer(net));
  CHECK(p.block_saved_split == 24 * sbh + scores);
  CHECK(p.block_saved_replicated == 10 * sbh + stats);
  CHECK(p.block_saved_scores == scores);
  CHECK(p.block_input_bytes == 2 * sbh);
}

TEST_CASE("on one device without recomputation the plan keeps what simulate() keeps") {
  const ir::Network net = gpt(4);
  engine::Options o = bf16();
  o.batch = 4;
  const engine::Report one = engine::simulate(net, dgx(), o);
  Strategy st;
  st.micro_batch = 4;
  st.global_batch = 4;
  const PlanReport r = plan(net, dgx(), bf16(), st);
  REQUIRE(r.strategies.size() == 1);
  CHECK_THAT(r.strategies.front().memory.activations, WithinRel(one.totals.saved_activation_bytes, 1e-12));
}

TEST_CASE("tensor parallelism, sequence parallelism and recomputation take Table 2's shares") {
  // Per block and micro-batch of 1: none sbh (10 + 24/t + 5as/(ht)); + SP sbh (34 + 5as/h)/t;
  // selective sbh (10 + 24/t); selective + SP 34 sbh/t; full: the block's input 2 sbh (/t with SP),
  // plus once the block being recomputed. The norms' statistics follow their values (repeated, or
  // split under SP); the embedding's and the LM head's values are the same in every strategy but T
  // (the logits split t ways), so differences between two depths isolate one block.
  const double sbh = s * h, scores = 5 * a * s * s, stats = 2 * 2 * s * 2;
  auto block = [&](int t, bool sp, engine::Recompute rc) {
    auto activations = [&](int layers) {
      Strategy st;
      st.tensor = t;
      st.sequence_parallel = sp;
      st.recompute = rc;
      return plan(gpt(layers), dgx(), bf16(), st).strategies.front().memory.activations;
    };
    return activations(4) - activations(2);   // two blocks' worth
  };
  using engine::Recompute;
  const double t = 4;
  CHECK_THAT(block(4, false, Recompute::None), WithinRel(2 * (sbh * (10 + 24 / t) + scores / t + stats), 1e-12));
  CHECK_THAT(block(4, true, Recompute::None), WithinRel(2 * (sbh * 34 + scores + stats) / t, 1e-12));
  CHECK_THAT(block(4, false, Recompute::Selective), WithinRel(2 * (sbh * (10 + 24 / t) + stats), 1e-12));
  CHECK_THAT(block(4, true, Recompute::Selective), WithinRel(2 * (34 * sbh + stats) / t, 1e-12));
  CHECK_THAT(block(4, true, Recompute::Full), WithinRel(2 * 2 * sbh / t, 1e-12));
}
