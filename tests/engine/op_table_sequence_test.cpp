// The counts of the sequence ops documented at the top of engine/costs/dense.cpp (and in the comments
// of eager_attention() and moe() there), pinned: forward, training-mode forward and backward FLOPs,
// bytes read and written and kernels, for attention ("flash" and "eager"; causal or not; eager with
// masked: and dropout:; "materialized"), embedding (plain, and tied to a linear's weights), parameter,
// lstm, gru and moe; MACs and parameters of every layer. The expected numbers are
// worked by hand from those documented counts and docs/counting.md's byte convention (read inputs + weights,
// write outputs; backward reads the output gradient, the saved tensors and the weights, writes the
// input and weight gradients), never from the code under test.
//
// The networks are built from .net text and read back through simulate(), layers looked up by name.
#include "engine/simulate.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"
#include "tests/engine/op_table.hpp"
#include "tests/support/fixed_device.hpp"

#include <catch2/catch.hpp>

#include <iterator>
#include <map>
#include <string>
#include <vector>

using namespace ridge;

namespace {

// Batch 2, fp32 (4 B per element) throughout. Per-sample shapes in the comments; counts are per batch.
//
// Attention: q [3, 8] from a linear (so every attention input needs a gradient: q depends on linear1's
// weights, k and v are parameters), k [5, 4] and v [5, 6] learned tensors shared by 2 query heads
// (kv_heads 1). So h = 2, T = 3, S = 5, d = 8 / 2 = 4, dv = 6; output [3, 2 x 6] = [3, 12].
// Every attention reads the same q, k, v; the unused ones stay in the network as layers of their own.
// The last one (q as q, k and v) has FlashAttention-2's shape: T = S = 3, d = dv = 4.
constexpr const char* kAttentionNet = R"(network attention_ops {
  input x: [3, 8]
  q = x -> linear(8)
  k = parameter([5, 4])
  v = parameter([5, 6])
  materialized = attention(q, k, v, heads: 2, kv_heads: 1)
  materialized_causal = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "materialized", causal: true)
  flash = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "flash")
  flash_causal = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "flash", causal: true)
  eager = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager")
  eager_causal = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager", causal: true)
  eager_masked = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager", masked: true)
  eager_dropout = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager", dropout: 0.1)
  eager_causal_dropout = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager", causal: true, dropout: 0.1)
  eager_masked_dropout = attention(q, k, v, heads: 2, kv_heads: 1, kernel: "eager", masked: true, dropout: 0.1)
  return attention(q, q, q, heads: 2, kernel: "flash")
}
)";

// Embedding: ids [4]; a plain table of 10 x 6, a linear 6 -> 10 without bias (a [10, 6] weight), and a
// second embedding whose table is that linear's weight (tied, as GPT-2 ties its head to wte, reversed).
constexpr const char* kEmbeddingNet = R"(network embedding_ops {
  input x: [4]
  e = x -> embedding(10, 6)
  h = e -> linear(10, bias: false)
  t = x -> embedding(10, 6, tied: h)
  return h
}
)";

// Recurrent and mixture-of-experts layers: x [3, 5] -> a 2-layer bidirectional LSTM of hidden 4 ->
// [3, 8] -> a GRU of hidden 6 -> [3, 6] -> a gated MoE (4 experts, top 2, hidden 5) -> a plain one.
// The LSTM's input is the network input (needs no gradient); every later input needs one.
constexpr const char* kRecurrentNet = R"(network recurrent_ops {
  input x: [3, 5]
  y = x -> lstm(4, layers: 2, bidirectional: true)
  z = y -> gru(6)
  m = z -> moe(4, 2, 5)
  return m -> moe(4, 2, 5, gated: false)
}
)";

const engine::Report& simulated(const char* net) {
  static std::map<const char*, engine::Report> reports;
  auto it = reports.find(net);
  if (it == reports.end())
    it = reports
             .emplace(net, testing::simulate_on_fixed_device(net, "sequence_ops.net"))
             .first;
  return it->second;
}

const engine::LayerRow& layer(const char* net, const std::string& name) { return testing::layer_named(simulated(net), name); }

using Pass = testing::PassCount;

struct Row {
  const char* net;
  const char* layer;
  Pass fwd;         // inference
  Pass fwd_train;   // training-mode forward
  Pass bwd;
};

constexpr Pass kNothing{0, 0, 0, 0};

// The attention layers' sizes (per batch, B = 2, h = 2, T = 3, S = 5, d = 4, dv = 6):
//   q 2 x 3 x 8 = 48 elements (192 B), k 2 x 5 x 4 = 40 (160 B), v 2 x 5 x 6 = 60 (240 B): 592 B;
//   output 2 x 3 x 12 = 72 elements (288 B); the input gradients are q, k, v again: 592 B.
//   scores B h T S = 60; one pass over them, S, P or a gradient of theirs, 240 B.
//   MACs = B h T S (d + dv) = 60 x 10 = 600; the matmul FLOPs (Q K^T and P V) 1200.
//   Pointwise per score: scale 1 + mask 1 (causal only) + softmax 5 = 6, or 7 causal.
//
// Flash (1 kernel each way, no score traffic): forward reads q, k, v (592 B), writes the output and the
// row log-sum-exp, B h T = 12 values: 288 + 48 = 336 B. Backward: 2.5 x the forward matmuls (Dao,
// FlashAttention-2, 2023: the 5 matmuls Q K^T again, dV, dP, dQ, dK) = 3000, plus per score the forward's
// pointwise again (the recomputed scale, mask, softmax: 6, or 7 causal) and the softmax gradient's 4:
// 10, or 11 causal. The header comment of dense.cpp says "+ 9 per score"; it is being corrected to this
// reading, which is what the code does. Reads dO (288 B), q, k, v (592 B) and the saved output and
// log-sum-exp (288 + 48 B, for FlashAttention-2's rowsum(dO o O)): 1216 B; writes dq, dk, dv: 592 B.
constexpr Pass kFlashForward{1200 + 6 * 60, 592, 336, 1};                  // 1560
constexpr Pass kFlashCausalForward{1200 + 7 * 60, 592, 336, 1};            // 1620
constexpr Pass kFlashBackward{2.5 * 1200 + (6 + 4) * 60, 1216, 592, 1};    // 3600
constexpr Pass kFlashCausalBackward{2.5 * 1200 + (7 + 4) * 60, 1216, 592, 1};  // 3660

// Eager (eager_attention()'s comment): one kernel per step, each reading and writing the scores whole.
//   forward   Q K^T (reads q, k; writes S) | scale (reads S, writes S) | the mask when causal or masked
//             (reads S and the mask, writes S) | softmax (reads S, writes P) | P V (reads P and v,
//             writes the output): 4 kernels + 1 with a mask; FLOPs 1200 + (1 + mask + 5) per score.
//             The mask's own bytes: causal's bool [T, S] buffer, T S = 15 B (one for the batch); a
//             padding mask of S per sample at the precision's width, 2 x 5 x 4 = 40 B.
//   training  dropout (p > 0) after softmax: 1 per score, reads P (240 B), writes P' (240 B) and a
//             1-byte mask per score (60 B); one more kernel.
//   backward  dP = dO V^T (writes dP) | dV = P'^T dO (reads P') | dropout's (1 per score; reads dP and
//             the 60 B mask, writes dP') | softmax's (4 per score; reads dP' and P, writes dS) | the causal
//             where's (1 per score; reads dS, writes dS; an additive mask has none) | the scale's (1 per
//             score; reads dS, writes dS) | dQ = dS K, dK = dS^T Q (each reads dS). FLOPs: 2 x 1200 for
//             the four matmuls + per score. Bytes besides the score passes: dO and q, k, v read
//             (288 + 592 = 880 B), dq, dk, dv written (592 B). Kernels: 4 matmuls + softmax + scale,
//             + dropout, + causal where.
//   Plain:   forward 1560 FLOPs; reads 592 + (scale, softmax, P V) 3 x 240 = 1312 B; writes 288 + (Q K^T,
//            scale, softmax) 3 x 240 = 1008 B; 4 kernels.
//            backward 2400 + (softmax 4 + scale 1) x 60 = 2700; reads 880 + (P', dP and P, dS x 3)
//            6 x 240 = 2320 B; writes 592 + (dP, dS, dS) 3 x 240 = 1312 B; 6 kernels.
//   A mask:  forward + 60 FLOPs, + 240 B read and written, + the mask's bytes, + 1 kernel.
//   Causal:  backward + 60 FLOPs (the where), + 240 B read and written, + 1 kernel.
//   Dropout: training forward + 60 FLOPs, + 240 B read, + 240 + 60 B written, + 1 kernel;
//            backward + 60 FLOPs, + 240 + 60 B read (dP and the mask), + 240 B written (dP'), + 1 kernel.
constexpr Pass kEagerForward{1560, 1312, 1008, 4};
constexpr Pass kEagerCausalForward{1620, 1312 + 240 + 15, 1248, 5};   // reads 1567 B
constexpr Pass kEagerMaskedForward{1620, 1312 + 240 + 40, 1248, 5};   // reads 1592 B
constexpr Pass kEagerBackward{2700, 2320, 1312, 6};

const Row kRows[] = {
    // The attention network. The input is a view: nothing runs either way.
    {kAttentionNet, "input", kNothing, kNothing, kNothing},
    // linear1: 8 -> 8 on [3, 8], 72 parameters (64 + 8 bias). MACs 2 x 3 x 8 x 8 = 384, FLOPs 768.
    // Reads (48 + 72) x 4 = 480 B, writes 48 x 4 = 192 B. Backward: its input (the network input) needs
    // no gradient, so the weight gradient only: 768 FLOPs, reads g and x (48 + 48) x 4 = 384 B, writes
    // 72 x 4 = 288 B, 1 kernel.
    {kAttentionNet, "linear1", {768, 480, 192, 1}, {768, 480, 192, 1}, {768, 384, 288, 1}},
    // parameter1 [5, 4], 20 weights: a view forward (no kernel). Backward: the batch's gradient, 2 x 20 =
    // 40 elements, reduced into the weight gradient at 1 add per element: 40 FLOPs; reads 160 B, writes
    // 20 x 4 = 80 B.
    {kAttentionNet, "parameter1", kNothing, kNothing, {40, 160, 80, 1}},
    // parameter2 [5, 6], 30 weights: backward 60 FLOPs, reads 240 B, writes 120 B.
    {kAttentionNet, "parameter2", kNothing, kNothing, {60, 240, 120, 1}},
    // attention1, materialized (3 kernels: Q K^T writing S, softmax reading S and writing P, P V reading
    // P): forward 1200 + 6 x 60 = 1560 FLOPs; reads q, k, v and 2 score passes 592 + 480 = 1072 B;
    // writes the output and 2 score passes 288 + 480 = 768 B. Backward, 5 kernels (dP = dO V^T writes
    // dP; dV = P^T dO reads P; the softmax gradient reads P and dP, writes dS; dQ = dS K and dK = dS^T Q
    // read dS each): 2 x 1200 + 4 x 60 = 2640 FLOPs; reads dO, q, k, v (880 B) and 5 score passes
    // (1200 B): 2080 B; writes dq, dk, dv (592 B) and 2 score passes (480 B): 1072 B.
    {kAttentionNet, "attention1", {1560, 1072, 768, 3}, {1560, 1072, 768, 3}, {2640, 2080, 1072, 5}},
    // attention2, materialized and causal: the mask adds 1 per score forward (1620); backward as attention1.
    {kAttentionNet, "attention2", {1620, 1072, 768, 3}, {1620, 1072, 768, 3}, {2640, 2080, 1072, 5}},
    {kAttentionNet, "attention3", kFlashForward, kFlashForward, kFlashBackward},
    {kAttentionNet, "attention4", kFlashCausalForward, kFlashCausalForward, kFlashCausalBackward},
    {kAttentionNet, "attention5", kEagerForward, kEagerForward, kEagerBackward},
    // Causal: the where's backward: 2700 + 60 = 2760; reads 2320 + 240 = 2560 B; writes 1312 + 240 =
    // 1552 B; 7 kernels.
    {kAttentionNet, "attention6", kEagerCausalForward, kEagerCausalForward, {2760, 2560, 1552, 7}},
    // Masked (additive): the forward's mask kernel only; its backward is the identity.
    {kAttentionNet, "attention7", kEagerMaskedForward, kEagerMaskedForward, kEagerBackward},
    // Dropout: training forward 1560 + 60 = 1620, reads 1312 + 240 = 1552 B, writes 1008 + 300 = 1308 B,
    // 5 kernels; backward 2700 + 60 = 2760, reads 2320 + 300 = 2620 B, writes 1312 + 240 = 1552 B, 7.
    {kAttentionNet, "attention8", kEagerForward, {1620, 1552, 1308, 5}, {2760, 2620, 1552, 7}},
    // Causal and dropout: training forward 1620 + 60 = 1680, reads 1567 + 240 = 1807 B, writes 1248 + 300
    // = 1548 B, 6 kernels; backward 2700 + 60 + 60 = 2820, reads 2320 + 240 + 300 = 2860 B, writes
    // 1312 + 240 + 240 = 1792 B, 8 kernels.
    {kAttentionNet, "attention9", kEagerCausalForward, {1680, 1807, 1548, 6}, {2820, 2860, 1792, 8}},
    // Masked and dropout: training forward 1680, reads 1592 + 240 = 1832 B, writes 1548 B, 6 kernels;
    // backward as dropout alone (the additive mask has no backward): 2760, 2620 B, 1552 B, 7.
    {kAttentionNet, "attention10", kEagerMaskedForward, {1680, 1832, 1548, 6}, {2760, 2620, 1552, 7}},
    // attention11, flash on (q, q, q): h = 2, T = S = 3, d = dv = 4; scores 2 x 2 x 3 x 3 = 36.
    // MACs 36 x 8 = 288, matmul FLOPs 576; forward 576 + 6 x 36 = 792; reads q three times 3 x 192 =
    // 576 B; writes the output 192 B and the log-sum-exp 12 x 4 = 48 B: 240 B. Backward 2.5 x 576 +
    // 10 x 36 = 1800; reads dO 192 + q, k, v 576 + O 192 + lse 48 = 1008 B; writes 3 x 192 = 576 B.
    {kAttentionNet, "attention11", {792, 576, 240, 1}, {792, 576, 240, 1}, {1800, 1008, 576, 1}},

    // The embedding network: ids [4], 8 per batch (counted at the precision's width: 32 B); rows
    // [4, 6], 48 elements per batch (192 B).
    {kEmbeddingNet, "input", kNothing, kNothing, kNothing},
    // embedding1 (10 x 6 = 60 weights): a gather, no FLOPs; reads the ids and 6 weights per id
    // (8 + 48) x 4 = 224 B, writes the rows 192 B, 1 kernel. Backward: zero-fill the table, then
    // index_add the rows (1 add per element: 48 FLOPs), 2 kernels; reads g and the ids (48 + 8) x 4 =
    // 224 B; writes the dense weight gradient 60 x 4 = 240 B. The ids need no gradient.
    {kEmbeddingNet, "embedding1", {0, 224, 192, 1}, {0, 224, 192, 1}, {48, 224, 240, 2}},
    // linear1: 6 -> 10 on [4, 6], no bias: 60 weights. MACs 2 x 4 x 10 x 6 = 480, FLOPs 960. Reads
    // (48 + 60) x 4 = 432 B, writes 80 x 4 = 320 B. Backward: embedding1's output needs a gradient, so
    // input and weight gradients: 1920 FLOPs, 2 kernels; reads g, x and the weights (80 + 48 + 60) x 4 =
    // 752 B; writes (48 + 60) x 4 = 432 B.
    {kEmbeddingNet, "linear1", {960, 432, 320, 1}, {960, 432, 320, 1}, {1920, 752, 432, 2}},
    // embedding2, tied to linear1's [10, 6] weight: reads and updates those 60 weights as embedding1
    // does its own (the same bytes and FLOPs), owning none (its parameters are counted at linear1).
    {kEmbeddingNet, "embedding2", {0, 224, 192, 1}, {0, 224, 192, 1}, {48, 224, 240, 2}},

    // The recurrent network's input: a view.
    {kRecurrentNet, "input", kNothing, kNothing, kNothing},
    // lstm1: G = 4, H = 4, D = 2, T = 3, B = 2, 2 layers, input 5: x 2 x 3 x 5 = 30 elements, output
    // 2 x 3 x 8 = 48, 800 parameters, gate activations kept for backward G B T D H layers = 384.
    // FLOPs: matmuls 2 x 4032 = 8064 + pointwise 34 x B T D H layers = 34 x 96 = 3264: 11,328; one kernel
    // per step, layer and direction: 12. Inference reads x and the weights (30 + 800) x 4 = 3320 B and
    // writes the output 192 B; training also writes the 384 gate activations: (48 + 384) x 4 = 1728 B.
    // Backward 2 x 8064 + 2 x 3264 = 22,656 FLOPs, 24 kernels; reads g, x, the gates and the weights
    // (48 + 30 + 384 + 800) x 4 = 5048 B; writes the weight gradients only (its input is the network's):
    // 3200 B.
    {kRecurrentNet, "lstm1", {11328, 3320, 192, 12}, {11328, 3320, 1728, 12}, {22656, 5048, 3200, 24}},
    // gru1: G = 3, H = 6, input 8, one layer and direction: x 2 x 3 x 8 = 48, output 36, 288 parameters,
    // gates 3 x 2 x 3 x 6 = 108. FLOPs 2 x 1512 + 23 x 36 = 3852, 3 kernels. Inference reads
    // (48 + 288) x 4 = 1344 B, writes 144 B; training writes (36 + 108) x 4 = 576 B. Backward
    // 2 x 3024 + 2 x 828 = 7704 FLOPs, 6 kernels; reads (36 + 48 + 108 + 288) x 4 = 1920 B; writes the
    // input and weight gradients (48 + 288) x 4 = 1344 B.
    {kRecurrentNet, "gru1", {3852, 1344, 144, 3}, {3852, 1344, 576, 3}, {7704, 1920, 1344, 6}},
    // moe1, gated: d = 6, E = 4, k = 2, H = 5, m = 3, n = 6 tokens; x and y 36 elements (144 B); every
    // expert touched (min(E, n k) = 4): weights 24 + 4 x 3 x 30 = 384 (1536 B); hidden activations
    // n k H = 60. Forward (moe()'s comment): reads x for the router and for each of its k routed copies,
    // 3 x 144 = 432 B, and the weights: 1968 B; writes y and the hidden activations (36 + 60) x 4 =
    // 384 B; kernels: router and combine + one per touched expert matrix, 2 + 12 = 14; FLOPs 3072.
    // Backward: 2 x the matmuls (4 x 1224 = 4896) + 2 x the pointwise (2 x 624 = 1248) = 6144; reads dy,
    // x, the hidden activations and their gradient (36 + 36 + 120) x 4 = 768 B and the weights:
    // 2304 B; writes dx 144 B and the weight gradients 1536 B: 1680 B; 28 kernels.
    {kRecurrentNet, "moe1", {3072, 1968, 384, 14}, {3072, 1968, 384, 14}, {6144, 2304, 1680, 28}},
    // moe2, plain (m = 2): weights 24 + 4 x 2 x 30 = 264 (1056 B); reads 432 + 1056 = 1488 B; writes
    // 384 B; 2 + 8 = 10 kernels; FLOPs 2052. Backward 4 x 864 + 2 x 324 = 4104; reads 768 + 1056 =
    // 1824 B; writes 144 + 1056 = 1200 B; 20 kernels.
    {kRecurrentNet, "moe2", {2052, 1488, 384, 10}, {2052, 1488, 384, 10}, {4104, 1824, 1200, 20}},
};

std::vector<std::string> pinned_ops() {
  std::vector<std::string> ops;
  for (const Row& row : kRows) ops.push_back(std::string(ir::op_name(layer(row.net, row.layer).op)));
  return ops;
}
const testing::RegisterPinnedOps registered{&pinned_ops};

}  // namespace

TEST_CASE("attention, embedding, parameter, lstm, gru and moe costs of engine/costs/dense.cpp, worked by hand") {
  for (const Row& row : kRows) {
    CAPTURE(row.layer);
    const engine::LayerRow& l = layer(row.net, row.layer);
    testing::check_pass(l.fwd, row.fwd, "forward");
    testing::check_pass(l.fwd_train, row.fwd_train, "training-mode forward");
    testing::check_pass(l.bwd, row.bwd, "backward");
  }
}

TEST_CASE("every layer of the sequence-op networks has a hand-worked row") {
  for (const char* net : {kAttentionNet, kEmbeddingNet, kRecurrentNet}) {
    for (const engine::LayerRow& l : simulated(net).layers) {
      CAPTURE(l.name);
      int rows = 0;
      for (const Row& row : kRows)
        if (row.net == net && l.name == row.layer) ++rows;
      CHECK(rows == 1);
    }
  }
  CHECK(simulated(kAttentionNet).layers.size() + simulated(kEmbeddingNet).layers.size() +
            simulated(kRecurrentNet).layers.size() ==
        std::size(kRows));
}

TEST_CASE("MACs and parameters of the sequence ops, worked by hand") {
  // Attention: MACs B h T S (d + dv) = 2 x 2 x 3 x 5 x (4 + 6) = 600, whatever the kernel or mask; no
  // parameters. The (q, q, q) one: 2 x 2 x 3 x 3 x (4 + 4) = 288.
  for (const char* name : {"attention1", "attention2", "attention3", "attention4", "attention5", "attention6",
                           "attention7", "attention8", "attention9", "attention10"}) {
    CAPTURE(name);
    CHECK(layer(kAttentionNet, name).macs == 600);
    CHECK(layer(kAttentionNet, name).params == 0);
  }
  CHECK(layer(kAttentionNet, "attention11").macs == 288);
  CHECK(layer(kAttentionNet, "linear1").macs == 384);
  CHECK(layer(kAttentionNet, "linear1").params == 72);
  // parameter: its shape's elements, no MACs.
  CHECK(layer(kAttentionNet, "parameter1").params == 20);
  CHECK(layer(kAttentionNet, "parameter2").params == 30);
  CHECK(layer(kAttentionNet, "parameter1").macs == 0);
  // embedding: num x dim = 60, no MACs; tied: counted once, at its owner (linear1, 10 x 6 = 60).
  CHECK(layer(kEmbeddingNet, "embedding1").params == 60);
  CHECK(layer(kEmbeddingNet, "embedding1").macs == 0);
  CHECK(layer(kEmbeddingNet, "embedding2").params == 0);
  CHECK(layer(kEmbeddingNet, "linear1").params == 60);
  CHECK(layer(kEmbeddingNet, "linear1").macs == 480);
  // lstm1, G = 4, H = 4, D = 2, T = 3, B = 2. Parameters per layer and direction G H (I + H) + 2 G H
  // (b_ih and b_hh): layer 0 (I = 5) 16 x 9 + 32 = 176, layer 1 (I = D H = 8) 16 x 12 + 32 = 224;
  // 2 x (176 + 224) = 800. MACs B T D G H (I + H): 2 x 3 x 2 x 4 x 4 x (9 + 12) = 4032.
  CHECK(layer(kRecurrentNet, "lstm1").params == 800);
  CHECK(layer(kRecurrentNet, "lstm1").macs == 4032);
  // gru1, G = 3, H = 6, I = 8, one direction and layer: 18 x 14 + 36 = 288 parameters; MACs
  // 2 x 3 x 3 x 6 x 14 = 1512.
  CHECK(layer(kRecurrentNet, "gru1").params == 288);
  CHECK(layer(kRecurrentNet, "gru1").macs == 1512);
  // moe, d = 6, E = 4, k = 2, H = 5, n = 2 x 3 = 6 tokens. Parameters: the router E d = 24 (no bias) and
  // E experts of m d H (m = 3 gated, 2 plain): gated 24 + 4 x 90 = 384, plain 24 + 4 x 60 = 264.
  // MACs n d E + n k m d H: gated 144 + 6 x 2 x 3 x 30 = 1224, plain 144 + 6 x 2 x 2 x 30 = 864.
  CHECK(layer(kRecurrentNet, "moe1").params == 384);
  CHECK(layer(kRecurrentNet, "moe1").macs == 1224);
  CHECK(layer(kRecurrentNet, "moe2").params == 264);
  CHECK(layer(kRecurrentNet, "moe2").macs == 864);
}

TEST_CASE("flash attention's matmul FLOPs are FlashAttention-2's: 4 N^2 d h forward, 2.5 times that backward") {
  // Dao (2023) counts a non-causal forward as 4 seqlen^2 head_dim heads FLOPs per sample and the
  // backward as 2.5 times that; Ridge adds the pointwise per score (6 forward; 6 + 4 backward).
  constexpr double batch = 2, seqlen = 3, head_dim = 4, heads = 2;
  constexpr double fa2_forward = batch * 4 * seqlen * seqlen * head_dim * heads;   // 576
  constexpr double scores = batch * heads * seqlen * seqlen;                       // 36
  const engine::LayerRow& flash = layer(kAttentionNet, "attention11");
  CHECK(flash.fwd.flops == fa2_forward + 6 * scores);
  CHECK(flash.bwd.flops == 2.5 * fa2_forward + (6 + 4) * scores);
}

TEST_CASE("the documented FLOPs and forward kernels of lstm, gru and moe, worked by hand") {
  // (Their whole rows are pinned above; these are the documented formulas spelled out.) lstm1: matmul FLOPs 2 x 4032 = 8064; pointwise 34 per hidden
  // unit per step, layer and direction: 34 x B T D H layers = 34 x 2 x 3 x 2 x 4 x 2 = 3264; forward
  // 11328 in both modes; one kernel per step, layer and direction: 3 x 2 x 2 = 12. Backward 2 x 8064 +
  // 2 x 3264 = 22656.
  const engine::LayerRow& lstm = layer(kRecurrentNet, "lstm1");
  CHECK(lstm.fwd.flops == 11328);
  CHECK(lstm.fwd_train.flops == 11328);
  CHECK(lstm.fwd.kernels == 12);
  CHECK(lstm.bwd.flops == 22656);
  // gru1: matmul 2 x 1512 = 3024; pointwise 23 x 2 x 3 x 6 = 828; forward 3852, 3 kernels (3 steps);
  // backward 2 x 3024 + 2 x 828 = 7704.
  const engine::LayerRow& gru = layer(kRecurrentNet, "gru1");
  CHECK(gru.fwd.flops == 3852);
  CHECK(gru.fwd_train.flops == 3852);
  CHECK(gru.fwd.kernels == 3);
  CHECK(gru.bwd.flops == 7704);
  // moe forward: 2 MACs + per token softmax over E (5 E = 20), per active expert the activation per
  // hidden unit (silu 5 + gate mul 1 = 6 gated, 1 plain) and the weighted combine (2 d = 12):
  //   gated  2448 + 6 x (20 + 2 x 5 x 6 + 2 x 12) = 2448 + 624 = 3072;
  //   plain  1728 + 6 x (20 + 2 x 5 x 1 + 2 x 12) = 1728 + 324 = 2052.
  // (The backward's FLOPs are not documented.)
  CHECK(layer(kRecurrentNet, "moe1").fwd.flops == 3072);
  CHECK(layer(kRecurrentNet, "moe2").fwd.flops == 2052);
}

TEST_CASE("a mixture of experts at decode reads only the experts its tokens were routed to") {
  // One token (batch 1, [1, 6]), 8 experts, top 2, hidden 5, gated (3 matrices of 6 x 5 = 30 each):
  // min(E, n k) = min(8, 2) = 2 experts touched. Forward reads x for the router and its 2 routed copies,
  // 3 x 6 x 4 = 72 B, the router's 6 x 8 = 48 weights and the 2 experts' 2 x 90 = 180: 228 x 4 = 912 B;
  // 984 B in all (reading all 8 experts would be 48 + 720 = 768 weights, 3144 B).
  const engine::Report r = engine::simulate(
      lang::parse_network("network decode_moe {\n  input x: [1, 6]\n  return x -> moe(8, 2, 5)\n}\n", "moe.net"),
      lang::parse_device(testing::kFixedDeviceHw, "fixed.hw"), {.batch = 1, .precision = ir::Precision::FP32});
  CHECK(r.layers.back().fwd.bytes_read == 984);
}
