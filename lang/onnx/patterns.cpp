// The pattern pass: node runs that an exporter emits for one torch op become that one IR layer, so
// the imported network has the layers (and the counts) its `.net` has:
//   MatMul(x, W) + Add(., b)                               -> linear(bias: true)  (nn.Linear on 3-d input)
//   Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5       -> gelu               (torch's erf GELU)
//   0.5 x (1 + Tanh(sqrt(2/pi) (x + 0.044715 x^3)))       -> gelu(approximate: "tanh")
//   Mul(x, Sigmoid(x))                                     -> silu                (torch exports SiLU so)
//   Reshape [B, g, C/g, H, W] -> Transpose(0 2 1 3 4) -> Reshape [B, C, H, W]
//                                                          -> channel_shuffle(g)  (ShuffleNet's, a copy in torch)
//   q, k, v [B, T, C] -> Reshape [B, T, h, d] -> Transpose to heads -> MatMul(q, k^T) -> Div (or Mul)
//     -> Where (a fixed mask: causal) -> Softmax -> MatMul(., v) -> Transpose -> Reshape [B, T, C]
//                                                          -> attention(q, k, v, heads: h, causal)
// Matching is by structure (every inner value read once, by the next node); the constants are checked
// when the run is reached. A run that does not match is converted node by node, as ever.
#include "lang/onnx/importer.hpp"
#include "lang/onnx/matcher.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ridge::lang::onnx_import {
namespace {

struct Run {
  std::vector<int> nodes;                      // every node of the run
  std::string x;                               // its one data input
  int last = -1;                               // the node whose output the run produces
  std::vector<std::pair<std::string, double>> constants;   // operand name, expected value
};

// x * 0.5 * (1 + f) in either order torch and Hugging Face write it, from the Add (1 + f).
bool half_x_times(const Matcher& m, int add, const std::string& x, Run& run) {
  const auto mul = m.only_reader(m.out(add), "Mul");
  if (!mul) return false;
  const auto o = m.other(*mul, m.out(add));
  if (!o) return false;
  if (*o == x) {   // (x * (1 + f)) * 0.5
    const auto half = m.only_reader(m.out(*mul), "Mul");
    const auto c = half ? m.other(*half, m.out(*mul)) : std::nullopt;
    if (!c) return false;
    run.nodes.insert(run.nodes.end(), {*mul, *half});
    run.constants.emplace_back(*c, 0.5);
    run.last = *half;
    return true;
  }
  const auto h = m.producer(*o, "Mul");   // (x * 0.5) * (1 + f)
  if (!h || !m.only_reader(*o, "Mul")) return false;
  const auto c = m.other(*h, x);
  if (!c) return false;
  run.nodes.insert(run.nodes.end(), {*h, *mul});
  run.constants.emplace_back(*c, 0.5);
  run.last = *mul;
  return true;
}

std::optional<Run> erf_gelu(const Matcher& m, int erf) {
  Run run;
  const auto div = m.producer(m.node(erf).input(0), "Div");
  if (!div || !m.only_reader(m.out(*div), "Erf")) return std::nullopt;
  run.x = m.node(*div).input(0);
  run.constants.emplace_back(m.node(*div).input(1), std::sqrt(2.0));
  const auto add = m.only_reader(m.out(erf), "Add");
  const auto one = add ? m.other(*add, m.out(erf)) : std::nullopt;
  if (!one || m.node(*div).input_size() != 2) return std::nullopt;
  run.constants.emplace_back(*one, 1.0);
  run.nodes = {*div, erf, *add};
  if (!half_x_times(m, *add, run.x, run)) return std::nullopt;
  return run;
}

std::optional<Run> tanh_gelu(const Matcher& m, int tanh) {
  Run run;
  const auto scale = m.producer(m.node(tanh).input(0), "Mul");   // sqrt(2/pi) * (x + k x^3)
  if (!scale || !m.only_reader(m.out(*scale), "Tanh")) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const auto inner = m.producer(m.node(*scale).input(side), "Add");
    if (!inner || !m.only_reader(m.out(*inner), "Mul")) continue;
    for (int xs = 0; xs < 2; ++xs) {
      const std::string x = m.node(*inner).input(xs);
      const std::string cubed_k = m.node(*inner).input(1 - xs);
      const auto kmul = m.producer(cubed_k, "Mul");   // 0.044715 * x^3
      if (!kmul || !m.only_reader(cubed_k, "Add")) continue;
      for (int ks = 0; ks < 2; ++ks) {
        const std::string cube = m.node(*kmul).input(ks);
        std::vector<int> cube_nodes;
        if (const auto p = m.producer(cube, "Pow"); p && m.node(*p).input(0) == x) {
          cube_nodes = {*p};
          run.constants.emplace_back(m.node(*p).input(1), 3.0);
        } else if (const auto c = m.producer(cube, "Mul")) {
          const auto sq = m.other(*c, x);
          const auto s = sq ? m.producer(*sq, "Mul") : std::nullopt;
          if (!s || m.node(*s).input(0) != x || m.node(*s).input(1) != x || !m.only_reader(*sq, "Mul")) continue;
          cube_nodes = {*s, *c};
        } else {
          continue;
        }
        if (!m.only_reader(cube, "Mul")) continue;
        run.x = x;
        run.nodes = cube_nodes;
        run.nodes.insert(run.nodes.end(), {*kmul, *inner, *scale, tanh});
        run.constants.emplace_back(m.node(*kmul).input(1 - ks), 0.044715);
        run.constants.emplace_back(m.node(*scale).input(1 - side), std::sqrt(2.0 / std::numbers::pi));
        const auto add = m.only_reader(m.out(tanh), "Add");
        const auto one = add ? m.other(*add, m.out(tanh)) : std::nullopt;
        if (!one) return std::nullopt;
        run.constants.emplace_back(*one, 1.0);
        run.nodes.push_back(*add);
        if (!half_x_times(m, *add, x, run)) return std::nullopt;
        return run;
      }
    }
  }
  return std::nullopt;
}

// Converts a matched run when its constants hold the expected values; otherwise node by node.
void convert_run(Importer& im, const Run& run, int anchor, ir::Attrs attrs) {
  const onnx::NodeProto& last = im.graph().graph().node(run.last);
  bool ok = true;
  for (const auto& [name, expected] : run.constants) {
    onnx::NodeProto probe;
    probe.add_input(name);
    const Value* v = nullptr;
    try {
      v = &im.input(probe, 0);
    } catch (const OnnxError&) {
      ok = false;
      break;
    }
    ok = ok && !v->is_layer() && v->data && v->data->size() == 1 && std::abs(v->data->front() - expected) <= 1e-3 * std::abs(expected);
  }
  onnx::NodeProto probe;
  probe.add_input(run.x);
  Value x;
  try {
    x = im.input(probe, 0);
  } catch (const OnnxError&) {
    ok = false;
  }
  if (!ok || !x.is_layer()) {
    im.convert(anchor);   // the rest of the run follows node by node
    return;
  }
  for (const int i : run.nodes) im.skipped.insert(i);
  im.set_output(last, 0, im.emit("gelu", {x}, std::move(attrs), last, x.batch_axis));
}

// nn.Linear on a 3-d input: MatMul with an initializer, then Add of a bias.
void linear_with_bias(Importer& im, int mm, int add) {
  const onnx::NodeProto& n = im.graph().graph().node(mm);
  const onnx::NodeProto& a = im.graph().graph().node(add);
  const std::string& bias_name = a.input(0) == n.output(0) ? a.input(1) : a.input(0);
  onnx::NodeProto probe;
  probe.add_input(bias_name);
  const Value* bias = nullptr;
  try {
    bias = &im.input(probe, 0);
  } catch (const OnnxError&) {
  }
  const Value& x = im.input(n, 0);
  const Value& w = im.input(n, 1);
  const bool fits = bias && !bias->is_layer() && !bias->weight.empty() && bias->dims.size() == 1 && x.batched() &&
                    !w.is_layer() && !w.weight.empty() && w.dims.size() == 2 && bias->dims[0] == w.dims[1];
  if (!fits) {
    im.convert(mm);
    return;
  }
  im.skipped.insert(add);
  std::string name = bias_name;
  if (name.size() > 5 && name.ends_with(".bias")) name.resize(name.size() - 5);
  else if (name.size() > 5 && name.ends_with("_bias")) name.resize(name.size() - 5);   // MultiheadAttention's in_proj_bias
  im.set_output(a, 0, linear_layer(im, n, x, w, true, name));
}

void silu(Importer& im, int sigmoid, int mul) {
  const onnx::NodeProto& n = im.graph().graph().node(sigmoid);
  const Value& x = im.input(n, 0);
  if (!x.is_layer()) return im.convert(sigmoid);
  const onnx::NodeProto& m = im.graph().graph().node(mul);
  im.skipped.insert(mul);
  im.set_output(m, 0, im.emit("silu", {x}, {}, m, x.batch_axis));
}

void channel_shuffle(Importer& im, int first, int transpose, int second) {
  const auto& g = im.graph().graph();
  const onnx::NodeProto& r1 = g.node(first);
  const onnx::NodeProto& t = g.node(transpose);
  const onnx::NodeProto& r2 = g.node(second);
  const Value& x = im.input(r1, 0);
  const auto perm = attr_ints(t, "perm");
  bool fits = x.batched() && x.batch_axis == 0 && im.ir_shape(x).size() == 3 && perm == std::vector<std::int64_t>{0, 2, 1, 3, 4};
  std::int64_t groups = 0;
  if (fits) {
    try {
      const auto a = im.const_data(r1, 1);
      const auto b = im.const_data(r2, 1);
      const ir::Shape s = im.ir_shape(x);
      fits = a.size() == 5 && b.size() == 4 && a[1] >= 1 && a[1] == std::floor(a[1]) && a[3] == static_cast<double>(s[1]) &&
             a[4] == static_cast<double>(s[2]) && a[2] * a[1] == static_cast<double>(s[0]) &&
             (b[1] == -1 || b[1] == static_cast<double>(s[0])) && b[2] == static_cast<double>(s[1]) && b[3] == static_cast<double>(s[2]);
      groups = fits ? static_cast<std::int64_t>(a[1]) : 0;
    } catch (const OnnxError&) {
      fits = false;
    }
  }
  if (!fits) return im.convert(first);
  im.skipped.insert(transpose);
  im.skipped.insert(second);
  im.set_output(r2, 0, im.emit("channel_shuffle", {x}, {{"groups", groups}}, r2, 0));
}

// Scaled dot-product attention as exporters write it out (BERT's and GPT-2's self-attention).
struct AttentionRun {
  std::vector<int> nodes;
  int q_reshape = -1, k_reshape = -1, v_reshape = -1, out_reshape = -1, softmax = -1;
  bool causal = false;
};

std::optional<AttentionRun> attention_run(const Matcher& m, int softmax) {
  AttentionRun run;
  run.softmax = softmax;
  run.nodes = {softmax};
  std::string scores = m.node(softmax).input(0);
  if (!m.single(scores)) return std::nullopt;
  if (const auto w = m.producer(scores, "Where"); w && m.node(*w).input_size() == 3) {
    const auto& n = m.node(*w);
    const bool data_first = m.producer(n.input(1), "Div") || m.producer(n.input(1), "Mul") || m.producer(n.input(1), "MatMul");
    scores = data_first ? n.input(1) : n.input(2);
    if (!m.single(scores)) return std::nullopt;
    run.nodes.push_back(*w);
    run.causal = true;
  }
  for (const char* op : {"Div", "Mul"}) {
    if (const auto d = m.producer(scores, op); d && m.node(*d).input_size() == 2 && m.producer(m.node(*d).input(0), "MatMul")) {
      scores = m.node(*d).input(0);
      if (!m.single(scores)) return std::nullopt;
      run.nodes.push_back(*d);
      break;
    }
  }
  const auto mm1 = m.producer(scores, "MatMul");
  if (!mm1 || m.node(*mm1).input_size() != 2) return std::nullopt;
  run.nodes.push_back(*mm1);
  const auto q = m.heads_view(m.node(*mm1).input(0), {0, 2, 1, 3}, run.nodes);
  if (!q) return std::nullopt;
  run.q_reshape = *q;
  // k^T: Transpose(0, 2, 3, 1) of the reshape, or Transpose(0, 1, 3, 2) of the heads view.
  const std::string& kt = m.node(*mm1).input(1);
  if (const auto t = m.transpose(kt, {0, 2, 3, 1})) {
    const auto r = m.producer(m.node(*t).input(0), "Reshape");
    if (!r || !m.single(m.out(*r))) return std::nullopt;
    run.nodes.insert(run.nodes.end(), {*t, *r});
    run.k_reshape = *r;
  } else if (const auto t2 = m.transpose(kt, {0, 1, 3, 2})) {
    run.nodes.push_back(*t2);
    const auto k = m.heads_view(m.node(*t2).input(0), {0, 2, 1, 3}, run.nodes);
    if (!k) return std::nullopt;
    run.k_reshape = *k;
  } else {
    return std::nullopt;
  }
  const auto mm2 = m.only_reader(m.out(softmax), "MatMul");
  if (!mm2 || m.node(*mm2).input_size() != 2 || m.node(*mm2).input(0) != m.out(softmax)) return std::nullopt;
  run.nodes.push_back(*mm2);
  const auto v = m.heads_view(m.node(*mm2).input(1), {0, 2, 1, 3}, run.nodes);
  if (!v) return std::nullopt;
  run.v_reshape = *v;
  const auto back = m.only_reader(m.out(*mm2), "Transpose");
  if (!back || attr_ints(m.node(*back), "perm") != std::vector<std::int64_t>{0, 2, 1, 3}) return std::nullopt;
  const auto out = m.only_reader(m.out(*back), "Reshape");
  if (!out) return std::nullopt;
  run.nodes.insert(run.nodes.end(), {*back, *out});
  run.out_reshape = *out;
  return run;
}

// At the run's last node: one attention layer when the values fit, else every node of the run in order.
void convert_attention(Importer& im, const AttentionRun& run) {
  const auto& g = im.graph().graph();
  std::optional<Value> q, k, v;
  std::int64_t heads = 0;
  try {
    const auto per_head = [&](int reshape, std::optional<Value>& x) {
      const Value& in = im.input(g.node(reshape), 0);
      const auto& target = im.const_data(g.node(reshape), 1);
      if (!in.batched() || in.batch_axis != 0 || im.ir_shape(in).size() != 2 || target.size() != 4 || is_batch(target[2]))
        return std::int64_t{0};
      x = in;
      return static_cast<std::int64_t>(target[2]);
    };
    heads = per_head(run.q_reshape, q);
    const bool same = heads > 0 && per_head(run.k_reshape, k) == heads && per_head(run.v_reshape, v) == heads;
    const std::int64_t axis = attr_int(g.node(run.softmax), "axis", -1);
    if (!same || (axis != -1 && axis != 3) || im.const_data(g.node(run.out_reshape), 1).size() != 3) heads = 0;
  } catch (const OnnxError&) {
    heads = 0;
  }
  if (heads == 0) {
    std::vector<int> nodes = run.nodes;
    std::vector<int> position(static_cast<std::size_t>(g.node_size()));
    for (std::size_t i = 0; i < im.graph().order.size(); ++i) position[static_cast<std::size_t>(im.graph().order[i])] = static_cast<int>(i);
    std::sort(nodes.begin(), nodes.end(), [&](int a, int b) { return position[static_cast<std::size_t>(a)] < position[static_cast<std::size_t>(b)]; });
    for (const int i : nodes) im.convert(i);
    return;
  }
  const onnx::NodeProto& last = g.node(run.out_reshape);
  im.set_output(last, 0, im.emit("attention", {*q, *k, *v}, {{"heads", heads}, {"causal", run.causal}}, last, 0, ".attention"));
}

}  // namespace

void claim_patterns(Importer& im) {
  const Graph& g = im.graph();
  const Matcher m(g);
  // Attention first: its runs hold MatMuls and Reshapes the patterns below would otherwise claim.
  claim_torch_attention(im, m);
  for (int i = 0; i < g.graph().node_size(); ++i) {
    const auto& n = g.graph().node(i);
    if (n.op_type() != "Softmax" || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
    const auto run = attention_run(m, i);
    if (!run || std::any_of(run->nodes.begin(), run->nodes.end(), [&](int k) { return im.skipped.count(k) > 0; })) continue;
    for (const int k : run->nodes)
      if (k != run->out_reshape) im.skipped.insert(k);
    im.fused[run->out_reshape] = [r = *run](Importer& importer) { convert_attention(importer, r); };
  }
  for (int i = 0; i < g.graph().node_size(); ++i) {
    const auto& n = g.graph().node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
    if (im.skipped.count(i) || im.fused.count(i)) continue;
    std::optional<Run> run;
    ir::Attrs attrs;
    if (n.op_type() == "Erf") run = erf_gelu(m, i);
    if (n.op_type() == "Tanh") {
      run = tanh_gelu(m, i);
      attrs.set("approximate", std::string("tanh"));
    }
    if (run) {
      // The run is converted where its first node stands in the order (x exists by then).
      int anchor = -1;
      for (const int k : g.order) {
        if (std::find(run->nodes.begin(), run->nodes.end(), k) != run->nodes.end()) {
          anchor = k;
          break;
        }
      }
      if (anchor >= 0 && !im.fused.count(anchor))
        im.fused[anchor] = [r = *run, anchor, attrs](Importer& importer) { convert_run(importer, r, anchor, attrs); };
      continue;
    }
    if (n.op_type() == "Sigmoid" && n.input_size() == 1 && n.output_size() >= 1) {
      const auto mul = m.only_reader(n.output(0), "Mul");
      if (mul && m.other(*mul, n.output(0)) == n.input(0) && !im.fused.count(i))
        im.fused[i] = [i, k = *mul](Importer& importer) { silu(importer, i, k); };
      continue;
    }
    if (n.op_type() == "Reshape" && n.output_size() >= 1) {
      const auto t = m.only_reader(n.output(0), "Transpose");
      const auto r2 = t ? m.only_reader(m.out(*t), "Reshape") : std::nullopt;
      if (r2 && !im.fused.count(i))
        im.fused[i] = [i, a = *t, b = *r2](Importer& importer) { channel_shuffle(importer, i, a, b); };
      continue;
    }
    if (n.op_type() == "MatMul" && n.output_size() >= 1) {
      if (const auto add = m.only_reader(n.output(0), "Add"); add && !im.fused.count(i))
        im.fused[i] = [i, a = *add](Importer& importer) { linear_with_bias(importer, i, a); };
    }
  }
}

}  // namespace ridge::lang::onnx_import
