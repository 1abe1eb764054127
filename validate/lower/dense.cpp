// LibTorch forms of linear, matmul, embeddings, learned tensors, attention and recurrent layers.
#include "validate/lower/lowering.hpp"

#include <cmath>
#include <limits>

namespace ridge::validate::lower {
namespace {

at::Tensor linear(const Run& r) { return at::linear(r.x[0], r.p[0], maybe(r.p, 1)); }
std::vector<at::Tensor> linear_init(const Init& i) {
  const std::int64_t fin = i.in.at(0).back(), out = i.layer.attrs.i("out");
  std::vector<at::Tensor> p{weight({out, fin}, fin, i.options)};
  if (i.layer.attrs.b("bias")) p.push_back(at::zeros({out}, i.options));
  return p;
}

at::Tensor matmul(const Run& r) {
  auto [u, v] = aligned(r.x[0], r.x[1]);
  return at::matmul(u, v);
}

// Ids may arrive as floats (a network whose input is not an id tensor): fold them into the table.
at::Tensor embedding(const Run& r) {
  at::Tensor ids = r.x[0];
  if (!at::isIntegralType(ids.scalar_type(), false))
    ids = ids.abs().mul(r.a().i("num")).floor().remainder(r.a().i("num")).to(at::kLong);
  return at::embedding(r.p[0], ids);
}
std::vector<at::Tensor> embedding_init(const Init& i) {
  return {weight({i.layer.attrs.i("num"), i.layer.attrs.i("dim")}, 1, i.options)};
}

// A tensor that is the same for every sample, as a batch of views of it.
at::Tensor over_batch(const at::Tensor& t, std::int64_t batch) {
  std::vector<std::int64_t> shape{batch};
  const auto s = t.sizes().vec();
  shape.insert(shape.end(), s.begin(), s.end());
  return t.unsqueeze(0).expand(shape);
}

at::Tensor parameter(const Run& r) { return over_batch(r.p[0], r.batch); }
std::vector<at::Tensor> parameter_init(const Init& i) { return {weight(i.layer.attrs.ints("shape"), 1, i.options).mul_(0.02)}; }

// A fixed tensor (not learned): held as a buffer, broadcast over the batch.
at::Tensor buffer(const Run& r) { return over_batch(r.buffers[0], r.batch); }
std::vector<at::Tensor> buffer_init(const Init& i) {
  i.buffers = {at::rand(i.layer.attrs.ints("shape"), i.options).sub_(0.5)};
  return {};
}

// Scaled dot-product attention written out (LibTorch 1.13 has no fused kernel): on the CPU the
// "flash" choice runs the same math; the cost model is what tells the two apart.
at::Tensor attention(const Run& r) {
  const std::int64_t h = r.a().i("heads"), kv = r.a().i("kv_heads");
  const std::int64_t B = r.x[0].size(0), T = r.x[0].size(1);
  const std::int64_t d = r.x[0].size(2) / h, dv = r.x[2].size(2) / kv;
  at::Tensor q = r.x[0].reshape({B, T, h, d}).transpose(1, 2);
  // The KV cache: `past` earlier positions (random here: only their shapes and traffic matter).
  const std::int64_t past = r.a().i("past");
  at::Tensor k = r.x[1], v = r.x[2];
  if (past > 0) {
    k = at::cat({at::randn({B, past, k.size(2)}, k.options()), k}, 1);
    v = at::cat({at::randn({B, past, v.size(2)}, v.options()), v}, 1);
  }
  const std::int64_t S = past + r.x[1].size(1);
  k = k.reshape({B, S, kv, d}).transpose(1, 2);
  v = v.reshape({B, S, kv, dv}).transpose(1, 2);
  if (kv < h) {
    k = k.repeat_interleave(h / kv, 1);
    v = v.repeat_interleave(h / kv, 1);
  }
  at::Tensor s = at::matmul(q, k.transpose(-2, -1)).mul_(1.0 / std::sqrt(static_cast<double>(d)));
  if (r.a().b("causal")) {
    // Query i (of the last T of S positions) sees keys up to S - T + i.
    const auto mask = at::ones({T, S}, at::TensorOptions().dtype(at::kBool).device(s.device())).triu(S - T + 1);
    s = s.masked_fill(mask, -std::numeric_limits<double>::infinity());
  }
  return at::matmul(at::softmax(s, -1), v).transpose(1, 2).reshape({B, T, h * dv});
}

// Mixtral's sparse MoE block: softmax router, top_k experts per token (weights renormalised over the
// chosen ones), each expert w2(silu(w1 x) * w3 x), outputs summed with the routing weights.
at::Tensor moe(const Run& r) {
  const std::int64_t E = r.a().i("experts"), k = r.a().i("top_k");
  const bool gated = r.a().b("gated");
  const std::int64_t d = r.x[0].size(-1);
  const at::Tensor flat = r.x[0].reshape({-1, d});
  const auto [weights, chosen] = at::topk(at::softmax(at::linear(flat, r.p[0]), -1), k, -1);
  const at::Tensor routing = weights / weights.sum(-1, true);
  at::Tensor out = at::zeros_like(flat);
  const std::size_t per = gated ? 3 : 2;
  for (std::int64_t e = 0; e < E; ++e) {
    const at::Tensor hits = (chosen == e).nonzero();   // [n, 2]: token, slot
    if (hits.size(0) == 0) continue;
    const at::Tensor tokens = hits.select(1, 0);
    const at::Tensor xe = flat.index_select(0, tokens);
    const auto& w = r.p;
    const std::size_t base = 1 + static_cast<std::size_t>(e) * per;
    at::Tensor h = at::linear(xe, w[base]);
    h = gated ? at::silu(h) * at::linear(xe, w[base + 2]) : at::silu(h);
    const at::Tensor ye = at::linear(h, w[base + 1]) * routing.index({tokens, hits.select(1, 1)}).unsqueeze(-1);
    out = out.index_add(0, tokens, ye);
  }
  return out.reshape(r.x[0].sizes());
}
std::vector<at::Tensor> moe_init(const Init& i) {
  const ir::Attrs& a = i.layer.attrs;
  const std::int64_t d = i.in.at(0).back(), H = a.i("hidden");
  std::vector<at::Tensor> p{weight({a.i("experts"), d}, d, i.options)};
  for (std::int64_t e = 0; e < a.i("experts"); ++e) {
    p.push_back(weight({H, d}, d, i.options));   // w1
    p.push_back(weight({d, H}, H, i.options));   // w2
    if (a.b("gated")) p.push_back(weight({H, d}, d, i.options));   // w3
  }
  return p;
}

// torch's flat weight order: per layer, per direction: w_ih, w_hh, b_ih, b_hh.
std::vector<at::Tensor> recurrent_init(const Init& i, std::int64_t gates) {
  const ir::Attrs& a = i.layer.attrs;
  const std::int64_t H = a.i("hidden"), D = a.b("bidirectional") ? 2 : 1;
  std::vector<at::Tensor> p;
  for (std::int64_t l = 0; l < a.i("layers"); ++l)
    for (std::int64_t dir = 0; dir < D; ++dir) {
      const std::int64_t input = l == 0 ? i.in.at(0).at(1) : D * H;
      p.push_back(weight({gates * H, input}, H, i.options));
      p.push_back(weight({gates * H, H}, H, i.options));
      if (a.b("bias")) {
        p.push_back(at::zeros({gates * H}, i.options));
        p.push_back(at::zeros({gates * H}, i.options));
      }
    }
  return p;
}
std::vector<at::Tensor> lstm_init(const Init& i) { return recurrent_init(i, 4); }
std::vector<at::Tensor> gru_init(const Init& i) { return recurrent_init(i, 3); }

at::Tensor zero_state(const Run& r) {
  const std::int64_t D = r.a().b("bidirectional") ? 2 : 1;
  return at::zeros({r.a().i("layers") * D, r.x[0].size(0), r.a().i("hidden")}, r.x[0].options());
}
at::Tensor lstm(const Run& r) {
  const at::Tensor h0 = zero_state(r);
  return std::get<0>(at::lstm(r.x[0], {h0, h0}, r.p, r.a().b("bias"), r.a().i("layers"), 0.0, r.training,
                              r.a().b("bidirectional"), true));
}
at::Tensor gru(const Run& r) {
  return std::get<0>(at::gru(r.x[0], zero_state(r), r.p, r.a().b("bias"), r.a().i("layers"), 0.0, r.training,
                             r.a().b("bidirectional"), true));
}

}  // namespace

std::vector<Row> dense_rows() {
  return {{"linear", linear, linear_init},
          {"matmul", matmul},
          {"embedding", embedding, embedding_init},
          {"parameter", parameter, parameter_init},
          {"buffer", buffer, buffer_init},
          {"attention", attention},
          {"moe", moe, moe_init},
          {"lstm", lstm, lstm_init},
          {"gru", gru, gru_init}};
}

}  // namespace ridge::validate::lower
