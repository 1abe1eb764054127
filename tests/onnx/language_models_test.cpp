// BERT-base and GPT-2 small exported from PyTorch (tests/onnx/make_fixtures.py builds them from the
// bert-base-uncased and gpt2 configurations) simulate with the zoo's counts.
//
// Published parameter counts: BertModel.from_pretrained("bert-base-uncased"), pooler included,
// 109,482,240; GPT2LMHeadModel.from_pretrained("gpt2"), the tied head counted once, 124,439,808 (as
// models/bert_base.net and models/gpt2.net cite them). MACs: the zoo files count attention with one
// `attention` layer, and the import fuses the export's chain (MatMul, scale, mask, Softmax, MatMul) into
// one: the multiply-adds are the same.
#include "tests/onnx/onnx_test_util.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using namespace ridge::onnx_test;

namespace {

std::int64_t count_op(const ir::Network& net, std::string_view op) {
  std::int64_t n = 0;
  for (const auto& l : net.layers) n += ir::op_name(l.op) == op;
  return n;
}

// The work of every layer but the attentions, and of the attentions alone.
struct Split {
  PassTotals rest, attention;
  double attention_gemm_flops = 0, scores = 0, padding_mask_elements = 0;
};
Split split_totals(const ir::Network& net, std::int64_t batch, ir::Precision precision) {
  const auto grads = engine::grad_flags(net);
  Split s;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& layer = net.layers[i];
    const auto c = engine::op_cost(net, layer, batch, precision, grads[i]);
    const bool attention = ir::op_name(layer.op) == "attention";
    PassTotals& t = attention ? s.attention : s.rest;
    t.forward_flops += c.forward.flops;
    t.forward_bytes += c.forward.bytes();
    t.backward_flops += c.backward.flops;
    t.backward_bytes += c.backward.bytes();
    if (!attention) continue;
    s.attention_gemm_flops += c.gemm_forward.flops() + c.gemm_backward.flops();
    const double tokens = static_cast<double>(layer.output.at(0));
    s.scores += static_cast<double>(batch) * static_cast<double>(layer.attrs.i("heads")) * tokens * tokens;
    if (layer.attrs.b("masked")) s.padding_mask_elements += static_cast<double>(batch) * tokens;
  }
  return s;
}

void check_same_work(const ir::Network& a, const ir::Network& b) {
  for (const auto precision : {ir::Precision::FP32, ir::Precision::BF16}) {
    const PassTotals x = pass_totals(a, 8, precision), y = pass_totals(b, 8, precision);
    CHECK(x.forward_flops == Approx(y.forward_flops).epsilon(1e-12));
    CHECK(x.forward_bytes == Approx(y.forward_bytes).epsilon(1e-12));
    CHECK(x.backward_flops == Approx(y.backward_flops).epsilon(1e-12));
    CHECK(x.backward_bytes == Approx(y.backward_bytes).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("BERT-base exported from PyTorch has bert_base.net's parameters and MACs") {
  const auto seq = GENERATE(as<std::int64_t>{}, 128, 512);
  CAPTURE(seq);
  lang::OnnxOptions o;
  o.dims["sequence"] = seq;
  const ir::Network onnx = lang::load_onnx(fixture("bert_base"), o).network;
  const ir::Network net = lang::load_network(zoo("bert_base"), {{"seq_len", std::to_string(seq)}});
  CHECK(onnx.input().output == ir::Shape{seq});
  CHECK(onnx.layers.at(onnx.output).output == ir::Shape{768});
  CHECK(total_parameters(onnx) == 109'482'240);
  CHECK(total_parameters(onnx) == total_parameters(net));
  CHECK(engine_macs(onnx) == engine_macs(net));
  // The same work but for the attentions: the import fuses the exported chain into one materialised
  // attention; bert_base.net runs BertSelfAttention's eager path (the scale, the padding mask and
  // softmax as kernels of their own, dropout on the probabilities in training).
  for (const auto precision : {ir::Precision::FP32, ir::Precision::BF16}) {
    CAPTURE(ir::precision_name(precision));
    const Split x = split_totals(onnx, 8, precision), y = split_totals(net, 8, precision);
    CHECK(x.rest.forward_flops == Approx(y.rest.forward_flops).epsilon(1e-12));
    CHECK(x.rest.forward_bytes == Approx(y.rest.forward_bytes).epsilon(1e-12));
    CHECK(x.rest.backward_flops == Approx(y.rest.backward_flops).epsilon(1e-12));
    CHECK(x.rest.backward_bytes == Approx(y.rest.backward_bytes).epsilon(1e-12));
    CHECK(x.attention_gemm_flops == y.attention_gemm_flops);
    // At inference the eager path adds 1 FLOP a score (the mask), two more passes over the scores for
    // each of the scale and the mask kernels (4 in all), and the padding mask's read.
    const double w = ir::bytes_per_element(precision);
    CHECK(y.attention.forward_flops - x.attention.forward_flops == Approx(y.scores).epsilon(1e-12));
    CHECK(y.attention.forward_bytes - x.attention.forward_bytes ==
          Approx(4 * y.scores * w + y.padding_mask_elements * w).epsilon(1e-12));
  }
  // 12 layers x (q, k, v, output, intermediate, output) + pooler; erf GELUs and attentions recognised.
  CHECK(count_op(onnx, "linear") == 12 * 6 + 1);
  CHECK(count_op(onnx, "gelu") == 12);
  CHECK(count_op(onnx, "attention") == 12);
  CHECK(count_op(onnx, "layernorm") == 25);
}

TEST_CASE("GPT-2 small exported from PyTorch has gpt2.net's parameters and MACs") {
  const auto seq = GENERATE(as<std::int64_t>{}, 64, 1024);
  CAPTURE(seq);
  lang::OnnxOptions o;
  o.dims["seq_len"] = seq;   // binds the export's "sequence" axis
  const ir::Network onnx = lang::load_onnx(fixture("gpt2"), o).network;
  const ir::Network net = lang::load_network(zoo("gpt2"), {{"seq_len", std::to_string(seq)}});
  CHECK(onnx.layers.at(onnx.output).output == ir::Shape{seq, 50257});
  CHECK(total_parameters(onnx) == 124'439'808);   // the LM head tied to wte, counted once
  CHECK(total_parameters(onnx) == total_parameters(net));
  CHECK(engine_macs(onnx) == engine_macs(net));
  check_same_work(onnx, net);
  CHECK(count_op(onnx, "gelu") == 12);            // tanh GELUs recognised
  CHECK(count_op(onnx, "attention") == 12);
}

TEST_CASE("an unbound symbolic axis names the option that binds it") {
  try {
    lang::load_onnx(fixture("gpt2"));
    FAIL("loaded without a sequence length");
  } catch (const lang::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("--dim sequence=N") && Catch::Contains("--seq-len"));
  }
}
