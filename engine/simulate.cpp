#include "engine/simulate.hpp"

#include "engine/cpu_dispatch.hpp"
#include "engine/host_allocator.hpp"
#include "engine/host_dispatch.hpp"
#include "engine/layout.hpp"
#include "engine/quant_storage.hpp"
#include "engine/runtime.hpp"
#include "engine/sparsity.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <bit>
#include <bitset>
#include <numeric>
#include <array>
#include <cmath>
#include <limits>
#include <cstdio>
#include <string>
#include <unordered_map>

namespace ridge::engine {
namespace {

constexpr double kExactLimit = 9007199254740992.0;   // 2^53: beyond it doubles skip integers

bool exact(double v) { return v >= 0.0 && v <= kExactLimit; }
bool exact(const PassCost& c) { return exact(c.flops) && exact(c.bytes_read) && exact(c.bytes_written); }

// The message is built only on failure: simulate() runs per layer in sweeps of thousands.
[[noreturn]] void inexact(const std::string& what, const ir::Network& net, const Options& opt) {
  throw WorkloadError("network '" + net.name + "' at batch " + std::to_string(opt.batch) + ", " +
                      std::string(ir::precision_name(opt.precision)) + ": " + what +
                      " exceed 2^53, beyond which counts stop being exact; use a smaller batch or network");
}

void check_network(const ir::Network& net) {
  if (net.layers.empty() || net.layers.front().op != ir::kInputOp)
    throw WorkloadError("network '" + net.name + "' has no input layer");
  if (net.output >= net.layers.size())
    throw WorkloadError("network '" + net.name + "' returns a layer it does not have");
}

// `all_peaks`: also every precision's peaks, for the reports that show them (a sweep needs only the
// simulated precision's).
DeviceSummary summarise(const ir::Device& d, ir::Precision p, bool all_peaks) {
  DeviceSummary s;
  s.id = d.id;
  s.name = d.name;
  s.kind = d.kind;
  if (all_peaks) {
    for (const auto& [prec, f] : d.vector_peak) s.vector_peak[prec] = f.value;
    for (const auto& [prec, f] : d.matrix_peak) s.matrix_peak[prec] = f.value;
    for (const ir::Precision q : ir::all_precisions()) {
      try {
        s.matmul_peak[q] = layer_peak(d, ir::OpClass::MatMul, q).flops_per_s;
      } catch (const SimulationError&) {
        // The device cannot run this precision at all: leave it out of the summary.
      }
    }
  }
  s.bandwidth = bandwidth(d);
  if (d.memory_size) s.memory_bytes = d.memory_size->value;
  const LaunchOverhead lo = launch_overhead(d);
  s.launch_overhead_s = lo.seconds;
  s.launch_overhead_from_device = lo.from_device;
  s.matmul_peak_used = layer_peak(d, ir::OpClass::MatMul, p);
  s.vector_peak_used = layer_peak(d, ir::OpClass::Elementwise, p);
  s.ridge_point = s.matmul_peak_used.flops_per_s / s.bandwidth;
  s.ridge_point_vector = s.vector_peak_used.flops_per_s / s.bandwidth;
  return s;
}

// Each value's storage: a view shares its first input's; everything else owns its output.
std::vector<std::size_t> storage_roots(const ir::Network& net) {
  std::vector<std::size_t> root(net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const ir::Layer& l = net.layers[i];
    root[i] = (l.op != ir::kInputOp && is_view(l.op) && !l.inputs.empty()) ? root[l.inputs.front()] : i;
  }
  return root;
}

// Per storage root (storage_roots): the last layer that writes it through a view or reads it.
std::vector<std::size_t> last_uses(const ir::Network& net, const std::vector<std::size_t>& root) {
  std::vector<std::size_t> last_use(net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    last_use[root[i]] = std::max(last_use[root[i]], i);
    for (ir::LayerId in : net.layers[i].inputs) last_use[root[in]] = std::max(last_use[root[in]], i);
  }
  return last_use;
}

// A view with no input (a learned `parameter`) aliases the weights: no activation storage of its own.
double value_bytes(const ir::Layer& l, std::int64_t batch, ir::Precision p) {
  if (l.op != ir::kInputOp && l.inputs.empty() && is_view(l.op)) return 0.0;
  return static_cast<double>(ir::element_count(l.output)) * static_cast<double>(batch) *
         static_cast<double>(ir::bytes_per_element(p));
}

// Full recomputation (Megatron's "full" activation checkpointing) keeps only the values that cross
// a top-level block boundary (a block's inputs, named by the first component of layer names) and,
// during backward, one block's saved activations at a time (`saved`: per layer, as without
// recomputation), recomputed.
double full_recompute_saved_bytes(const ir::Network& net, const std::vector<std::size_t>& root,
                                  const std::vector<double>& saved, std::int64_t batch, ir::Precision p) {
  const auto top = [&](std::size_t i) { return net.layers[i].name.substr(0, net.layers[i].name.find('.')); };
  std::vector<bool> kept(net.layers.size(), false);
  kept[root[0]] = true;
  if (net.output < net.layers.size()) kept[root[net.output]] = true;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    for (ir::LayerId in : net.layers[i].inputs)
      if (top(in) != top(i)) kept[root[in]] = true;
  double boundary = 0.0, largest_block = 0.0, block = 0.0;
  std::string current;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    if (top(i) != current) current = top(i), block = 0.0;
    block += saved[i];   // what the block keeps while its backward runs, recomputed
    largest_block = std::max(largest_block, block);
    if (root[i] == i && kept[i]) boundary += value_bytes(net.layers[i], batch, p);
  }
  return boundary + largest_block;
}

// Bytes the optimizer step touches per parameter, and its FLOPs per parameter:
//   SGD with momentum   v = m v + g; w = w - lr v                          4 FLOPs, states: v
//   Adam                m = b1 m + (1-b1) g (3); v = b2 v + (1-b2) g^2 (4);
//                       w = w - (lr/bc1) m / (sqrt(v)/sqrt(bc2) + eps) (6)  13 FLOPs, states: m, v
//   AdamW               Adam + decoupled decay w = w (1 - lr wd)            14 FLOPs
// torch.optim's defaults otherwise (no Nesterov, no weight decay for SGD).
struct OptimizerCost {
  double flops_per_param;
  int states;
};
OptimizerCost optimizer_cost(Optimizer o) {
  switch (o) {
    case Optimizer::SgdMomentum: return {kSgdMomentumFlopsPerParam, 1};
    case Optimizer::Adam: return {13.0, 2};
    case Optimizer::AdamW: return {14.0, 2};
  }
  return {kSgdMomentumFlopsPerParam, 1};
}

// How many parameter-sized tensors the update reads and writes, per parameter, and in how many steps
// (ir::Runtime::optimizer). Weights, states and temporaries count at the states' width, gradients at
// the compute width.
//   fused    one pass: reads the weights, the gradient and the states, writes the weights and states.
//   foreach  torch.optim's _multi_tensor_* (torch/optim/adam.py, adamw.py, sgd.py; PyTorch 2.x, not
//            capturable, no amsgrad), one multi-tensor kernel per step:
//            AdamW  w *= 1 - lr wd (r w, w w); m.lerp_(g) (r m g, w m); v *= b2 (r v, w v);
//                   v.addcmul_(g, g) (r v g, w v); t = sqrt(v) (r v, w t); t /= sqrt(bc2) (r t, w t);
//                   t += eps (r t, w t); w.addcdiv_(m, t) (r w m t, w w): 8 steps, 10 + 2 g read, 8 written
//            Adam   the same without the decay (weight_decay 0): 7 steps, 9 + 2 read, 7 written
//            SGD    b *= momentum (r b, w b); b += g (r b g, w b); w -= lr b (r w b, w w): 3 steps, 4 + 1 read, 3 written
struct OptimizerPasses {
  double reads = 0;        // weights, states and temporaries
  double grad_reads = 0;
  double writes = 0;
  int steps = 1;
};
OptimizerPasses optimizer_passes(Optimizer o, int states, bool foreach) {
  if (!foreach) return {1.0 + states, 1.0, 1.0 + states, 1};
  switch (o) {
    case Optimizer::SgdMomentum: return {4, 1, 3, 3};
    case Optimizer::Adam: return {9, 2, 7, 7};
    case Optimizer::AdamW: return {10, 2, 8, 8};
  }
  return {1.0 + states, 1.0, 1.0 + states, 1};
}

// Kernels per foreach step: multi_tensor_apply launches when its 320 blocks of 65,536-element chunks
// fill, or its tensor list does (48 tensors at depth 3; aten/src/ATen/native/cuda/MultiTensorApply.cuh).
// ViT-L/16's AdamW step ran 128 launches of these on an H100 (8 steps x 16); this gives 8 x 15.
int foreach_launches(double params, int parameterised_layers) {
  const double by_chunks = std::ceil(params / (65536.0 * 320.0));
  const double by_tensors = std::ceil(parameterised_layers / 48.0);
  return static_cast<int>(std::max({1.0, by_chunks, by_tensors}));
}

// A time in a note: "12.34 ms".
std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", 1e3 * seconds);
  return text;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

std::string si_flops(double v) {
  // A note is prose; keep it readable without pulling in the renderers' formatting.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g TFLOP/s", v / 1e12);
  return buf;
}

}  // namespace

std::string_view optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::SgdMomentum: return "sgd";
    case Optimizer::Adam: return "adam";
    case Optimizer::AdamW: return "adamw";
  }
  return "sgd";
}
std::optional<Optimizer> optimizer_from_name(std::string_view n) {
  for (auto o : {Optimizer::SgdMomentum, Optimizer::Adam, Optimizer::AdamW})
    if (optimizer_name(o) == n) return o;
  return std::nullopt;
}
std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "none";
}
std::optional<Recompute> recompute_from_name(std::string_view n) {
  for (auto r : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (recompute_name(r) == n) return r;
  return std::nullopt;
}

std::string_view memory_format_name(MemoryFormat f) { return f == MemoryFormat::ChannelsFirst ? "nchw" : "nhwc"; }
std::optional<MemoryFormat> memory_format_from_name(std::string_view n) {
  if (n == "nhwc" || n == "channels_last") return MemoryFormat::ChannelsLast;
  if (n == "nchw" || n == "contiguous") return MemoryFormat::ChannelsFirst;
  return std::nullopt;
}

std::vector<double> activation_growth(const ir::Network& net, std::int64_t batch, ir::Precision p) {
  const std::size_t n = net.layers.size();
  const std::vector<std::size_t> root = storage_roots(net);
  std::vector<std::size_t> last_use = last_uses(net, root);
  if (net.output < n) last_use[root[net.output]] = n;   // the result outlives the network
  std::vector<double> freed_after(n, 0.0);   // bytes released once step i has run
  for (std::size_t r = 0; r < n; ++r)
    if (root[r] == r && last_use[r] < n) freed_after[last_use[r]] += value_bytes(net.layers[r], batch, p);
  double live = 0.0, peak = 0.0;
  std::vector<double> growth(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (root[i] == i) live += value_bytes(net.layers[i], batch, p);
    growth[i] = std::max(0.0, live - peak);   // step i: its inputs and its output are live together
    peak = std::max(peak, live);
    live -= freed_after[i];
  }
  return growth;
}

double peak_live_activation_bytes(const ir::Network& net, std::int64_t batch, ir::Precision p) {
  const std::vector<double> growth = activation_growth(net, batch, p);
  return std::accumulate(growth.begin(), growth.end(), 0.0);
}

namespace {

// An attention layer as the runtime runs it: its kernel replaced (engine/runtime.hpp).
ir::Layer with_kernel(const ir::Layer& layer, const std::string& kernel) {
  ir::Layer copy = layer;
  copy.attrs.set("kernel", kernel);
  return copy;
}

// A hash of the figures that most often tell two layers' costs apart (equal hashes are compared whole).
std::uint64_t mix(std::uint64_t h, double v) {
  return (h ^ std::bit_cast<std::uint64_t>(v)) * 0x9E3779B97F4A7C15ull;
}
std::uint64_t cost_hash(const OpCost& c) {
  std::uint64_t h = static_cast<std::uint64_t>(c.op_class) + 1;
  for (const double v : {c.forward.flops, c.forward.bytes_read, c.forward.bytes_written, c.backward.flops,
                         c.backward.bytes_read, c.params})
    h = mix(h, v);
  return h;
}

// Workload::l2_span, from each value's storage (views share their base's) and its last reader.
std::vector<double> l2_spans(const ir::Network& net, const Workload& w, double weight_width) {
  const std::size_t n = net.layers.size();
  const std::vector<std::size_t> root = storage_roots(net);
  const std::vector<std::size_t> last_use = last_uses(net, root);
  // brought[i]: the bytes the forward brings into L2 through layer i (inclusive).
  std::vector<double> brought(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const OpCost& c = w.cost(i);
    brought[i + 1] = brought[i] + c.forward.bytes_written + std::min(c.forward.bytes_read, c.params * weight_width);
  }
  // The network's input arrives from the host and its result leaves for it: both are taken to be in
  // DRAM, as a kernel timed after an L2 flush finds its operands.
  const std::size_t result = net.output < n ? root[net.output] : n;
  const auto span = [&](std::size_t value) {
    const std::size_t r = root[value];
    return r == result || net.layers[r].op == ir::kInputOp ? std::numeric_limits<double>::infinity()
                                                           : brought[last_use[r] + 1] - brought[r];
  };
  std::vector<double> spans(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double s = span(i);
    for (ir::LayerId in : net.layers[i].inputs) s = std::max(s, span(in));
    spans[i] = s;
  }
  return spans;
}

// Workload::l2_forward: each layer's forward less the values it reads and writes, never below what it
// reads of its weights.
std::vector<PassCost> l2_forwards(const ir::Network& net, const Workload& w, double weight_width) {
  const std::int64_t batch = w.options.batch;
  const ir::Precision p = w.options.precision;
  std::vector<PassCost> forwards(net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const ir::Layer& layer = net.layers[i];
    const OpCost& c = w.cost(i);
    double inputs = 0.0;
    for (ir::LayerId in : layer.inputs) inputs += value_bytes(net.layers[in], batch, p);
    const double own = c.view ? 0.0 : value_bytes(layer, batch, p);
    PassCost& f = forwards[i] = c.forward;
    f.bytes_read = std::max(c.forward.bytes_read - inputs, std::min(c.forward.bytes_read, c.params * weight_width));
    f.bytes_written = std::max(0.0, c.forward.bytes_written - own);
  }
  return forwards;
}

// What a device may change about a layer of these costs (Workload::Adds).
std::uint8_t adds_of(const OpCost& c) {
  const auto any = [](const auto&... passes) { return ((passes.kernels > 0 || passes.bytes() > 0) || ...); };
  return static_cast<std::uint8_t>(
      (any(c.nchw_forward, c.nchw_backward) ? Workload::kConversions : 0) |
      (any(c.bias_forward, c.bias_backward, c.indices_forward, c.copy_forward, c.copy_backward) ? Workload::kEagerKernels : 0) |
      (c.narrow_input ? Workload::kNarrowInput : 0) | (c.unit_stride_1x1 ? Workload::kUnitStride1x1 : 0));
}

// Workload::groups: layers with the same costs, heap growth, recomputation and L2 span.
void group_layers(Workload& w) {
  const std::size_t n = w.cost_of.size();
  w.groups.clear();
  w.group_of.assign(n, 0);
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash;   // hash -> group
  by_hash.reserve(w.costs.size());
  for (std::size_t id = 0; id < n; ++id) {
    const std::uint64_t key = mix(mix(w.cost_of[id], w.activation_growth[id]), w.l2_span[id]);
    auto [lo, hi] = by_hash.equal_range(key);
    const auto found = std::find_if(lo, hi, [&](const auto& entry) {
      const std::size_t first = w.groups[entry.second].first;
      return w.cost_of[first] == w.cost_of[id] && w.activation_growth[first] == w.activation_growth[id] &&
             w.recomputed[first] == w.recomputed[id] && w.l2_span[first] == w.l2_span[id] &&
             w.l2_forward[first] == w.l2_forward[id];
    });
    if (found != hi) {
      w.group_of[id] = found->second;
      w.groups[found->second].size += 1;
    } else {
      w.group_of[id] = static_cast<std::uint32_t>(w.groups.size());
      by_hash.emplace(key, w.group_of[id]);
      const std::uint32_t cost = w.cost_of[id];
      const OpCost& c = w.costs[cost];
      w.groups.push_back({.first = id,
                          .size = 1,
                          .cost = cost,
                          .op_class = c.op_class,
                          .matrix_unit = c.matrix_unit,
                          .sparse = c.sparse,
                          .recomputed = w.recomputed[id],
                          .flash = c.flash.has_value(),
                          .adds = adds_of(c),
                          .forward = c.forward,
                          .forward_train = c.forward_train,
                          .backward = c.backward,
                          .l2_forward = w.l2_forward[id],
                          .rows_forward = c.rows_forward,
                          .l2_span = w.l2_span[id],
                          .activation_growth = w.activation_growth[id]});
    }
  }
}

}  // namespace

Workload workload(const ir::Network& net, const Options& opt) {
  if (opt.batch < 1 || opt.batch > kMaxBatch)
    throw WorkloadError("batch " + std::to_string(opt.batch) + " is outside [1, " + std::to_string(kMaxBatch) + "]");
  check_network(net);
  if (opt.weight_bytes && !(*opt.weight_bytes > 0.0 && *opt.weight_bytes <= 8.0))
    throw WorkloadError("weight bytes per parameter must be in (0, 8]");

  Workload w;
  w.network = &net;
  w.options = opt;
  // The tensors between kernels at `width`; the weight matrices at the run's precision (a quantised
  // stack keeps the activations at 16 bits: engine/quant_storage.hpp).
  const ir::Runtime* const stack = opt.runtime.get();
  const ir::Precision stored = quant::activation_precision(stack, opt.precision);
  const double width = ir::bytes_per_element(stored);
  const double weight_width = opt.weight_bytes.value_or(ir::bytes_per_element(opt.precision));
  const double kv_width = ir::bytes_per_element(quant::kv_cache_precision(stack, opt.precision));
  w.mixed = opt.master_weights.value_or(width < 4.0);
  const double state_width = w.mixed ? 4.0 : width;   // master weights and optimizer states
  const ir::Op attention_op = ir::op("attention");
  const std::optional<std::string> attention_kernel = runtime::attention_kernel(opt.runtime.get());
  double selective_dropped = 0.0;
  w.fusion = fusion::plan(net, opt.runtime.get());
  const double element_bytes = static_cast<double>(opt.batch) * width;
  const std::vector<layout::Copies> copies = layout::eager_copies(net, opt.memory_format == MemoryFormat::ChannelsLast);

  // Filled layer by layer: a layer's needs depend on earlier ones' outputs. One GradNeeds reused.
  std::vector<bool> needs_grad;
  needs_grad.reserve(net.layers.size());
  GradNeeds grad;
  std::map<std::array<double, 6>, int> gemm_ids;   // (m, n, k, count, B stored, sparse) -> index in w.gemms
  Totals& t = w.counts;
  w.cost_of.reserve(net.layers.size());
  std::unordered_multimap<std::uint64_t, std::uint32_t> distinct;   // cost_hash -> index in w.costs
  w.recomputed.assign(net.layers.size(), false);
  w.saved_bytes.assign(net.layers.size(), 0.0);
  std::vector<bool> kept(net.layers.size(), false);   // per layer: a later backward reads its value
  // One buffer of input shapes for every layer: refilled in place, it allocates only when a layer
  // has more inputs or longer shapes than any before (a fresh vector per layer showed in profiles).
  std::vector<ir::Shape> shapes;
  for (std::size_t id = 0; id < net.layers.size(); ++id) {
    const ir::Layer& layer = net.layers[id];
    shapes.resize(layer.inputs.size());
    for (std::size_t k = 0; k < layer.inputs.size(); ++k) shapes[k] = net.layers.at(layer.inputs[k]).output;
    grad_needs(layer, ir::weight_count(layer, shapes) > 0, needs_grad, grad);
    needs_grad.push_back(grad.output);
    OpCost c = attention_kernel && layer.op == attention_op && layer.attrs.s("kernel") != *attention_kernel
                    ? op_cost(with_kernel(layer, *attention_kernel), shapes, opt.batch, opt.precision, grad, weight_width, width, kv_width)
                    : op_cost(layer, shapes, opt.batch, opt.precision, grad, weight_width, width, kv_width);
    quant::add_casts(c, layer, shapes, opt.batch, opt.precision, stack);
    if (!w.fusion.empty()) {
      fusion::apply(c.forward, w.fusion.forward[id], element_bytes);
      if (!w.fusion.forward_train.empty()) {
        fusion::apply(c.forward_train, w.fusion.forward_train[id], element_bytes);
        fusion::apply(c.backward, w.fusion.backward[id], element_bytes);
      }
    }
    if (opt.sparsity) sparsity::apply_two_four(c, weight_width);
    if (const layout::Copies& copy = copies[id]; copy.kernels > 0) {
      const double bytes = copy.elements * element_bytes;
      c.copy_forward = PassCost{0.0, bytes, bytes, copy.kernels};
      if (grad.output) c.copy_backward = c.copy_forward;
    }
    for (PassGemms* pass : {&c.gemm_forward, &c.gemm_backward})
      for (int i = 0; i < pass->count; ++i) {
        const kernels::Gemm& g = pass->gemms[static_cast<std::size_t>(i)];
        auto [it, added] = gemm_ids.try_emplace(std::array{g.m, g.n, g.k, g.count, g.b_stored, g.sparse ? 1.0 : 0.0},
                                                static_cast<int>(w.gemms.size()));
        if (added) w.gemms.push_back(g);
        pass->ids[static_cast<std::size_t>(i)] = it->second;
      }
    if (!exact(c.forward) || !exact(c.forward_train) || !exact(c.backward) || !exact(c.macs))
      inexact("the counts of layer '" + layer.name + "'", net, opt);
    if (c.params > 0) ++w.parameterised_layers;
    t.params += c.params;
    t.macs += c.macs;
    t.flops_fwd += c.forward.flops;
    t.flops_fwd_train += c.forward_train.flops;
    t.flops_bwd += c.backward.flops;
    t.bytes_fwd += c.forward.bytes();
    t.bytes_fwd_train += c.forward_train.bytes();
    t.bytes_bwd += c.backward.bytes();
    t.kernels_fwd += c.forward.kernels;
    t.kernels_bwd += c.backward.kernels;
    // What autograd keeps for this layer's backward: the values it reads (its inputs', its output's
    // storage, marked here and summed once per storage below) and its extras (masks, statistics). A
    // layer off every gradient path has no backward and keeps nothing.
    if (grad.output) {
      if (c.saves.output) kept[id] = true;
      for (std::size_t k = 0; k < layer.inputs.size(); ++k)
        if (c.saves.input(k)) kept[layer.inputs[k]] = true;
      w.saved_bytes[id] = c.saved_bytes;
      t.saved_activation_bytes += c.saved_bytes;
    }
    // Selective recomputation drops attention's saved scores and runs its forward again in backward.
    if (opt.recompute == Recompute::Selective && layer.op == attention_op) {
      selective_dropped += w.saved_bytes[id];
      t.flops_recompute += c.forward_train.flops;
      w.recomputed[id] = true;
    }
    const std::uint64_t key = cost_hash(c);
    auto [lo, hi] = distinct.equal_range(key);
    const auto found = std::find_if(lo, hi, [&](const auto& entry) { return w.costs[entry.second] == c; });
    if (found != hi) {
      w.cost_of.push_back(found->second);
    } else {
      w.cost_of.push_back(static_cast<std::uint32_t>(w.costs.size()));
      distinct.emplace(key, w.cost_of.back());
      w.costs.push_back(c);
    }
  }

  // Optimizer: an elementwise, memory-bound step over the parameters, as the runtime implements it
  // (optimizer_passes): fused, one kernel per parameterised layer (Ridge's model without a runtime), or
  // foreach. It reads the weights (the fp32 master copy under mixed precision), the gradients and the
  // states, writes weights and states, and under mixed precision also the compute-precision copy.
  const OptimizerCost oc = optimizer_cost(opt.optimizer);
  const double P = t.params;
  const bool foreach = opt.runtime && opt.runtime->optimizer == "foreach";
  const OptimizerPasses passes = optimizer_passes(opt.optimizer, oc.states, foreach);
  w.update = {oc.flops_per_param * P, P * (passes.reads * state_width + passes.grad_reads * width),
              P * (passes.writes * state_width + (w.mixed ? width : 0.0)),
              foreach ? passes.steps * foreach_launches(P, w.parameterised_layers) : w.parameterised_layers};
  if (!exact(w.update)) inexact("the optimizer update's counts", net, opt);
  t.flops_update = w.update.flops;
  t.bytes_update = w.update.bytes();
  t.kernels_update = w.update.kernels;
  if (opt.recompute == Recompute::Full) t.flops_recompute = t.flops_fwd_train;

  // Memory footprint.
  w.activation_growth = activation_growth(net, opt.batch, stored);
  t.peak_activation_bytes = std::accumulate(w.activation_growth.begin(), w.activation_growth.end(), 0.0);
  w.l2_span = l2_spans(net, w, weight_width);
  w.l2_forward = l2_forwards(net, w, weight_width);
  group_layers(w);
  const std::vector<std::size_t> root = storage_roots(net);
  // A value read through a view is kept as its storage: the root's.
  std::vector<bool> kept_storage(net.layers.size(), false);
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (kept[i]) kept_storage[root[i]] = true;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (kept_storage[i]) {
      const double bytes = value_bytes(net.layers[i], opt.batch, stored);
      w.saved_bytes[i] += bytes;
      t.saved_activation_bytes += bytes;
    }
  if (opt.recompute == Recompute::Full)
    t.saved_activation_bytes = full_recompute_saved_bytes(net, root, w.saved_bytes, opt.batch, stored);
  else
    t.saved_activation_bytes -= selective_dropped;
  t.weight_bytes = t.params * weight_width;
  t.gradient_bytes = t.params * width;
  t.master_weight_bytes = w.mixed ? t.params * 4.0 : 0.0;
  t.optimizer_state_bytes = t.params * oc.states * state_width;
  t.train_weight_bytes = t.params * width;
  w.fixed_train_bytes = t.train_weight_bytes + t.gradient_bytes + t.master_weight_bytes + t.optimizer_state_bytes;
  t.memory_infer_bytes = t.weight_bytes + t.peak_activation_bytes;
  t.memory_train_bytes = w.fixed_train_bytes + t.saved_activation_bytes;
  if (!exact(t.memory_train_bytes)) inexact("the training memory's bytes", net, opt);
  const ir::Shape& in_shape = net.input().output;
  if (in_shape.size() == 1) t.tokens_per_sample = static_cast<double>(in_shape[0]);
  return w;
}

Report simulate(const Workload& w, const ir::Device& device, Detail detail, kernels::PlanCache* cache) {
  const ir::Network& net = *w.network;
  const Options& opt = w.options;
  const bool full = detail == Detail::Layers;
  Report r;
  r.network = net.name;
  r.batch = opt.batch;
  r.precision = opt.precision;
  r.optimizer = std::string(optimizer_name(opt.optimizer));
  if (opt.runtime) r.runtime = opt.runtime->id;
  if (opt.sparsity && !device.sparsity_2_4)
    throw SimulationError("device '" + device.name + "' declares no 2:4 sparse matrix units (`sparsity = \"2:4\"` in its .hw): "
                          "--sparsity 2:4 needs them");
  r.device = summarise(device, opt.precision, full);
  if (const auto launch = runtime::launch_overhead_s(opt.runtime.get())) {   // the stack's, in place of the device's
    r.device.launch_overhead_s = *launch;
    r.device.launch_overhead_from_device = true;
  }
  const double bw = r.device.bandwidth;
  const double launch = r.device.launch_overhead_s;

  // PPP per op class and pass, looked up once; read at each pass's size below.
  constexpr std::size_t kClasses = ir::kOpClassCount;
  std::array<std::array<PppRule, 3>, kClasses> ppps;
  for (std::size_t k = 0; k < kClasses; ++k) {
    ppps[k][0] = ppp_rule(device, static_cast<ir::OpClass>(k), ir::Pass::Forward);
    ppps[k][1] = ppp_rule(device, static_cast<ir::OpClass>(k), ir::Pass::Backward);
    ppps[k][2] = ppp_rule(device, static_cast<ir::OpClass>(k), ir::Pass::ForwardTrain);
  }
  const FreshMemory fresh = fresh_memory(device);
  // The kernel model's facts at this precision, on the matrix units and on the vector lanes; absent
  // (the flat model) where the device describes no microarchitecture or the flat model was asked for.
  const bool micro = opt.kernel_model == KernelModel::Micro && device.arch && device.kind == ir::DeviceKind::GPU;
  const std::optional<kernels::GpuFacts> matrix_facts =
      micro ? kernels::gpu_facts(device, r.device.matmul_peak_used.precision, r.device.matmul_peak_used.matrix) : std::nullopt;
  // Each distinct GEMM planned once on this device (GEMM layers run on the matrix units' facts): in
  // the sweep's cache where there is one (pointed to, not copied), else here.
  std::vector<kernels::GemmPlan> own_plans;
  std::vector<const kernels::GemmPlan*> plans;
  if (matrix_facts) {
    plans.reserve(w.gemms.size());
    if (cache) {
      kernels::PlanCache::Device& cached = cache->device(*matrix_facts);
      for (const kernels::Gemm& g : w.gemms) plans.push_back(&cached.plan(g));
    } else {
      own_plans.reserve(w.gemms.size());
      for (const kernels::Gemm& g : w.gemms) plans.push_back(&own_plans.emplace_back(kernels::plan_gemm(g, *matrix_facts)));
    }
  }
  const LayerTimer timer{bw, launch, fresh, micro, matrix_facts ? &*matrix_facts : nullptr, plans};
  // Where the device calibrated its fresh pages (a CPU), the inference forward's come from replaying
  // what eager LibTorch allocates through glibc's arena (engine/host_allocator.hpp), in place of
  // FreshMemory's charges; per layer (s), and summed per group of layers that time alike.
  std::vector<double> inference_fresh_s, group_inference_fresh_s;
  if (fresh.first_touch > 0) {
    inference_fresh_s = steady_fresh_bytes(eager_cpu_inference_requests(net, opt.batch, opt.precision), net.layers.size(),
                                           fresh.threshold);
    group_inference_fresh_s.assign(w.groups.size(), 0.0);
    for (std::size_t id = 0; id < inference_fresh_s.size(); ++id) {
      inference_fresh_s[id] /= fresh.first_touch;
      group_inference_fresh_s[w.group_of[id]] += inference_fresh_s[id];
    }
  }
  // A training step's convolutions and max pools map more blocks than their outputs
  // (eager_cpu_training_mapped_bytes): summed per group, in place of FreshMemory's charge for them.
  std::vector<std::optional<TrainingMappedBytes>> group_training_mapped;
  if (fresh.first_touch > 0) {
    const auto mapped = eager_cpu_training_mapped_bytes(net, opt.batch, opt.precision, fresh.threshold);
    group_training_mapped.assign(w.groups.size(), std::nullopt);
    for (std::size_t id = 0; id < mapped.size(); ++id) {
      if (!mapped[id]) continue;
      std::optional<TrainingMappedBytes>& sum = group_training_mapped[w.group_of[id]];
      if (!sum) sum.emplace();
      sum->forward_train += mapped[id]->forward_train;
      sum->backward += mapped[id]->backward;
    }
  }
  const auto with_fresh = [](PassTime pass, double fresh_s) {
    pass.paleo_s += fresh_s - pass.fresh_s;
    pass.fresh_s = fresh_s;
    return pass;
  };
  // The GPU's L2 (0: not given, or the flat model): an inference forward whose span fits runs from it.
  const double l2_size = matrix_facts ? matrix_facts->l2_size : 0.0;
  // 2:4-sparse weights run at twice the matrix peak (the flat model's and the roofline's peak).
  std::optional<PeakUsed> sparse_peak;
  if (opt.sparsity && r.device.matmul_peak_used.matrix) {
    sparse_peak = r.device.matmul_peak_used;
    sparse_peak->flops_per_s *= 2.0;
  }
  // What a GPU's libraries run beside a layer's own kernels, timed and counted as the pass's own:
  // on channels-first tensors, where convolutions run on tensor cores at this precision, each such
  // convolution's layout conversions (OpCost::nchw_forward); and, unless the runtime fuses, the
  // convolution bias PyTorch adds after cuDNN's call (OpCost::bias_forward) and the indices its max
  // pool writes in inference too (OpCost::indices_forward), and the copies PyTorch's view rules make
  // (OpCost::copy_forward). `effective` is a layer's costs as this device runs them.
  const bool gpu = device.kind == ir::DeviceKind::GPU;
  const bool converts = opt.memory_format == MemoryFormat::ChannelsFirst && gpu && r.device.matmul_peak_used.matrix;
  const bool eager_gpu = gpu && !(opt.runtime && !opt.runtime->fusions.empty());
  const auto plus = [](PassCost a, const PassCost& b) {
    a.bytes_read += b.bytes_read;
    a.bytes_written += b.bytes_written;
    a.kernels += b.kernels;
    return a;
  };
  struct Extras {
    PassCost forward, backward;
    PassCost inference;   // the inference forward's alone
    // The gradient's copies: a backward of their own even where the layer (a view) has none.
    PassCost copies_backward;
    bool any() const {
      return forward.bytes() + backward.bytes() + inference.bytes() + copies_backward.bytes() > 0 ||
             forward.kernels + backward.kernels + copies_backward.kernels > 0;
    }
  };
  // with_conversions false: the bias alone (the NCHW note times the conversions by the difference).
  const auto extras_of = [&](const OpCost& c, bool matrix_unit, bool with_conversions) {
    Extras e;
    if (with_conversions && converts && matrix_unit) {
      e.forward = plus(e.forward, c.nchw_forward);
      e.backward = plus(e.backward, c.nchw_backward);
    }
    if (eager_gpu) {
      e.forward = plus(plus(e.forward, c.bias_forward), c.copy_forward);
      e.backward = plus(e.backward, c.bias_backward);
      e.copies_backward = c.copy_backward;
      e.inference = c.indices_forward;
    }
    return e;
  };
  const auto with_extras = [&](RunCost c, const Extras& e) {
    c.forward = plus(plus(c.forward, e.forward), e.inference);
    c.forward_train = plus(c.forward_train, e.forward);
    if (c.backward.kernels > 0) c.backward = plus(c.backward, e.backward);
    c.backward = plus(c.backward, e.copies_backward);
    return c;
  };
  // On a GPU a convolution with under 16 bytes of input channels runs on the CUDA cores unless the
  // runtime pads its channels (ir::OpClass::NarrowConv); on a CPU measured on one thread LibTorch runs
  // a unit-stride 1x1 convolution below batch 16 outside oneDNN (ir::OpClass::PointwiseNative). `base`
  // is a layer's costs in the class it runs in, before the extras.
  const bool narrow_on_vector = gpu && !(opt.runtime && opt.runtime->pads_narrow_channels);
  const bool native_1x1 = libtorch_runs_1x1_natively(device, opt.batch, opt.precision);
  const auto base = [&](std::size_t id) {
    RunCost c = RunCost::of(w.cost(id));
    const std::optional<ir::OpClass> runs_as = narrow_on_vector && c.layer->narrow_input ? std::optional(ir::OpClass::NarrowConv)
                                               : native_1x1 && c.layer->unit_stride_1x1  ? std::optional(ir::OpClass::PointwiseNative)
                                                                                         : std::nullopt;
    if (runs_as) {
      c.op_class = *runs_as;   // both classes run off the matrix units
      c.matrix_unit = false;
    }
    return c;
  };
  // A layer as this device runs it; `extras`, where given, receives what was added (the extra kernels'
  // traffic for the totals, the conversions for the NCHW note), and `l2`, the inference forward's
  // DRAM traffic from L2 with the extra kernels counted: run from L2, they read and write values the
  // layer has just made there, so their launches and fixed times count and their bytes are the L2's.
  const auto effective = [&](std::size_t id, Extras* extras = nullptr, PassCost* l2 = nullptr) {
    const RunCost c = base(id);
    const Extras e = extras_of(*c.layer, c.matrix_unit, true);
    if (extras) *extras = e;
    if (l2) {
      *l2 = w.l2_forward[id];
      l2->kernels += e.forward.kernels;
    }
    return e.any() ? with_extras(c, e) : c;
  };
  const std::uint8_t device_adds = (converts ? Workload::kConversions : 0) | (eager_gpu ? Workload::kEagerKernels : 0) |
                                   (narrow_on_vector ? Workload::kNarrowInput : 0) | (native_1x1 ? Workload::kUnitStride1x1 : 0);
  // A group as this device runs it: from the group's record where the device changes nothing about its
  // layers (Workload::Adds), which spares the sweep's loop their OpCosts; else as effective() has it.
  const auto effective_group = [&](const Workload::Group& group, Extras* extras, PassCost* l2) {
    if (!(group.adds & device_adds)) {
      *extras = Extras{};
      *l2 = group.l2_forward;
      return RunCost{&w.costs[group.cost], group.op_class, group.matrix_unit, group.flash, &group.rows_forward,
                     group.forward, group.forward_train, group.backward};
    }
    return effective(group.first, extras, l2);
  };
  double conversion_s = 0.0;
  Totals& t = r.totals;
  t = w.counts;   // the device-independent figures; the times are added below
  std::bitset<ir::kOpClassCount> default_ppp_classes;   // bit k: op class k ran with a default PPP
  // Each group of layers that time alike (Workload::groups) is timed once and counted `size` times.
  struct GroupTime {
    Ppp fwd_ppp, bwd_ppp;
    PassTime fwd, fwd_train, bwd;
    std::optional<kernels::GemmPlan> largest_fwd;
  };
  // The host that issues the kernels, where the runtime times it (host_dispatch.hpp): a GPU's passes
  // then follow its clock over the layers in order.
  const ir::Runtime* const stack = opt.runtime.get();
  const bool host_paced = gpu && stack && (stack->host_forward_op || stack->host_backward_op);
  // Kept per group only for the per-layer rows and the host's clock; a sweep's totals need one group's
  // times at a time (a vector of them, each with its GEMM plan, was most of what a sweep's simulation
  // wrote to memory).
  const bool keep_times = full || host_paced;
  std::vector<GroupTime> times(keep_times ? w.groups.size() : 0);
  GroupTime scratch;
  for (std::size_t g = 0; g < w.groups.size(); ++g) {
    const Workload::Group& group = w.groups[g];
    const double size = group.size;
    Extras e;
    PassCost l2_forward;
    const RunCost c = effective_group(group, &e, &l2_forward);
    const std::size_t k = static_cast<std::size_t>(c.op_class);
    const PeakUsed& peak = group.sparse && sparse_peak ? *sparse_peak : c.matrix_unit ? r.device.matmul_peak_used : r.device.vector_peak_used;
    GroupTime& gt = keep_times ? times[g] : scratch;
    gt.fwd_ppp = ppps[k][0].at(c.forward);
    gt.bwd_ppp = ppps[k][1].at(c.backward);
    const Ppp train_ppp = ppps[k][2].at(c.forward_train);
    const LayerTimes lt = timer.time(c, peak, gt.fwd_ppp, train_ppp, gt.bwd_ppp, full ? &gt.largest_fwd : nullptr,
                                     l2_size > 0.0 && group.l2_span <= l2_size ? &l2_forward : nullptr);
    if (e.any()) {   // the extra kernels' traffic and count in the totals, and the conversions' time for the note
      t.bytes_fwd += size * (e.forward.bytes() + e.inference.bytes());
      t.bytes_fwd_train += size * e.forward.bytes();
      t.kernels_fwd += static_cast<int>(size) * e.forward.kernels;
      if (c.layer->backward.kernels > 0) {
        t.bytes_bwd += size * e.backward.bytes();
        t.kernels_bwd += static_cast<int>(size) * e.backward.kernels;
      }
      t.bytes_bwd += size * e.copies_backward.bytes();
      t.kernels_bwd += static_cast<int>(size) * e.copies_backward.kernels;
      if (full && converts && c.matrix_unit && c.layer->nchw_forward.kernels > 0) {   // a sweep's totals carry no notes
        const RunCost plain_cost = base(group.first);
        const LayerTimes plain =
            timer.time(with_extras(plain_cost, extras_of(*plain_cost.layer, plain_cost.matrix_unit, false)), peak, gt.fwd_ppp, train_ppp, gt.bwd_ppp);
        conversion_s += size * (lt.forward_train.paleo_s - plain.forward_train.paleo_s + lt.backward.paleo_s - plain.backward.paleo_s);
      }
    }
    gt.fwd = lt.forward;
    gt.fwd_train = lt.forward_train;
    gt.bwd = lt.backward;
    if (!group_training_mapped.empty() && group_training_mapped[g]) {
      const TrainingMappedBytes& mapped = *group_training_mapped[g];
      gt.fwd_train = with_fresh(gt.fwd_train, mapped.forward_train / size / fresh.first_touch);
      if (c.backward.kernels > 0) gt.bwd = with_fresh(gt.bwd, mapped.backward / size / fresh.first_touch);
    }
    // The heap grows for this layer's output in each forward, and again in the backward for its
    // gradient where it has one (FreshMemory).
    const double heap_s = fresh.heap_seconds(group.activation_growth, c.forward);
    const auto charge = [heap_s](PassTime& pass) {
      pass.fresh_s += heap_s;
      pass.paleo_s += heap_s;
    };
    charge(gt.fwd);
    charge(gt.fwd_train);
    if (!group_inference_fresh_s.empty()) gt.fwd = with_fresh(gt.fwd, group_inference_fresh_s[g] / size);
    if (c.backward.kernels > 0) charge(gt.bwd);

    const bool ran = c.forward.kernels + c.forward_train.kernels + c.backward.kernels > 0;
    if (ran && (gt.fwd_ppp.compute_default || gt.fwd_ppp.memory_default || gt.bwd_ppp.compute_default ||
                gt.bwd_ppp.memory_default))
      default_ppp_classes.set(k);

    t.roofline_fwd_s += size * gt.fwd.roofline_s;
    t.roofline_fwd_train_s += size * gt.fwd_train.roofline_s;
    t.roofline_bwd_s += size * gt.bwd.roofline_s;
    t.time_fwd_s += size * gt.fwd.paleo_s;
    t.time_fwd_train_s += size * gt.fwd_train.paleo_s;
    t.time_bwd_s += size * gt.bwd.paleo_s;
    if (group.recomputed) t.time_recompute_s += size * gt.fwd_train.paleo_s;
  }
  if (full) {
    r.layers.reserve(net.layers.size());
    for (std::size_t id = 0; id < net.layers.size(); ++id) {
      const RunCost c = effective(id);
      const GroupTime& gt = times[w.group_of[id]];
      const ir::Layer& layer = net.layers[id];
      r.layers.push_back({.name = layer.name,
                          .op = layer.op,
                          .op_class = c.op_class,
                          .output_shape = layer.output,
                          .view = c.layer->view,
                          .params = c.layer->params,
                          .macs = c.layer->macs,
                          .saved_bytes = w.saved_bytes[id],
                          .fwd = c.forward,
                          .fwd_train = c.forward_train,
                          .bwd = c.backward,
                          .time_fwd = inference_fresh_s.empty() ? gt.fwd : with_fresh(gt.fwd, inference_fresh_s[id]),
                          .time_fwd_train = gt.fwd_train,
                          .time_bwd = gt.bwd,
                          .peak = c.layer->sparse && sparse_peak ? *sparse_peak : c.matrix_unit ? r.device.matmul_peak_used : r.device.vector_peak_used,
                          .ppp_fwd = gt.fwd_ppp,
                          .ppp_bwd = gt.bwd_ppp,
                          .gemm_fwd = gt.largest_fwd,
                          .kernel = w.fusion.empty() || w.fusion.pattern[id].empty()
                                        ? std::string()
                                        : net.layers[w.fusion.forward[id].kernel].name});
    }
  }

  // The optimizer step, timed with the elementwise backward PPP.
  const PassTime update_time = time_pass(w.update, r.device.vector_peak_used, bw,
                                         ppp(device, ir::OpClass::Elementwise, ir::Pass::Backward, w.update), launch);
  t.roofline_update_s = update_time.roofline_s;
  t.time_update_s = update_time.paleo_s;
  if (opt.recompute == Recompute::Full) t.time_recompute_s = t.time_fwd_train_s;
  const double gpu_fwd_s = t.time_fwd_s, gpu_train_step_s = t.time_fwd_train_s + t.time_bwd_s + t.time_recompute_s + t.time_update_s;
  if (host_paced) {
    // Each layer but the input is a call from the host; each layer with a backward, a node of autograd's.
    const double forward_op = stack->host_forward_op ? stack->host_forward_op->value : 0.0;
    const double backward_op = stack->host_backward_op ? stack->host_backward_op->value : 0.0;
    const std::size_t n = net.layers.size();
    const auto at = [&](std::size_t id) -> const GroupTime& { return times[w.group_of[id]]; };
    HostClock inference, step;
    for (std::size_t id = 1; id < n; ++id) {
      inference.issue(forward_op, at(id).fwd.paleo_s);
      step.issue(forward_op, at(id).fwd_train.paleo_s);
    }
    const double forward_end = step.gpu_s();
    // Recomputation calls the forward's layers again before their backward (checkpointing).
    for (std::size_t id = 1; id < n; ++id)
      if (opt.recompute == Recompute::Full || w.recomputed[id]) step.issue(forward_op, at(id).fwd_train.paleo_s);
    for (std::size_t id = n; id-- > 1;)
      if (effective(id).backward.kernels > 0) step.issue(backward_op, at(id).bwd.paleo_s);
    t.time_fwd_s = inference.gpu_s();
    t.time_fwd_train_s = forward_end;
    t.time_bwd_s = step.gpu_s() - forward_end - t.time_recompute_s;
    t.host_fwd_s = inference.host_s();
    t.host_train_step_s = step.host_s();
    t.host_forward_op_s = forward_op;
    t.host_backward_op_s = backward_op;
  }
  t.time_train_step_s = t.time_fwd_train_s + t.time_bwd_s + t.time_recompute_s + t.time_update_s;
  t.roofline_train_step_s = t.roofline_fwd_train_s + t.roofline_bwd_s + t.roofline_update_s;
  const double batch = static_cast<double>(opt.batch);
  t.throughput_infer = t.time_fwd_s > 0 ? batch / t.time_fwd_s : 0.0;
  t.throughput_train = t.time_train_step_s > 0 ? batch / t.time_train_step_s : 0.0;
  // Extreme but legal device figures (a peak of 4.9e-324 FLOP/s, a bandwidth of 1.7e308 B/s) can push a
  // time, a rate or a ridge point past a double's range: refuse rather than report inf.
  for (const double v : {t.time_fwd_s, t.time_train_step_s, t.roofline_fwd_s, t.roofline_train_step_s,
                         t.throughput_infer, t.throughput_train, r.device.ridge_point, r.device.ridge_point_vector})
    if (!std::isfinite(v))
      throw SimulationError("device '" + r.device.id + "' has figures so extreme that times or rates overflow; "
                            "check its peaks and bandwidth");

  if (r.device.memory_bytes) {
    const double mem = *r.device.memory_bytes;
    t.fits_infer = t.memory_infer_bytes <= mem;
    t.fits_train = t.memory_train_bytes <= mem;
    // Activations grow in proportion to the batch; weights and optimizer state do not.
    const auto largest = [&](double fixed, double per_batch_bytes) -> std::int64_t {
      if (fixed > mem) return 0;
      if (per_batch_bytes <= 0.0) return kMaxBatch;
      return static_cast<std::int64_t>(std::min<double>(std::floor((mem - fixed) / per_batch_bytes), kMaxBatch));
    };
    t.max_batch_infer = largest(t.weight_bytes, t.peak_activation_bytes / batch);
    t.max_batch_train = largest(w.fixed_train_bytes, t.saved_activation_bytes / batch);
  }
  // Utilisation of the matrix peak (Megatron-LM, Narayanan et al. 2021; llm-foundry): model FLOPs
  // count forward and backward once; hardware FLOPs add what recomputation runs again.
  const double model_flops = t.flops_fwd_train + t.flops_bwd;
  const double peak_flops = r.device.matmul_peak_used.flops_per_s;
  if (t.time_train_step_s > 0 && peak_flops > 0) {
    t.mfu = model_flops / (t.time_train_step_s * peak_flops);
    t.hfu = (model_flops + t.flops_recompute) / (t.time_train_step_s * peak_flops);
  }
  if (!full) return r;

  // What a reader needs to trust the numbers.
  const DeviceSummary& d = r.device;
  const double width = ir::bytes_per_element(quant::activation_precision(opt.runtime.get(), opt.precision));
  // A quantised stack's activations are wider than its GEMMs' inputs (engine/quant_storage.hpp).
  const std::string narrow = quant::casts(opt.runtime.get(), opt.precision)
                                 ? ", the weight matrices and their GEMMs' inputs at " + std::string(ir::precision_name(opt.precision)) +
                                       " (the runtime's casts: " + opt.runtime->quant_cast + ", scaling " + opt.runtime->quant_scaling + ")"
                                 : std::string();
  r.notes.push_back(note("report-counting", "counting: FLOPs count a multiply-add as 2; MACs count conv/linear/matmul only "
                                             "(torchvision's published GFLOPS are MACs); bytes at " +
                                                 std::to_string(static_cast<int>(width)) + " B per element" + narrow));
  std::string peak_note = "peak: conv/linear/matmul use the " + d.matmul_peak_used.describe() + " peak (" +
                          si_flops(d.matmul_peak_used.flops_per_s) + ")";
  if (!d.matmul_peak_used.matrix)
    peak_note += ", the device having no " + std::string(ir::precision_name(opt.precision)) + " matrix unit";
  peak_note += "; other ops the " + d.vector_peak_used.describe() + " peak (" +
               si_flops(d.vector_peak_used.flops_per_s) + ")";
  if (d.vector_peak_used.precision != opt.precision)
    peak_note += ", the device giving no " + std::string(ir::precision_name(opt.precision)) + " vector peak";
  r.notes.push_back(note("report-peak", peak_note));
  if (matrix_facts)
    r.notes.push_back(note("report-kernel-model", "kernel model: conv/linear/matmul timed from the device's microarchitecture (" +
                      std::string(matrix_facts->family) + ", " + std::to_string(static_cast<int>(matrix_facts->sms)) +
                      " SMs: tiles, waves, main loop, L2 and DRAM); elementwise, norms, softmax, pooling, reductions and "
                      "copies as streams at the achieved DRAM rate; depthwise convolutions, and those on a few input "
                      "channels (CUDA cores), by PALEO; a kernel's launch overlaps the GPU's work; --kernel-model flat "
                      "for PALEO throughout"));
  // Classes the kernel model times (GEMMs on the matrix units, streams) take no PPP unless the device
  // calibrated one: no default to report.
  std::vector<std::string> defaulted;
  for (const ir::OpClassRow& row : ir::kOpClasses) {
    const auto k = static_cast<std::size_t>(row.op_class);
    if (!default_ppp_classes.test(k) || (matrix_facts && (row.matrix_unit || row.streams))) continue;
    defaulted.emplace_back(row.name);
  }
  if (!defaulted.empty()) r.notes.push_back(warning("report-default-ppp", "PALEO: default PPP (not calibrated) for " + join(defaulted)));
  if (fresh.first_touch > 0)
    r.notes.push_back(note("report-fresh-memory", "fresh memory, faulted in at " + std::to_string(fresh.first_touch / 1e9).substr(0, 5) +
                      " GB/s (allocator.first_touch): inference, the pages eager LibTorch's requests fault in, replayed "
                      "through glibc's arena; training, each block above " + std::to_string(static_cast<long long>(fresh.threshold / 1048576)) +
                      " MiB a pass writes (a convolution's oneDNN copies and a max pool's indices where above twice that), and the heap's "
                      "growth to the forward's peak"));
  if (const ir::Runtime* rt = opt.runtime.get()) {
    std::string said;
    if (rt->launch_overhead) said += ", launch overhead " + std::to_string(rt->launch_overhead->value * 1e6).substr(0, 4) + " us a kernel";
    if (rt->attention) said += ", attention kernel " + *rt->attention;
    if (rt->last_position_logits) said += ", a prefill's logits for the last position only";
    if (rt->step_overhead) said += ", host " + std::to_string(rt->step_overhead->value * 1e3).substr(0, 5) + " ms a pass";
    if (rt->host_forward_op || rt->host_backward_op) said += ", the host issuing each op (below)";
    if (rt->optimizer != "fused") said += ", a " + rt->optimizer + " update";
    r.notes.push_back(note("report-runtime", "runtime " + rt->id + " (" + rt->name + ", " + rt->version + ")" +
                                                 (said.empty() ? ": as the network and device say" : said)));
  }
  if (host_paced) {
    const auto ms = milliseconds;
    const auto us = [](const std::optional<ir::Figure>& f) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f us", f ? 1e6 * f->value : 0.0);
      return std::string(text);
    };
    const auto bound = [](double host_s, double gpu_s) { return host_s > gpu_s ? " (host-bound)" : ""; };
    r.notes.push_back(note("report-host", "host: " + stack->id + " issues each layer in " + us(stack->host_forward_op) + " (forward) and " +
                                              us(stack->host_backward_op) + " (backward), the GPU following: inference " + ms(t.host_fwd_s) +
                                              " of host against " + ms(gpu_fwd_s) + " of GPU work" + bound(t.host_fwd_s, gpu_fwd_s) +
                                              ", training step " + ms(t.host_train_step_s) + " against " + ms(gpu_train_step_s) +
                                              bound(t.host_train_step_s, gpu_train_step_s)));
  }
  if (!d.launch_overhead_from_device)
    r.notes.push_back(warning("report-no-launch-overhead", "PALEO: the device gives no launch overhead; 0 s per kernel assumed"));
  std::string step_note = "training step = training-mode forward + backward";
  if (opt.recompute != Recompute::None)
    step_note += " + " + std::string(recompute_name(opt.recompute)) + " recomputation";
  step_note += " + " + std::string(optimizer_name(opt.optimizer)) + " update";
  if (w.mixed && width < 4.0) step_note += "; mixed precision: fp32 master weights and optimizer states";
  r.notes.push_back(note("report-training-step", step_note));
  if (converts && conversion_s > 0.0) {
    r.notes.push_back(note("report-nchw", "channels-first (NCHW) tensors: the tensor-core convolutions' layout conversions take " +
                                              milliseconds(conversion_s) + " of the training step (--memory-format nhwc: none)"));
  }
  if (!d.memory_bytes) r.notes.push_back(warning("report-no-memory-size", "memory: the device gives no memory size; fit unknown"));
  return r;
}

Report simulate(const ir::Network& net, const ir::Device& device, const Options& opt) {
  return simulate(workload(net, opt), device, Detail::Layers);
}

Sweep::Sweep(const ir::Network& network, Options options) : network_(network), options_(std::move(options)) {}

Totals Sweep::totals(const ir::Device& device, std::int64_t batch, ir::Precision precision) {
  const auto key = std::pair{batch, precision};
  auto it = workloads_.find(key);
  if (it == workloads_.end()) {
    Options o = options_;
    o.batch = batch;
    o.precision = precision;
    it = workloads_.emplace(key, workload(network_, o)).first;
  }
  return simulate(it->second, device, Detail::Totals, &plans_).totals;
}

}  // namespace ridge::engine
