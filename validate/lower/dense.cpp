// LibTorch forms of linear, matmul, embeddings, learned tensors, attention and recurrent layers.
#include "lower/lowering.hpp"

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

at::Tensor parameter(const Run& r) {
  std::vector<std::int64_t> shape{r.batch};
  const auto s = r.p[0].sizes().vec();
  shape.insert(shape.end(), s.begin(), s.end());
  return r.p[0].unsqueeze(0).expand(shape);
}
std::vector<at::Tensor> parameter_init(const Init& i) { return {weight(i.layer.attrs.ints("shape"), 1, i.options).mul_(0.02)}; }

// Scaled dot-product attention written out (LibTorch 1.13 has no fused kernel): on the CPU the
// "flash" choice runs the same math; the cost model is what tells the two apart.
at::Tensor attention(const Run& r) {
  const std::int64_t h = r.a().i("heads"), kv = r.a().i("kv_heads");
  const std::int64_t B = r.x[0].size(0), T = r.x[0].size(1), S = r.x[1].size(1);
  const std::int64_t d = r.x[0].size(2) / h, dv = r.x[2].size(2) / kv;
  at::Tensor q = r.x[0].reshape({B, T, h, d}).transpose(1, 2);
  at::Tensor k = r.x[1].reshape({B, S, kv, d}).transpose(1, 2);
  at::Tensor v = r.x[2].reshape({B, S, kv, dv}).transpose(1, 2);
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
          {"attention", attention},
          {"lstm", lstm, lstm_init},
          {"gru", gru, gru_init}};
}

}  // namespace ridge::validate::lower
