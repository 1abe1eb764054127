// Inference phases (issue 13): prefill, decode against a growing KV cache, latency, memory. Figures
// worked by hand in the comments.
#include "engine/generation.hpp"
#include "engine/parallel/collectives.hpp"
#include "engine/parallel/transformer.hpp"

#include "tests/engine/fixtures.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

// A grouped-query decoder: 3 layers, hidden 128, 8 query heads of 16, 2 KV heads.
const char* kDecoder =
    "block layer(x) {\n"
    "  h = x -> rmsnorm\n"
    "  q = h -> linear(128, bias: false)\n"
    "  k = h -> linear(32, bias: false)\n"
    "  v = h -> linear(32, bias: false)\n"
    "  x = add(x, attention(q, k, v, heads: 8, kv_heads: 2, causal: true, past: past) -> linear(128, bias: false))\n"
    "  g = x -> rmsnorm\n"
    "  return add(x, mul(g -> linear(256, bias: false) -> silu, g -> linear(256, bias: false)) -> linear(128, bias: false))\n"
    "}\n"
    "network gqa(seq_len = 8, past = 0) {\n"
    "  input ids: [seq_len]\n"
    "  x = ids -> embedding(1000, 128)\n"
    "  for i in 0 .. 3 { x = layer(x) }\n"
    "  return x -> rmsnorm -> linear(1000, bias: false)\n"
    "}\n";

engine::NetworkAt decoder_at() {
  return [](std::int64_t seq, std::int64_t past) {
    return lang::parse_network(kDecoder, "gqa.net", {{"seq_len", std::to_string(seq)}, {"past", std::to_string(past)}});
  };
}

}  // namespace

TEST_CASE("the KV cache holds every attention layer's keys and values per token") {
  // 3 layers x (32 + 32) widths x 2 B (fp16) = 384 B per token; Llama-2-7B's 2 x 32 x 32 x 128 x 2 B =
  // 524,288 B follows the same rule.
  const ir::Network net = decoder_at()(8, 0);
  CHECK(engine::kv_cache_bytes_per_token(net, ir::Precision::FP16) == 3 * 64 * 2);
}

TEST_CASE("prefill, decode and latency add up, and decode is the mean of its first and last step") {
  const auto g = engine::generate(decoder_at(), testing::a100(), {.batch = 4, .precision = ir::Precision::FP16}, 64, 20);
  CHECK(g.prefill.network == "gqa");
  CHECK(g.prefill_s == g.prefill.totals.time_fwd_s);
  // 20 tokens: the prefill gives the first, 19 decode steps the rest, at past = 64 .. 82 (P + G - 2):
  // decode time is affine in the cached length.
  const auto step = [&](std::int64_t past) {
    return engine::simulate(decoder_at()(1, past), testing::a100(), {.batch = 4, .precision = ir::Precision::FP16})
        .totals.time_fwd_s;
  };
  CHECK(g.decode_first_s == step(64));
  CHECK(g.decode_last_s == step(82));
  double sum = 0;
  for (std::int64_t past = 64; past < 83; ++past) sum += step(past);
  CHECK_THAT(g.decode_per_token_s * 19, WithinRel(sum, 1e-12));   // affine: the mean is exact
  CHECK_THAT(g.latency_s, WithinRel(g.prefill_s + sum, 1e-12));
  CHECK_THAT(g.tokens_per_s, WithinRel(4 * 20 / g.latency_s, 1e-12));
  // The cache peaks at the prompt and the 19 tokens fed back: 4 x 83 x 384 B.
  CHECK(g.kv_cache_bytes == 4.0 * (64 + 19) * 384);
  // One token is the prefill alone.
  const auto one = engine::generate(decoder_at(), testing::a100(), {.batch = 4, .precision = ir::Precision::FP16}, 64, 1);
  CHECK(one.latency_s == one.prefill_s);
  CHECK(one.kv_cache_bytes == 4.0 * 64 * 384);
  CHECK(g.memory_bytes == g.weight_bytes + g.kv_cache_bytes + g.activation_bytes);
}

TEST_CASE("decode at batch 1 is never faster than reading the weights once") {
  for (const ir::Precision p : {ir::Precision::FP16, ir::Precision::FP32}) {
    const auto g = engine::generate(decoder_at(), testing::a100(), {.batch = 1, .precision = p}, 32, 4);
    // The bound is the first decode step's roofline (a step reads one row of the embedding table, not
    // the table, so it sits below every weight over the bandwidth on this embedding-heavy decoder).
    CHECK(g.decode_bound_s == engine::simulate(decoder_at()(1, 32), testing::a100(), {.batch = 1, .precision = p})
                                  .totals.roofline_fwd_s);
    CHECK(g.decode_first_s >= g.decode_bound_s);
    CHECK(g.decode_per_token_s >= g.decode_bound_s);
  }
  // Weight-only int4: half a byte per weight of the matrix layers moves the bound and the time down.
  const auto fp16 = engine::generate(decoder_at(), testing::a100(), {.precision = ir::Precision::FP16}, 32, 4);
  const auto int4 = engine::generate(decoder_at(), testing::a100(),
                                     {.precision = ir::Precision::FP16, .weight_bytes = 0.5}, 32, 4);
  CHECK(int4.weight_bytes == fp16.weight_bytes / 4);
  CHECK(int4.decode_per_token_s < fp16.decode_per_token_s);
  CHECK(int4.decode_per_token_s >= int4.decode_bound_s);
}

TEST_CASE("the largest batch leaves room for every sequence's KV cache") {
  const auto g = engine::generate(decoder_at(), testing::a100(), {.batch = 2, .precision = ir::Precision::FP16}, 128, 128);
  REQUIRE(g.fits);
  REQUIRE(g.max_batch > 2);
  const double per_sequence = (g.kv_cache_bytes + g.activation_bytes) / 2;
  CHECK(g.weight_bytes + g.max_batch * per_sequence <= 40.0 * (1ull << 30));
  CHECK(g.weight_bytes + (g.max_batch + 1) * per_sequence > 40.0 * (1ull << 30));
}

TEST_CASE("generation refuses a network without attention and absurd token counts") {
  const engine::NetworkAt cnn = [](std::int64_t, std::int64_t) { return testing::tiny(); };
  CHECK_THROWS_WITH(engine::generate(cnn, testing::a100(), {}, 8, 8), Catch::Contains("no attention layer"));
  CHECK_THROWS_WITH(engine::generate(decoder_at(), testing::a100(), {}, 0, 8), Catch::Contains("between 1 and"));
  CHECK_THROWS_WITH(engine::generate(decoder_at(), testing::a100(), {}, 8, 1 << 21), Catch::Contains("between 1 and"));
}

TEST_CASE("on T x P devices a generation splits the layers, adds its collectives and shards its memory") {
  // The header's formulas (engine/generation.hpp), worked from the one-device reports and the
  // collectives' own times on a DGX A100's NVLink.
  const ir::Device dgx = lang::load_device(std::string(RIDGE_HW_DIR) + "/dgx-a100-80gb.hw");
  engine::Options o;
  o.precision = ir::Precision::BF16;
  o.batch = 2;
  const engine::Generation one = engine::generate(decoder_at(), dgx, o, 8, 4);
  const engine::Generation two = engine::generate(decoder_at(), dgx, o, 8, 4, {2, 1, ""});
  CHECK(two.tensor_parallel == 2);
  const auto topology = engine::parallel::topology_of(dgx, "", true);
  const engine::parallel::TransformerShape shape = engine::parallel::describe_transformer(decoder_at()(8, 0));
  REQUIRE(shape.layers == 3);
  REQUIRE(shape.hidden == 128);
  REQUIRE(shape.vocab == 1000);
  using engine::parallel::Collective;
  // Prefill: 2 x 8 tokens; 2 all-reduces a block and one for the embedding, of 16 x 128 x 2 B, and the
  // logits gathered, 16 x 1000 x 2 B.
  const double prefill_comm = 7 * engine::parallel::collective_seconds(Collective::AllReduce, 16 * 128 * 2, {2, 2}, topology) +
                              engine::parallel::collective_seconds(Collective::AllGather, 16 * 1000 * 2, {2, 2}, topology);
  CHECK_THAT(two.communication_prefill_s, WithinRel(prefill_comm, 1e-12));
  // Each layer on one rank: half its time where tensor parallelism splits it, but never under its
  // kernels' launches; the whole of it where every rank repeats it.
  const engine::Report& r = two.prefill;
  double rank = 0.0, repeated_params = 0.0;
  for (const engine::LayerRow& row : r.layers) {
    const bool repeats = engine::parallel::tensor_parallel_repeats(row, shape);
    rank += repeats ? row.time_fwd.paleo_s : std::max(row.time_fwd.paleo_s / 2, row.fwd.kernels * r.device.launch_overhead_s);
    if (repeats) repeated_params += row.params;
  }
  CHECK_THAT(two.prefill_s, WithinRel(rank + prefill_comm, 1e-12));
  CHECK(two.prefill_s < one.prefill_s + prefill_comm);
  // Memory: the split weights halve, the norms' do not; 2 KV heads split 2 ways.
  const double split_params = r.totals.params - repeated_params;
  CHECK(repeated_params == 7 * 128);   // 3 x 2 block norms and the final one (the embedding is split)
  const double weights = (split_params / 2 + repeated_params) * 2;
  CHECK_THAT(two.memory_per_device_bytes, WithinRel(weights + two.kv_cache_bytes / 2 + two.activation_bytes / 2, 1e-12));
  CHECK(one.memory_per_device_bytes == one.memory_bytes);
  // The decode bound is per rank.
  CHECK_THAT(two.decode_bound_s, WithinRel(one.decode_bound_s / 2, 1e-12));
  // Two pipeline stages: the same layers one after the other, and one send of 16 x 128 x 2 B between them.
  const engine::Generation staged = engine::generate(decoder_at(), dgx, o, 8, 4, {1, 3, ""});
  CHECK_THAT(staged.communication_prefill_s,
             WithinRel(2 * engine::parallel::collective_seconds(Collective::PointToPoint, 16 * 128 * 2, {2, 2}, topology), 1e-12));
  CHECK_THAT(staged.prefill_s, WithinRel(one.prefill_s + staged.communication_prefill_s, 1e-9));
  // Each stage holds a third of the weights and of the KV cache, and the prefill's whole activations.
  CHECK_THAT(staged.memory_per_device_bytes,
             WithinRel(staged.weight_bytes / 3 + staged.kv_cache_bytes / 3 + staged.activation_bytes, 1e-12));
}

TEST_CASE("a generation's devices must divide its heads, fit its blocks and exist in its system") {
  const ir::Device dgx = lang::load_device(std::string(RIDGE_HW_DIR) + "/dgx-a100-80gb.hw");
  const ir::Device card = lang::load_device(std::string(RIDGE_HW_DIR) + "/a100-sxm4-80gb.hw");
  const engine::Options o;
  const auto refused = [&](const ir::Device& d, engine::GenerationParallel p, const std::string& why) {
    INFO(why);
    CHECK_THROWS_WITH(engine::generate(decoder_at(), d, o, 8, 4, p), Catch::Contains(why));
  };
  refused(dgx, {3, 1, ""}, "does not divide the 8 attention heads");
  refused(dgx, {1, 4, ""}, "more stages than the 3 blocks");
  refused(dgx, {8, 2, ""}, "more than system");
  refused(card, {2, 1, ""}, "more than system 'NVIDIA A100-SXM4-80GB' has (1)");
}
