// Ops with weight matrices: linear, matmul, embeddings, learned tensors, attention and recurrent layers.
#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rows.hpp"

namespace ridge::ir::families {
namespace {

using namespace rows;

Shape linear(const Attrs& a, const In& in) {
  if (a.i("out") < 1) fail("linear needs at least one output feature");
  Shape out = in[0];
  out.back() = a.i("out");
  return out;
}
std::int64_t linear_weights(const Attrs& a, const In& in) {
  return checked_mul(a.i("out"), in[0].back(), "the weight count") + (a.b("bias") ? a.i("out") : 0);
}

Shape matmul(const Attrs&, const In& in) {
  const Shape& x = in[0];
  const Shape& y = in[1];
  if (x.size() < 2 || y.size() < 2) fail("matmul expects inputs of at least 2 dimensions per sample");
  if (x.back() != y[y.size() - 2]) fail("matmul inner dimensions differ: " + to_string(x) + " x " + to_string(y));
  Shape lead = broadcast(Shape(x.begin(), x.end() - 2), Shape(y.begin(), y.end() - 2));
  lead.push_back(x[x.size() - 2]);
  lead.push_back(y.back());
  return lead;
}

Shape embedding(const Attrs& a, const In& in) {
  if (a.i("num") < 1 || a.i("dim") < 1) fail("embedding needs a positive table size and dimension");
  Shape out = in[0];
  out.push_back(a.i("dim"));
  return out;
}
std::int64_t embedding_weights(const Attrs& a, const In&) { return checked_mul(a.i("num"), a.i("dim"), "the table"); }

// A tensor with no input, learned (`parameter`) or fixed (`buffer`): its `shape`, checked.
Shape given_shape(const Attrs& a, std::string_view op) {
  if (a.ints("shape").empty()) fail(std::string(op) + " needs a shape");
  for (auto d : a.ints("shape"))
    if (d < 1) fail(std::string(op) + " dimensions must be positive");
  return a.ints("shape");
}
Shape parameter(const Attrs& a, const In&) { return given_shape(a, "parameter"); }
std::int64_t parameter_weights(const Attrs& a, const In&) { return product(a.ints("shape")); }
Shape buffer(const Attrs& a, const In&) { return given_shape(a, "buffer"); }

// q [T, heads * d], k [S, kv_heads * d], v [S, kv_heads * dv] -> [T, heads * dv].
Shape attention(const Attrs& a, const In& in) {
  for (const auto& s : in) require_rank(s, 2, "attention");
  const std::int64_t h = a.i("heads"), kv = a.i("kv_heads");
  if (h < 1 || kv < 1) fail("attention needs at least one head");
  if (h % kv != 0) fail("heads (" + str(h) + ") must be a multiple of kv_heads (" + str(kv) + ")");
  const Shape &q = in[0], &k = in[1], &v = in[2];
  if (q[1] % h != 0) fail("the query width " + str(q[1]) + " does not split into " + str(h) + " heads");
  if (k[1] % kv != 0 || v[1] % kv != 0) fail("key/value widths do not split into " + str(kv) + " heads");
  if (k[1] / kv != q[1] / h) fail("keys' head width (" + str(k[1] / kv) + ") differs from the queries' (" + str(q[1] / h) + ")");
  if (k[0] != v[0]) fail("keys and values differ in length: " + to_string(k) + " and " + to_string(v));
  if (a.i("past") < 0 || a.i("past") > kMaxDimension) fail("attention's past (cached tokens) must be in [0, 2^31]");
  if (!(a.r("dropout") >= 0.0 && a.r("dropout") < 1.0)) fail("attention's dropout must be in [0, 1)");
  return {q[0], h * (v[1] / kv)};
}

// A mixture-of-experts MLP (Mixtral's sparse MoE block): a router picks top_k of `experts` expert MLPs
// per token; the output has the input's shape.
Shape moe(const Attrs& a, const In& in) {
  if (in[0].empty()) fail("moe needs a feature axis");
  if (a.i("experts") < 1 || a.i("hidden") < 1) fail("moe needs at least one expert and a positive hidden size");
  if (a.i("top_k") < 1 || a.i("top_k") > a.i("experts"))
    fail("moe's top_k (" + str(a.i("top_k")) + ") must be between 1 and experts (" + str(a.i("experts")) + ")");
  return in[0];
}
// Router [experts, d] without bias; each expert w1, w3 [hidden, d] and w2 [d, hidden] when gated
// (SwiGLU), w1 and w2 otherwise; no biases (Mixtral's).
std::int64_t moe_weights(const Attrs& a, const In& in) {
  const std::int64_t d = in[0].back();
  const std::int64_t per_expert = checked_mul((a.b("gated") ? 3 : 2) * d, a.i("hidden"), "an expert's weights");
  return checked_mul(a.i("experts"), per_expert + d, "the experts' weights");
}

// nn.LSTM / nn.GRU: x [T, input] -> [T, directions * hidden].
Shape recurrent(const Attrs& a, const In& in) {
  require_rank(in[0], 2, "a recurrent layer");
  if (a.i("hidden") < 1 || a.i("layers") < 1) fail("a recurrent layer needs a positive hidden size and layer count");
  if (a.i("layers") > 1024) fail("more than 1024 stacked recurrent layers");
  return {in[0][0], (a.b("bidirectional") ? 2 : 1) * a.i("hidden")};
}
// Per layer and direction: gates * hidden * (input + hidden) weights, plus two bias vectors
// (torch keeps b_ih and b_hh) of gates * hidden.
std::int64_t recurrent_weights(const Attrs& a, const In& in, std::int64_t gates) {
  const std::int64_t H = a.i("hidden"), D = a.b("bidirectional") ? 2 : 1;
  std::int64_t total = 0;
  for (std::int64_t l = 0; l < a.i("layers"); ++l) {
    const std::int64_t input = l == 0 ? in[0][1] : D * H;
    const std::int64_t per = checked_mul(gates * H, input + H, "the weight count") + (a.b("bias") ? 2 * gates * H : 0);
    total += D * per;
  }
  return total;
}
std::int64_t lstm_weights(const Attrs& a, const In& in) { return recurrent_weights(a, in, 4); }
std::int64_t gru_weights(const Attrs& a, const In& in) { return recurrent_weights(a, in, 3); }

std::vector<ParamSpec> recurrent_params() {
  return {tensor("x"), {"hidden", K::Int}, {"layers", K::Int, I(1)}, {"bidirectional", K::Bool, B(false)}, {"bias", K::Bool, B(true)}};
}

}  // namespace

std::vector<OpSpec> dense_ops() {
  using C = OpClass;
  return {
      {"linear", {tensor("x"), {"out", K::Int}, {"bias", K::Bool, B(true)}, {"tied", K::Weights}}, C::MatMul, linear,
       linear_weights, false, "over the last axis; tied: t reuses the weights of the layer that made t"},
      {"matmul", {tensor("a"), tensor("b")}, C::MatMul, matmul, nullptr, false, "[..., M, K] x [..., K, N], batch axes broadcast"},
      {"embedding", {tensor("x"), {"num", K::Int}, {"dim", K::Int}, {"tied", K::Weights}}, C::DataMovement, embedding,
       embedding_weights, false, "a table lookup: ids [...] -> [..., dim]"},
      {"parameter", {{"shape", K::Ints}}, C::DataMovement, parameter, parameter_weights, true,
       "a learned tensor, the same for every sample (a class token, position embeddings)"},
      {"buffer", {{"shape", K::Ints}}, C::DataMovement, buffer, nullptr, true,
       "a fixed tensor, the same for every sample and not learned (a module's registered buffer: Swin V2's "
       "relative coordinates table)"},
      {"attention",
       {tensor("q"), tensor("k"), tensor("v"), {"heads", K::Int}, {"kv_heads", K::Int, std::nullopt, "heads"},
        {"causal", K::Bool, B(false)}, {"kernel", K::Word, W("materialized"), {}, {"materialized", "flash", "flash2", "eager", "sdpa"}},
        {"past", K::Int, I(0)}, {"masked", K::Bool, B(false)}, {"dropout", K::Real, R(0.0)}},
       C::MatMul, attention, nullptr, false,
       "scaled dot-product attention over heads (grouped KV heads, causal mask); kernel: \"flash\" never writes the "
       "scores (the library's fused kernel), \"flash2\" likewise as FlashAttention-2 runs it, \"eager\" runs the scale, mask, softmax and dropout as kernels of their own (Hugging Face's eager "
       "attention), \"sdpa\" as PyTorch 2.x's scaled_dot_product_attention picks (flash2 at 16 bits, else materialized); masked: an additive padding mask; dropout: on the probabilities in training; past: tokens "
       "already in the KV cache, attended besides k and v"},
      {"moe", {tensor("x"), {"experts", K::Int}, {"top_k", K::Int}, {"hidden", K::Int}, {"gated", K::Bool, B(true)}},
       C::MatMul, moe, moe_weights, false,
       "mixture of experts: a router sends each token to top_k of `experts` MLPs (SwiGLU when gated)"},
      {"lstm", recurrent_params(), C::MatMul, recurrent, lstm_weights, false, "nn.LSTM over a sequence [T, input]"},
      {"gru", recurrent_params(), C::MatMul, recurrent, gru_weights, false, "nn.GRU over a sequence [T, input]"},
  };
}

}  // namespace ridge::ir::families
