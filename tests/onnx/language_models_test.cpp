// BERT-base and GPT-2 small exported from PyTorch (tests/onnx/make_fixtures.py builds them from the
// bert-base-uncased and gpt2 configurations) simulate with the zoo's counts.
//
// Published parameter counts: BertModel.from_pretrained("bert-base-uncased"), pooler included,
// 109,482,240; GPT2LMHeadModel.from_pretrained("gpt2"), the tied head counted once, 124,439,808 (as
// models/bert_base.net and models/gpt2.net cite them). MACs: the zoo files count attention with one
// fused `attention` layer, the export with its two MatMuls: the multiply-adds are the same, the
// element-wise work around them (scale, mask, softmax) is counted per node in the import.
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
  check_same_work(onnx, net);
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
