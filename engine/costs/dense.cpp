// Costs of linear, matmul, embeddings, learned tensors, attention and recurrent layers.
//
// linear        as conv: MACs = outputs * in_features; a tied layer reads and updates its owner's weights
// matmul        MACs = outputs * K; backward 2*MACs per operand that needs a gradient (broadcast
//               reductions not counted)
// embedding     a row gather: reads the ids and `dim` weights per id, writes the rows; no FLOPs.
//               Backward: a dense weight gradient (torch's default sparse=False): zero-fill the table,
//               then index_add the rows (1 add per element). Ids are counted at the precision's width,
//               as every tensor of the IR is.
// parameter     a view of the weights, broadcast over the batch; backward reduces the batch's
//               gradient into the weight gradient (1 add per element)
// buffer        a view of a fixed tensor: no kernel, no gradient
// attention     B batch, h heads, T queries, S keys, d key width, dv value width:
//               MACs = B h T S (d + dv) (Q K^T and P V, counted in full with a causal mask too, as
//               torchvision's GFLOPS and Kaplan et al. count them); 2 FLOPs per score for scale and
//               mask (1 when not causal) and 5 for softmax. "materialized" writes the scores and the
//               probabilities (4 B h T S reads/writes, 3 kernels: Q K^T, softmax, P V); "flash" never
//               does (1 kernel, saves the row log-sum-exp). Backward: materialized 2x the forward
//               matmuls + 4 per score for the softmax gradient in 5 kernels, reading score-sized
//               tensors 5 times (P twice, dP, dS twice) and writing 2 (dP, dS); flash recomputes the scores: 2.5x the forward matmuls (Dao,
//               FlashAttention-2, 2023) + the forward's pointwise again (6, 7 causal) + 4 per score for
//               the softmax gradient, and no score traffic. "eager": Hugging Face's
//               eager attention, one kernel per step (eager_attention() below). "sdpa": what PyTorch
//               2.x's scaled_dot_product_attention runs (sdpa_kernel() below): "flash2" or "materialized".
// moe           see moe() below: MACs for the router and the top_k active experts only
// lstm, gru     G gates (4, 3), H hidden, T steps, D directions, per layer l with input I_l:
//               MACs = B T D G H (I_l + H); cell pointwise per hidden unit per step: LSTM 34 (3 sigmoid
//               x4, 2 tanh x5, 4 mul/add, 8 bias adds), GRU 23 (2 sigmoid x4, tanh 5, 4 mul/add, 6 bias
//               adds). One kernel per step, layer and direction (the recurrence is sequential). The
//               training forward also writes the gate activations it keeps for backward; inference does not.
//               Backward: 2x the matmul FLOPs (input and weight gradients) + 2x the pointwise.
#include "engine/costs/rows.hpp"

#include <algorithm>
#include <string_view>

namespace ridge::engine::costs {
namespace {


void linear(const Ctx& c, OpCost& r) {
  const double k = static_cast<double>(c.in_shapes.at(0).back());
  const double n = static_cast<double>(c.layer.output.back());
  weighted(c, r, c.out() * k);
  weighted_gemms(c, r, gemm_with_rows({c.out() / n, n, k, 1}, c.element_w, {n, k}));
}

void matmul(const Ctx& c, OpCost& r) {
  r.macs = c.out() * static_cast<double>(c.in_shapes.at(0).back());   // K per output element
  const double f = 2.0 * r.macs;
  r.forward = pass(f, (c.in(0) + c.in(1)) * c.w, c.out() * c.w);
  // grad_a = g . b^T needs b; grad_b = a^T . g needs a.
  const double n = c.needf(0) + c.needf(1);
  r.backward = pass(n * f, (n * c.out() + c.needf(0) * c.in(1) + c.needf(1) * c.in(0)) * c.w,
                    (c.needf(0) * c.in(0) + c.needf(1) * c.in(1)) * c.w, static_cast<int>(n));
  // [.., M, K] x [.., K, N]: the leading axes (and the batch) are independent problems.
  const ir::Shape& out = c.layer.output;
  const double N = static_cast<double>(out.back());
  const double M = out.size() >= 2 ? static_cast<double>(out[out.size() - 2]) : 1.0;
  const double K = static_cast<double>(c.in_shapes.at(0).back());
  const double count = c.out() / (M * N);
  r.gemm_forward.add(gemm_with_rows({M, N, K, count}, c.element_w, {N, K}));
  if (c.need(0)) r.gemm_backward.add(gemm_with_rows({M, K, N, count}, c.element_w, {N, K}));   // grad_a = g . b^T
  if (c.need(1)) r.gemm_backward.add(gemm_with_rows({K, N, M, count}, c.element_w, {N, K}));   // grad_b = a^T . g
}

void embedding(const Ctx& c, OpCost& r) {
  r.forward = pass(0, (c.in() + c.out()) * c.w, c.out() * c.w);
  r.backward = pass(c.out(), (c.out() + c.in()) * c.w, c.params * c.w, 2);
}

void parameter(const Ctx& c, OpCost& r) { r.backward = pass(c.out(), c.out() * c.w, c.params * c.w); }
void buffer(const Ctx&, OpCost&) {}

// A materialised attention's products per (sample, head): forward S = Q K^T and O = P V; backward
// dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q. Their rows are S, d and dv wide (T never is).
void attention_products(const Ctx& c, OpCost& r, double T, double S, double d, double dv, double bh) {
  const auto product = [&](double m, double n, double k) { return gemm_with_rows({m, n, k, bh}, c.element_w, {S, d, dv}); };
  r.gemm_forward.add(product(T, S, d));
  r.gemm_forward.add(product(T, dv, S));
  r.gemm_backward.add(product(T, S, dv));
  r.gemm_backward.add(product(S, dv, T));
  r.gemm_backward.add(product(T, d, S));
  r.gemm_backward.add(product(S, d, T));
}

struct AttentionDims {
  double h, T, S, d, dv, scores, mm, io, grads, cache;
};

// Attention as Hugging Face transformers' eager path runs it (BertSelfAttention, GPT2Attention): every
// step over the B h T S scores is a kernel of its own that reads and writes them whole.
//   forward   Q K^T (writes S) | S / sqrt(d) | the mask: + padding mask, or where(causal, S, -inf) |
//             softmax | dropout (training, p > 0: also writes a 1-byte mask) | P V (reads P)
//   backward  dP = dO V^T (writes dP) | dV = P'^T dO (reads P') | dropout's (reads dP and the mask) |
//             softmax's (reads dP and P, writes dS) | the causal where's (an additive mask has none) |
//             the scale's | dQ = dS K, dK = dS^T Q (each reads dS)
// Per score: 1 FLOP for the scale, the mask and dropout each, 5 for softmax (4 backward).
void eager_attention(const Ctx& c, OpCost& r, const AttentionDims& a) {
  const bool causal = c.a().b("causal"), mask = causal || c.a().b("masked");
  const bool drop = c.a().r("dropout") > 0.0;
  const double m = mask ? 1.0 : 0.0, p = drop ? 1.0 : 0.0, wh = causal ? 1.0 : 0.0;
  const double sc = a.scores * c.w;                            // one pass over the scores
  // The mask's own bytes: causal's bool [T, S] buffer, or a padding mask of S per sample.
  const double mask_bytes = causal ? a.T * a.S : (mask ? c.batch * a.S * c.w : 0.0);
  const double bh = c.batch * a.h;
  attention_products(c, r, a.T, a.S, a.d, a.dv, bh);
  const double qkv = (c.in(0) + c.in(1) + c.in(2)) * c.w + a.cache;
  // Inference: reads S for the scale, mask and softmax, P for P V; writes S, S, S, P.
  r.forward = pass(a.mm + (6.0 + m) * a.scores, qkv + (3.0 + m) * sc + mask_bytes, c.out() * c.w + (3.0 + m) * sc,
                   4 + static_cast<int>(m));
  // Training adds dropout: reads P, writes P' and its mask.
  r.forward_train = pass(r.forward.flops + p * a.scores, r.forward.bytes_read + p * sc,
                         r.forward.bytes_written + p * (sc + a.scores), r.forward.kernels + static_cast<int>(p));
  // Reads (beside q, k, v and dO): P' for dV; dP and the mask for dropout; dP' and P for softmax; dS
  // for the causal where, for the scale, and for each of dQ and dK. Writes: dP, dP', dS, (dS), dS.
  const double reads = 1.0 + p + 2.0 + wh + 1.0 + 2.0;
  const double writes = 1.0 + p + 1.0 + wh + 1.0;
  r.backward = pass(2.0 * a.mm + (p + 4.0 + wh + 1.0) * a.scores, a.io + reads * sc + p * a.scores,
                    a.grads + writes * sc, 4 + static_cast<int>(p) + 2 + static_cast<int>(wh));
  r.saved_bytes = sc + p * (sc + a.scores);   // the probabilities; with dropout, the dropped ones and the mask
}

// kernel: "sdpa", torch.nn.functional.scaled_dot_product_attention as PyTorch 2.x dispatches it
// (nn.MultiheadAttention calls it when need_weights=False: torchvision's ViT; Hugging Face's
// attn_implementation="sdpa"). Its flash backend, FlashAttention-2, takes 16-bit inputs with head
// widths up to 256 (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp: check_dtype, check_head_dim_size);
// otherwise (fp32 and tf32 here) the choice falls to the memory-efficient kernel or the math path, of
// which Ridge models the math path, which materializes the scores. The GPU's generation, which the
// dispatch also checks (flash needs sm80 or later; before it the memory-efficient kernel, which does
// not write the scores either), is not seen here: the costs are the device's to time.
std::string_view sdpa_kernel(const Ctx& c, double d, double dv) {
  return c.w == 2.0 && d <= 256.0 && dv <= 256.0 ? "flash2" : "materialized";
}

void attention(const Ctx& c, OpCost& r) {
  const double h = static_cast<double>(c.a().i("heads"));
  const double T = static_cast<double>(c.in_shapes.at(0).at(0));
  const double past = static_cast<double>(c.a().i("past"));
  const double S = static_cast<double>(c.in_shapes.at(1).at(0)) + past;
  const double d = static_cast<double>(c.in_shapes.at(0).at(1)) / h;
  // The KV cache: `past` rows of k and v per sample, read besides the new ones.
  const double cache = c.batch * past * static_cast<double>(c.in_shapes.at(1).at(1) + c.in_shapes.at(2).at(1)) * c.kv_w;
  const double dv = static_cast<double>(c.layer.output.at(1)) / h;
  const double scores = c.batch * h * T * S;
  r.macs = scores * (d + dv);
  const double mm = 2.0 * r.macs;
  const double pointwise = (c.a().b("causal") ? 7.0 : 6.0) * scores;
  const double io = (c.in(0) + c.in(1) + c.in(2) + c.out()) * c.w + cache;   // q, k, v (and cache) read; output written
  const double grads = (c.in(0) + c.in(1) + c.in(2)) * c.w;
  const std::string_view kernel = c.a().s("kernel") == "sdpa" ? sdpa_kernel(c, d, dv) : std::string_view(c.a().s("kernel"));
  if (kernel == "flash" || kernel == "flash2") {
    const double lse = c.batch * h * T;
    r.forward = pass(mm + pointwise, (c.in(0) + c.in(1) + c.in(2)) * c.w + cache, (c.out() + lse) * c.w, 1);
    r.backward = pass(2.5 * mm + (pointwise + 4.0 * scores), io + (c.out() + lse) * c.w, grads, 1);
    r.saved_bytes = lse * c.w;
    r.flash = kernels::Attention{c.batch * h, T, S, past, d, dv, c.a().b("causal"), kernel == "flash2"};
  } else if (kernel == "eager") {
    eager_attention(c, r, {h, T, S, d, dv, scores, mm, io, grads, cache});
  } else {
    // Q K^T and P V per (sample, head); backward dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q.
    attention_products(c, r, T, S, d, dv, c.batch * h);
    r.forward = pass(mm + pointwise, (c.in(0) + c.in(1) + c.in(2)) * c.w + cache + 2.0 * scores * c.w,
                     c.out() * c.w + 2.0 * scores * c.w, 3);
    // Score-sized traffic, kernel by kernel: dP = dO V^T writes dP; dV = P^T dO reads P; the softmax
    // gradient reads P and dP, writes dS; dQ = dS K and dK = dS^T Q read dS each: 5 reads, 2 writes.
    r.backward = pass(2.0 * mm + 4.0 * scores, io + 5.0 * scores * c.w, grads + 2.0 * scores * c.w, 5);
    r.saved_bytes = scores * c.w;   // the probabilities
  }
}

// n tokens of width d, E experts of hidden width H, k active per token, m = 3 matrices per expert
// (gated) or 2. MACs: router n d E + active experts n k m d H. Pointwise per token: softmax over E
// (5 E), per active expert the activation (silu 5 + gate mul 1, or 1 for a plain relu/gelu-like
// slot) per hidden unit, and the weighted combine (2 d per active expert). Weights read: the router
// and every expert some token was routed to (min(E, n k) of them; a batch of tokens touches them all).
// Activations: the forward reads x for the router and once for each of its k routed copies, writes y
// and the n k H hidden activations (kept for backward); the backward reads dy, x, the hidden
// activations and their gradient (2 n k H), writes dx where needed and the touched weights' gradients,
// at 2x the matmul FLOPs (input and weight gradients) and 2x the pointwise. Kernels: the router and the
// combine, and one per touched expert matrix; backward twice as many.
void moe(const Ctx& c, OpCost& r) {
  const ir::Attrs& a = c.a();
  const double d = static_cast<double>(c.in_shapes.at(0).back());
  const double n = c.in() / d;
  const double E = static_cast<double>(a.i("experts")), k = static_cast<double>(a.i("top_k"));
  const double H = static_cast<double>(a.i("hidden")), m = a.b("gated") ? 3.0 : 2.0;
  r.macs = n * d * E + n * k * m * d * H;
  const double pointwise = n * (5.0 * E + k * H * (a.b("gated") ? 6.0 : 1.0) + 2.0 * k * d);
  const double touched = std::min(E, n * k);
  const double weights = (d * E + touched * m * d * H) * c.ww;
  const int kernels = 2 + static_cast<int>(touched) * static_cast<int>(m);
  r.forward = pass(2.0 * r.macs + pointwise, c.in() * (1.0 + k) * c.w + weights, (c.out() + n * k * H) * c.w, kernels);
  r.backward = pass(4.0 * r.macs + 2.0 * pointwise, (c.out() + c.in() + 2.0 * n * k * H) * c.w + weights,
                    (c.needf() * c.in()) * c.w + weights, 2 * kernels);
  r.saved_bytes = n * k * (H + d) * c.w;   // expert activations and routed inputs
}

void recurrent(const Ctx& c, OpCost& r, double gates, double cell) {
  const ir::Attrs& a = c.a();
  const double T = static_cast<double>(c.in_shapes.at(0).at(0));
  const double H = static_cast<double>(a.i("hidden")), D = a.b("bidirectional") ? 2 : 1;
  const double layers = static_cast<double>(a.i("layers"));
  double macs = 0;
  for (std::int64_t l = 0; l < a.i("layers"); ++l) {
    const double input = l == 0 ? static_cast<double>(c.in_shapes.at(0).at(1)) : D * H;
    macs += c.batch * T * D * gates * H * (input + H);
  }
  r.macs = macs;
  const double point = cell * c.batch * T * D * H * layers;
  const double states = gates * c.batch * T * D * H * layers;   // gate activations kept for backward
  const int steps = static_cast<int>(std::min(T * D * layers, 1e9));
  // Inference writes the output alone; training also keeps every step's gate activations for backward.
  r.forward = pass(2.0 * macs + point, (c.in() + c.params) * c.w, c.out() * c.w, steps);
  r.forward_train = pass(2.0 * macs + point, (c.in() + c.params) * c.w, (c.out() + states) * c.w, steps);
  r.backward = pass(4.0 * macs + 2.0 * point, (c.out() + c.in() + states + c.params) * c.w,
                    (c.needf() * c.in() + c.params) * c.w, 2 * steps);
  r.saved_bytes = states * c.w;
}
void lstm(const Ctx& c, OpCost& r) { recurrent(c, r, 4, 34); }
void gru(const Ctx& c, OpCost& r) { recurrent(c, r, 3, 23); }

}  // namespace

std::vector<CostRow> dense_costs() {
  return {{"linear", linear, kSavesInput},       {"matmul", matmul, kSavesInputs}, {"embedding", embedding, kSavesInput}, {"parameter", parameter, kSavesNothing},
          {"buffer", buffer, kSavesNothing},
          {"attention", attention, Saves{~0u, true}}, {"moe", moe, kSavesInput},       {"lstm", lstm, kSavesInput},
          {"gru", gru, kSavesInput}};
}

}  // namespace ridge::engine::costs
