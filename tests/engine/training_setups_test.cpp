// Training set-ups (issue 13): optimizer, mixed precision, recomputation, MFU, largest batch. Every
// expected figure is worked by hand from the formulas' sources in the comments.
#include "engine/simulate.hpp"

#include "tests/engine/fixtures.hpp"
#include "lang/catalogue.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using Catch::Matchers::WithinRel;

namespace {

// A two-block decoder: token embedding, per block layernorm, qkv, causal attention, projection, MLP.
ir::Network decoder(int seq = 16, bool flash = false) {
  const std::string kernel = flash ? "\"flash\"" : "\"materialized\"";
  return lang::parse_network(
      "block layer(x) {\n"
      "  h = x -> layernorm\n"
      "  q, k, v = h -> linear(192) -> split(3, axis: 1)\n"
      "  x = add(x, attention(q, k, v, heads: 4, causal: true, kernel: " + kernel + ") -> linear(64))\n"
      "  return add(x, x -> layernorm -> linear(256) -> gelu -> linear(64))\n"
      "}\n"
      "network tiny_lm(seq_len = " + std::to_string(seq) + ") {\n"
      "  input ids: [seq_len]\n"
      "  x = ids -> embedding(100, 64)\n"
      "  for i in 0 .. 2 { x = layer(x) }\n"
      "  return x -> layernorm -> linear(100, bias: false)\n"
      "}\n",
      "tiny_lm.net");
}

}  // namespace

TEST_CASE("mixed precision keeps fp32 master weights and optimizer states: 16 B per parameter with Adam") {
  // ZeRO (Rajbhandari et al. 2020), section 3.1: mixed-precision Adam holds fp16 weights (2) and
  // gradients (2), and fp32 master weights (4), momentum (4) and variance (4): 16 bytes per parameter.
  const auto r = engine::simulate(decoder(), testing::a100(),
                                  {.batch = 4, .precision = ir::Precision::BF16, .optimizer = engine::Optimizer::AdamW});
  const auto& t = r.totals;
  const double P = t.params;
  CHECK(t.gradient_bytes == 2 * P);
  CHECK(t.master_weight_bytes == 4 * P);
  CHECK(t.optimizer_state_bytes == 8 * P);
  CHECK(t.memory_train_bytes == 16 * P + t.saved_activation_bytes);
  // AdamW: 14 FLOPs per parameter; reads the master weights, the bf16 gradients and both states
  // (4 + 2 + 8 = 14 B), writes master weights, states and the bf16 copy (4 + 8 + 2 = 14 B).
  CHECK(t.flops_update == 14 * P);
  CHECK(t.bytes_update == 28 * P);
  // fp32 training needs no master copy: weights, gradients and Adam's two states at 4 B.
  const auto fp32 = engine::simulate(decoder(), testing::a100(), {.batch = 4, .optimizer = engine::Optimizer::Adam});
  CHECK(fp32.totals.master_weight_bytes == 0);
  CHECK(fp32.totals.memory_train_bytes == 16 * P + fp32.totals.saved_activation_bytes);
  CHECK(fp32.totals.flops_update == 13 * P);
}

TEST_CASE("SGD with momentum under mixed precision reads 10 and writes 10 bytes per parameter") {
  // reads fp32 master (4), fp16 gradient (2), fp32 momentum (4); writes master (4), momentum (4), fp16 copy (2)
  const auto r = engine::simulate(testing::tiny(), testing::a100(), {.precision = ir::Precision::FP16});
  CHECK(r.totals.bytes_update == 20 * r.totals.params);
  CHECK(r.totals.memory_train_bytes == (2 + 2 + 4 + 4) * r.totals.params + r.totals.saved_activation_bytes);
}

TEST_CASE("torch.optim's foreach AdamW makes eight passes over the parameters where a fused one makes one") {
  // _multi_tensor_adam with decoupled decay (torch/optim/adamw.py, PyTorch 2.x): w *= 1 - lr wd; m.lerp_(g);
  // v *= b2; v.addcmul_(g, g); t = sqrt(v); t /= sqrt(bc2); t += eps; w.addcdiv_(m, t). fp32: weights,
  // states and t read 2 + 5 + 3 = 10 times and g twice, at 4 B: 48 B read per parameter; written
  // 2 + 3 + 3 = 8 times: 32 B. The fused pass: 4 + 4 + 8 = 16 B read, 4 + 8 = 12 B written.
  const auto foreach = std::make_shared<const ir::Runtime>(
      lang::parse_runtime("runtime \"t\" {\n  version = \"1\"\n  optimizer = foreach source \"s\"\n}\n", "t.rt"));
  const engine::Options fused{.batch = 4, .optimizer = engine::Optimizer::AdamW};
  engine::Options multi = fused;
  multi.runtime = foreach;
  const auto a = engine::simulate(decoder(), testing::a100(), fused), b = engine::simulate(decoder(), testing::a100(), multi);
  const double P = a.totals.params;
  CHECK(a.totals.bytes_update == (16 + 12) * P);
  CHECK(b.totals.bytes_update == (48 + 32) * P);
  CHECK(b.totals.flops_update == a.totals.flops_update);
  // Eight steps, each one multi_tensor_apply launch for a model this small.
  CHECK(b.totals.kernels_update == 8);
  // On a model whose update is bandwidth-bound (GPT-2, 124 M parameters) it takes 80 / 28 of the time,
  // less the launches' share.
  const ir::Network gpt2 = lang::load_network(lang::resolve_network_path("gpt2"), {});
  const double fused_s = engine::simulate(gpt2, testing::a100(), fused).totals.time_update_s;
  const double foreach_s = engine::simulate(gpt2, testing::a100(), multi).totals.time_update_s;
  CHECK(foreach_s / fused_s > 2.5);
  CHECK(foreach_s / fused_s < 80.0 / 28.0 + 0.05);
  // SGD with momentum: b *= m; b += g; w -= lr b: 4 weight and state reads and one gradient, 3 writes.
  engine::Options sgd = multi;
  sgd.optimizer = engine::Optimizer::SgdMomentum;
  CHECK(engine::simulate(decoder(), testing::a100(), sgd).totals.bytes_update == (5 + 3) * 4 * P);
  // Nothing else of the step moves.
  CHECK(b.totals.time_fwd_train_s == a.totals.time_fwd_train_s);
  CHECK(b.totals.time_bwd_s == a.totals.time_bwd_s);
}

TEST_CASE("MFU and HFU are the step's model and hardware FLOPs over time x the matrix peak") {
  for (const auto recompute : {engine::Recompute::None, engine::Recompute::Selective, engine::Recompute::Full}) {
    const auto r = engine::simulate(decoder(64), testing::a100(),
                                    {.batch = 8, .precision = ir::Precision::FP16, .recompute = recompute});
    const auto& t = r.totals;
    CAPTURE(engine::recompute_name(recompute));
    const double peak = 312e12;   // the A100's dense fp16 tensor-core peak (datasheet 624* / 2)
    CHECK_THAT(t.mfu, WithinRel((t.flops_fwd_train + t.flops_bwd) / (t.time_train_step_s * peak), 1e-12));
    CHECK_THAT(t.hfu, WithinRel((t.flops_fwd_train + t.flops_bwd + t.flops_recompute) / (t.time_train_step_s * peak), 1e-12));
    CHECK(t.mfu > 0);
    CHECK(t.mfu < 1);
    if (recompute == engine::Recompute::None) CHECK(t.hfu == t.mfu);
    else CHECK(t.hfu > t.mfu);
  }
}

TEST_CASE("recomputation trades saved activations for forward time") {
  const auto none = engine::simulate(decoder(64), testing::a100(), {.batch = 8}).totals;
  const auto sel = engine::simulate(decoder(64), testing::a100(), {.batch = 8, .recompute = engine::Recompute::Selective}).totals;
  const auto full = engine::simulate(decoder(64), testing::a100(), {.batch = 8, .recompute = engine::Recompute::Full}).totals;
  // Selective drops exactly the attention scores the materialised kernel saves: batch x heads x T x S
  // x 4 B per attention layer (Korthikanti et al. 2022, the 5 a s^2 b term's softmax part).
  CHECK(none.saved_activation_bytes - sel.saved_activation_bytes == 2 * 8.0 * 4 * 64 * 64 * 4);
  CHECK(full.saved_activation_bytes < sel.saved_activation_bytes);
  CHECK(full.flops_recompute == none.flops_fwd_train);
  CHECK(full.time_train_step_s == Approx(none.time_train_step_s + none.time_fwd_train_s).epsilon(1e-12));
  CHECK(sel.time_train_step_s > none.time_train_step_s);
  CHECK(sel.time_train_step_s < full.time_train_step_s);
}

TEST_CASE("the largest batch that fits is the last whose memory is within the device's") {
  const ir::Network net = decoder(256);
  const auto r = engine::simulate(net, testing::a100(), {.batch = 1, .precision = ir::Precision::BF16});
  const double mem = *r.device.memory_bytes;
  for (const bool train : {false, true}) {
    const std::int64_t b = train ? r.totals.max_batch_train : r.totals.max_batch_infer;
    REQUIRE(b > 1);
    const auto at = [&](std::int64_t batch) {
      const auto t = engine::simulate(net, testing::a100(), {.batch = batch, .precision = ir::Precision::BF16}).totals;
      return train ? t.memory_train_bytes : t.memory_infer_bytes;
    };
    CAPTURE(train, b);
    CHECK(at(b) <= mem);
    CHECK(at(b + 1) > mem);
  }
}

TEST_CASE("a token sequence reports its tokens per sample") {
  const auto r = engine::simulate(decoder(16), testing::a100(), {.batch = 2});
  CHECK(r.totals.tokens_per_sample == 16);
  const auto image = engine::simulate(testing::tiny(), testing::a100(), {});
  CHECK(image.totals.tokens_per_sample == 0);
}

TEST_CASE("the flash kernel saves and moves no score matrix and counts the same FLOPs") {
  const auto m = engine::simulate(decoder(128, false), testing::a100(), {.batch = 4});
  const auto f = engine::simulate(decoder(128, true), testing::a100(), {.batch = 4});
  CHECK(m.totals.flops_fwd == f.totals.flops_fwd);
  CHECK(m.totals.macs == f.totals.macs);
  CHECK(f.totals.bytes_fwd < m.totals.bytes_fwd);
  // Scores: 4 heads x 128 x 128 per sample and attention layer, written and read twice (4 passes), 4 B.
  CHECK(m.totals.bytes_fwd - f.totals.bytes_fwd ==
        Approx(2 * 4.0 * (4 * 128 * 128 * 4 * 4) - 2 * 4.0 * 4 * 128 * 4).epsilon(1e-12));
  CHECK(f.totals.saved_activation_bytes < m.totals.saved_activation_bytes);
}

TEST_CASE("eager attention runs the scale, mask, softmax and dropout as kernels over the scores, worked by hand") {
  // Hugging Face's eager path (engine/costs/dense.cpp, eager_attention): batch 1, fp32, 2 heads of
  // width 4 over 4 tokens: 32 scores, one pass over them 128 B. MACs 32 x (4 + 4) = 256, 512 FLOPs.
  const ir::Network net = lang::parse_network(R"(network probe {
  input x: [4, 8]
  h = x -> linear(24)
  q, k, v = h -> split(3, axis: 1)
  return attention(q, k, v, heads: 2, kernel: "eager", masked: true, dropout: 0.1) as attn
}
)", "probe.net");
  const auto r = engine::simulate(net, testing::a100(), {.batch = 1, .precision = ir::Precision::FP32});
  const engine::LayerRow* a = nullptr;
  for (const auto& l : r.layers)
    if (l.name == "attn") a = &l;
  REQUIRE(a);
  // Inference: 512 + 7 per score (scale 1, mask 1, softmax 5) = 736 FLOPs in 5 kernels (2 GEMMs, scale,
  // mask, softmax). Reads q, k, v (3 x 128 B), S three times and P once (4 x 128), the padding mask
  // (4 keys x 4 B): 912 B. Writes the output (128 B) and S, S, S, P (4 x 128): 640 B.
  CHECK(a->fwd.flops == 736);
  CHECK(a->fwd.bytes_read == 912);
  CHECK(a->fwd.bytes_written == 640);
  CHECK(a->fwd.kernels == 5);
  // Training adds dropout: 1 FLOP per score, reads P (128), writes P' (128) and a 1-byte mask (32).
  CHECK(a->fwd_train.flops == 768);
  CHECK(a->fwd_train.bytes_read == 1040);
  CHECK(a->fwd_train.bytes_written == 800);
  CHECK(a->fwd_train.kernels == 6);
  // Backward: 2 x 512 + 6 per score (dropout 1, softmax 4, scale 1) = 1216 FLOPs in 7 kernels (4 GEMMs,
  // dropout, softmax, scale). Reads q, k, v, dO (512 B), P', dP, dP', P, dS x 3 (7 x 128) and the mask
  // (32): 1440 B. Writes dq, dk, dv (384 B) and dP, dP', dS, dS (4 x 128): 896 B.
  CHECK(a->bwd.flops == 1216);
  CHECK(a->bwd.bytes_read == 1440);
  CHECK(a->bwd.bytes_written == 896);
  CHECK(a->bwd.kernels == 7);
}
