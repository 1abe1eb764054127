// nn.MultiheadAttention as torch.onnx.export writes it off PyTorch's fast path (F.multi_head_attention_forward
// in torch 1.13: nn.TransformerEncoderLayer, torchvision's ViT). Its heads share an axis with the batch
// ([T, B * heads, d]), which a per-sample graph cannot hold, so the run is claimed whole:
//   q, k, v [T, B, E] -> Reshape [T, B*h, d] -> Transpose (1, 0, 2)       (k: Transpose (1, 2, 0))
//   -> Div (or Mul: the 1/sqrt(d) scale) -> MatMul(q, k^T) -> Softmax -> MatMul(., v)
//   -> Transpose (1, 0, 2) -> Reshape [T*B, E] -> Gemm (out_proj) -> Reshape [T, B, E]
//                                  -> attention(q, k, v, heads: E / d) and linear(out_proj)
// The in-projection before it (MatMul + Add, then a Slice per q, k, v) imports as it is. A run whose
// values do not fit is converted node by node, as ever (and fails where the heads meet the batch).
#include "lang/onnx/importer.hpp"
#include "lang/onnx/matcher.hpp"

#include <algorithm>

namespace ridge::lang::onnx_import {
namespace {

struct TorchAttention {
  std::vector<int> nodes;   // every node of the run before the Gemm, claimed
  int q_reshape = -1, k_reshape = -1, v_reshape = -1, gemm = -1, unrows = -1;
};

std::optional<TorchAttention> torch_attention_run(const Matcher& m, int softmax) {
  TorchAttention run;
  run.nodes = {softmax};
  const std::string& scores = m.node(softmax).input(0);
  const auto mm1 = m.single(scores) ? m.producer(scores, "MatMul") : std::nullopt;
  if (!mm1 || m.node(*mm1).input_size() != 2) return std::nullopt;
  run.nodes.push_back(*mm1);
  std::string q = m.node(*mm1).input(0);
  for (const char* op : {"Div", "Mul"}) {
    if (const auto s = m.producer(q, op); s && m.single(q) && m.node(*s).input_size() == 2) {
      run.nodes.push_back(*s);
      q = m.node(*s).input(0);
      break;
    }
  }
  const auto qr = m.heads_view(q, {1, 0, 2}, run.nodes);
  const auto kr = m.heads_view(m.node(*mm1).input(1), {1, 2, 0}, run.nodes);
  const auto mm2 = m.only_reader(m.out(softmax), "MatMul");
  if (!qr || !kr || !mm2 || m.node(*mm2).input_size() != 2 || m.node(*mm2).input(0) != m.out(softmax)) return std::nullopt;
  run.nodes.push_back(*mm2);
  const auto vr = m.heads_view(m.node(*mm2).input(1), {1, 0, 2}, run.nodes);
  const auto back = m.only_reader(m.out(*mm2), "Transpose");
  if (!vr || !back || attr_ints(m.node(*back), "perm") != std::vector<std::int64_t>{1, 0, 2}) return std::nullopt;
  const auto rows = m.only_reader(m.out(*back), "Reshape");
  const auto gemm = rows ? m.only_reader(m.out(*rows), "Gemm") : std::nullopt;
  if (!gemm) return std::nullopt;
  run.nodes.insert(run.nodes.end(), {*back, *rows});
  // The Gemm's output goes back to [T, B, E] by a Reshape, whose target Shape nodes may compute.
  for (const int r : m.readers(m.out(*gemm))) {
    const auto& n = m.node(r);
    if (n.op_type() == "Reshape" && n.input(0) == m.out(*gemm) && run.unrows < 0) run.unrows = r;
    else if (n.op_type() != "Shape") return std::nullopt;
  }
  if (run.unrows < 0) return std::nullopt;
  run.q_reshape = *qr;
  run.k_reshape = *kr;
  run.v_reshape = *vr;
  run.gemm = *gemm;
  return run;
}

// The MultiheadAttention module's path from its out_proj's weight, `encoder.layers.0.self_attn`.
std::string module_of(const std::string& weight) {
  const std::string suffix = ".out_proj.weight";
  return weight.ends_with(suffix) ? weight.substr(0, weight.size() - suffix.size()) : std::string();
}

// At the Gemm: one attention layer and the out-projection when the values fit, else every node of the
// run in order and the Gemm itself.
void convert_torch_attention(Importer& im, const TorchAttention& run) {
  const auto& g = im.graph().graph();
  const onnx::NodeProto& gemm = g.node(run.gemm);
  std::optional<Value> q, k, v;
  std::int64_t heads = 0;
  try {
    const auto operand = [&](int reshape) -> std::optional<Value> {
      const Value& x = im.input(g.node(reshape), 0);
      if (!x.batched() || im.ir_shape(x).size() != 2) return std::nullopt;
      return x;
    };
    q = operand(run.q_reshape);
    k = operand(run.k_reshape);
    v = operand(run.v_reshape);
    const auto& target = im.const_data(g.node(run.q_reshape), 1);
    const Value& w = im.input(gemm, 1);
    const bool fits = q && k && v && q->batch_axis == k->batch_axis && k->batch_axis == v->batch_axis &&
                      im.ir_shape(*k) == im.ir_shape(*v) && target.size() == 3 && !is_batch(target[2]) && target[2] >= 1 &&
                      !w.is_layer() && !w.weight.empty() && w.dims.size() == 2 && attr_int(gemm, "transA", 0) == 0 &&
                      attr_float(gemm, "alpha", 1.0) == 1.0 && attr_float(gemm, "beta", 1.0) == 1.0;
    const std::int64_t width = fits ? im.ir_shape(*q)[1] : 0;
    const auto d = fits ? as_int(target[2], "the head width") : 0;
    if (fits && width % d == 0 && im.ir_shape(*k)[1] == width) heads = width / d;
  } catch (const OnnxError&) {
    heads = 0;
  }
  if (heads == 0) {
    std::vector<int> nodes = run.nodes;
    std::vector<int> position(static_cast<std::size_t>(g.node_size()));
    for (std::size_t i = 0; i < im.graph().order.size(); ++i) position[static_cast<std::size_t>(im.graph().order[i])] = static_cast<int>(i);
    std::sort(nodes.begin(), nodes.end(), [&](int a, int b) { return position[static_cast<std::size_t>(a)] < position[static_cast<std::size_t>(b)]; });
    for (const int i : nodes) im.convert(i);
    im.convert(run.gemm);
    return;
  }
  const Value& w = im.input(gemm, 1);
  const std::string module = module_of(w.weight);
  const Value a = im.emit("attention", {*q, *k, *v}, {{"heads", heads}}, gemm, q->batch_axis,
                          module.empty() ? std::string(".attention") : module);
  // Per sample the rows [T*B, E] are [T, E]: the Gemm's output, and the Reshape back to [T, B, E]
  // (claimed: its target, computed by Shape nodes from a value of another rank, is not read).
  const Value y = linear_layer(im, gemm, a, w, im.has_input(gemm, 2), {}, attr_int(gemm, "transB", 0) == 0);
  im.set_output(gemm, 0, y);
  im.set_output(g.node(run.unrows), 0, y);
}

}  // namespace

void claim_torch_attention(Importer& im, const Matcher& m) {
  const Graph& g = im.graph();
  for (int i = 0; i < g.graph().node_size(); ++i) {
    const auto& n = g.graph().node(i);
    if (n.op_type() != "Softmax" || (!n.domain().empty() && n.domain() != "ai.onnx") || im.skipped.count(i)) continue;
    const auto axis = attr_int(n, "axis", -1);
    if (axis != -1 && axis != 2) continue;
    const auto run = torch_attention_run(m, i);
    if (!run || im.fused.count(run->gemm) || im.fused.count(run->unrows) ||
        std::any_of(run->nodes.begin(), run->nodes.end(), [&](int k) { return im.skipped.count(k) > 0 || im.fused.count(k) > 0; }))
      continue;
    for (const int k : run->nodes) im.skipped.insert(k);
    im.fused[run->gemm] = [r = *run](Importer& importer) { convert_torch_attention(importer, r); };
    im.fused[run->unrows] = [r = run->unrows](Importer& importer) {
      if (!importer.has_value(importer.graph().graph().node(r).output(0))) importer.convert(r);   // the run fell back
    };
  }
}

}  // namespace ridge::lang::onnx_import
