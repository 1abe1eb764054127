// Hand-worked cases for the generation model's formulas (issue #33): the KV cache of a grouped-query
// decoder, 2 . layers . kv_heads . head_dim . bytes per token, and the decode bound, the first decode
// step's roofline: the weights read once, the KV cache and the step's own activations over the memory
// bandwidth. Every expected figure is worked from the layer's bytes in the comments.
#include "engine/generation.hpp"

#include "tests/engine/fixtures.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

// 2 layers of grouped-query attention without norms or MLP: hidden 64, 4 query heads of head_dim 16,
// 2 KV heads (k and v 32 wide), the flash kernel (no score matrix in memory).
const char* kProbe =
    "block layer(x) {\n"
    "  q = x -> linear(64, bias: false)\n"
    "  k = x -> linear(32, bias: false)\n"
    "  v = x -> linear(32, bias: false)\n"
    "  return attention(q, k, v, heads: 4, kv_heads: 2, causal: true, past: past, kernel: \"flash\")\n"
    "}\n"
    "network gqa_probe(seq_len = 1, past = 0) {\n"
    "  input x: [seq_len, 64]\n"
    "  for i in 0 .. 2 { x = layer(x) }\n"
    "  return x\n"
    "}\n";

engine::NetworkAt probe_at() {
  return [](std::int64_t seq, std::int64_t past) {
    return lang::parse_network(kProbe, "gqa_probe.net", {{"seq_len", std::to_string(seq)}, {"past", std::to_string(past)}});
  };
}

constexpr double kA100Bandwidth = 1555e9;   // B/s, the A100 40 GB datasheet (tests/engine/fixtures.hpp)

}  // namespace

TEST_CASE("the KV cache is 2 x layers x kv_heads x head_dim x bytes per token, for the prompt and the generated tokens") {
  // 2 (K and V) x 2 layers x 2 KV heads x 16 x 2 B (fp16) = 256 B a token; fp32 doubles it.
  CHECK(engine::kv_cache_bytes_per_token(probe_at()(1, 0), ir::Precision::FP16) == 256);
  CHECK(engine::kv_cache_bytes_per_token(probe_at()(1, 0), ir::Precision::FP32) == 512);
  // Batch 3, prompt 100, 20 generated: the cache peaks at the prompt and the 19 tokens fed back,
  // 3 x 119 x 256 B = 91,392 B.
  const auto g = engine::generate(probe_at(), testing::a100(), {.batch = 3, .precision = ir::Precision::FP16}, 100, 20);
  CHECK(g.kv_cache_bytes_per_token == 256);
  CHECK(g.kv_cache_bytes == 91'392);
}

TEST_CASE("the decode bound is the weights, the KV cache and the token's activations read over the bandwidth") {
  // The first decode step: 1 new token, past = the prompt's 100 tokens, fp16, batch 1. Each layer,
  // every kernel memory-bound (about 1 FLOP a byte against the A100's 200):
  //   q = linear(64): reads x (64 x 2 = 128 B) and W (64 x 64 x 2 = 8,192 B), writes q (128 B)  8,448 B
  //   k = linear(32): reads x (128 B) and W (64 x 32 x 2 = 4,096 B), writes k (64 B)           4,288 B
  //   v = linear(32): the same                                                                 4,288 B
  //   attention (flash): reads q, k, v (128 + 64 + 64 B) and the cache, 100 x (32 + 32) x 2 =
  //   12,800 B; writes the output (128 B) and the row log-sum-exp (4 heads x 2 B)            13,192 B
  // 2 layers: 2 x 30,216 = 60,432 B: weights 32,768 + KV cache 25,600 (100 tokens x 256 B) + the
  // token's activations 2,064.
  const auto one = engine::generate(probe_at(), testing::a100(), {.batch = 1, .precision = ir::Precision::FP16}, 100, 4);
  CHECK_THAT(one.decode_bound_s, WithinRel(60'432 / kA100Bandwidth, 1e-12));
  CHECK(one.decode_first_s >= one.decode_bound_s);
  // Batch 2 reads the weights once and each sequence's cache and activations: 32,768 + 2 x 27,664.
  const auto two = engine::generate(probe_at(), testing::a100(), {.batch = 2, .precision = ir::Precision::FP16}, 100, 4);
  CHECK_THAT(two.decode_bound_s, WithinRel(88'096 / kA100Bandwidth, 1e-12));
  // A longer prompt adds its KV cache only: 28 more tokens x 256 B = 7,168 B.
  const auto longer = engine::generate(probe_at(), testing::a100(), {.batch = 1, .precision = ir::Precision::FP16}, 128, 4);
  CHECK_THAT(longer.decode_bound_s, WithinRel(67'600 / kA100Bandwidth, 1e-12));
}
