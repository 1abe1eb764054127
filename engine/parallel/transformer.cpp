#include "engine/parallel/transformer.hpp"

#include "engine/quant_storage.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ridge::engine::parallel {

namespace {

std::string group_of(const std::string& name) { return name.substr(0, name.find('.')); }

// Index of each layer's top-level group, and which groups are blocks (hold an attention layer).
struct Groups {
  std::vector<std::size_t> of_layer;
  std::vector<bool> is_block;
};

Groups groups(const ir::Network& net) {
  Groups g;
  const ir::Op attention = ir::op("attention");
  std::string current;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const std::string name = group_of(net.layers[i].name);
    if (i == 0 || name != current) {
      current = name;
      g.is_block.push_back(false);
    }
    g.of_layer.push_back(g.is_block.size() - 1);
    if (net.layers[i].op == attention) g.is_block.back() = true;
  }
  return g;
}

}  // namespace

TransformerShape describe_transformer(const ir::Network& net) {
  TransformerShape s;
  const Groups g = groups(net);
  const ir::Op attention = ir::op("attention");
  const ir::Op embedding = ir::op("embedding");
  s.layers = static_cast<int>(std::count(g.is_block.begin(), g.is_block.end(), true));
  if (s.layers == 0) return s;
  bool first = true;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const ir::Layer& l = net.layers[i];
    if (l.op == embedding && s.vocab == 0) s.vocab = l.attrs.i("num");
    if (!g.is_block[g.of_layer[i]]) continue;
    if (first) {
      // The first block's first layer reads the residual stream from outside the block.
      for (ir::LayerId in : l.inputs)
        if (!g.is_block[g.of_layer[in]] && !net.layers[in].output.empty()) s.hidden = net.layers[in].output.back();
      first = false;
    }
    if (l.op == attention && s.heads == 0) {
      s.heads = l.attrs.i("heads");
      s.seq = l.output.empty() ? 0 : l.output.front();
    }
  }
  return s;
}

bool tensor_parallel_repeats(const LayerRow& row, const TransformerShape& shape) {
  if (row.op == ir::op("embedding")) return false;   // Megatron's vocabulary-parallel embedding
  const bool hidden_wide = !row.output_shape.empty() && row.output_shape.back() == shape.hidden;
  return row.op_class != ir::OpClass::MatMul && hidden_wide;
}

MicroBatchProfile profile_micro_batch(const ir::Network& net, const ir::Device& device, const Options& setup,
                                      std::int64_t micro_batch, const TransformerShape& shape) {
  Options o = setup;
  o.batch = micro_batch;
  if (shape.is_transformer()) o.recompute = Recompute::None;   // recomputation is the parallel model's own
  const Report r = simulate(net, device, o);
  MicroBatchProfile p;
  p.micro_batch = micro_batch;
  const Totals& t = r.totals;
  p.params = t.params;
  p.flops_forward = t.flops_fwd_train;
  p.flops_backward = t.flops_bwd;
  p.update_s = t.time_update_s;
  p.weight_bytes_per_param = ir::bytes_per_element(o.precision);
  if (t.params > 0) {
    p.gradient_bytes_per_param = t.gradient_bytes / t.params;
    p.optimizer_bytes_per_param = (t.master_weight_bytes + t.optimizer_state_bytes) / t.params;
  }
  p.saved_activation_bytes = t.saved_activation_bytes;
  p.peak_flops = r.device.matmul_peak_used.flops_per_s;
  p.tokens_per_sample = t.tokens_per_sample;

  const Groups g = groups(net);
  const ir::Op attention = ir::op("attention");
  bool seen_block = false;
  double block_params = 0.0, block_input = 0.0;
  // The activations a rank sends, at the width the stack keeps them (engine/quant_storage.hpp).
  const double width = ir::bytes_per_element(quant::activation_precision(o.runtime.get(), o.precision));
  auto bytes_of = [&](const ir::Shape& shape_) {
    return static_cast<double>(ir::element_count(shape_)) * static_cast<double>(micro_batch) * width;
  };
  for (std::size_t i = 0; i < r.layers.size() && i < net.layers.size(); ++i) {
    const LayerRow& row = r.layers[i];
    const PassPair times{row.time_fwd_train.paleo_s, row.time_bwd.paleo_s};
    const bool in_block = shape.is_transformer() && g.is_block[g.of_layer[i]];
    PassPair* slot = nullptr;
    const bool replicated = tensor_parallel_repeats(row, shape);
    if (!in_block) {
      slot = seen_block ? &p.after : &p.before;
      (seen_block ? p.after_params : p.before_params) += row.params;
      if (!seen_block) p.before_saved += row.saved_bytes;
      else (replicated ? p.after_saved_replicated : p.after_saved_split) += row.saved_bytes;
    } else {
      if (!seen_block || g.of_layer[i] != g.of_layer[i - 1]) {
        // A block's first layer: the value it reads from outside is what full recomputation keeps.
        for (ir::LayerId in : net.layers[i].inputs)
          if (g.of_layer[in] != g.of_layer[i]) block_input += bytes_of(r.layers[in].output_shape);
      }
      seen_block = true;
      block_params += row.params;
      slot = replicated ? &p.block_replicated : &p.block_split;
      (replicated ? p.block_saved_replicated : p.block_saved_split) += row.saved_bytes;
      if (net.layers[i].op == attention) {
        p.block_attention_forward += times.forward;
        p.attention_flops_forward += row.fwd_train.flops;
        // Its scores and their dropout (kept beyond its inputs and output): what selective drops.
        p.block_saved_scores += row.saved_bytes - bytes_of(row.output_shape);
      }
    }
    slot->forward += times.forward;
    slot->backward += times.backward;
  }
  if (shape.is_transformer()) {
    const double L = shape.layers;
    for (PassPair* pp : {&p.block_split, &p.block_replicated}) pp->forward /= L, pp->backward /= L;
    p.block_attention_forward /= L;
    p.block_params = block_params / L;
    p.block_saved_split /= L;
    p.block_saved_replicated /= L;
    p.block_saved_scores /= L;
    p.block_input_bytes = block_input / L;
    // Tied weights (an LM head reusing the embedding) are counted once by simulate(); the rows count
    // them where they are declared, which is what a pipeline's first stage holds.
  }
  return p;
}

}  // namespace ridge::engine::parallel
