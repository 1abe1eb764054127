#include "engine/generation.hpp"

#include "engine/quant_storage.hpp"
#include "engine/runtime.hpp"

#include "engine/parallel/collectives.hpp"
#include "engine/parallel/transformer.hpp"
#include "engine/timing.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ridge::engine {

double kv_cache_bytes_per_token(const ir::Network& net, ir::Precision p) {
  const ir::Op attention = ir::op("attention");
  double per_token = 0.0;
  for (const ir::Layer& l : net.layers)
    if (l.op == attention)
      per_token += static_cast<double>(net.layers.at(l.inputs.at(1)).output.back() +
                                       net.layers.at(l.inputs.at(2)).output.back());
  return per_token * ir::bytes_per_element(p);
}

namespace {

// One phase on T x P devices (the header's formulas): one rank's layers, and the communication.
struct Placed {
  double rank_s = 0.0;
  double communication_s = 0.0;
  double seconds() const { return rank_s + communication_s; }
};

// What the parallel model reads of the network once: its shape, the sizes the collectives move.
struct Sharding {
  GenerationParallel parallel;
  parallel::TransformerShape shape;
  parallel::Topology topology;
  double kv_heads = 0.0;   // of the first attention layer
};

Sharding sharding(const ir::Network& net, const ir::Device& device, const GenerationParallel& p) {
  Sharding s{p, parallel::describe_transformer(net), {}, 0.0};
  if (p.tensor < 1 || p.pipeline < 1) throw SimulationError("tensor and pipeline parallelism take 1 or more devices each");
  if (p.devices() == 1) return s;
  if (!s.shape.is_transformer())
    throw SimulationError("network '" + net.name + "' has no transformer blocks to split over devices");
  if (s.shape.heads % p.tensor != 0)
    throw SimulationError("--tensor-parallel " + std::to_string(p.tensor) + " does not divide the " +
                          std::to_string(s.shape.heads) + " attention heads of '" + net.name + "'");
  if (p.pipeline > s.shape.layers)
    throw SimulationError("--pipeline-parallel " + std::to_string(p.pipeline) + " is more stages than the " +
                          std::to_string(s.shape.layers) + " blocks of '" + net.name + "'");
  s.topology = parallel::topology_of(device, p.link, true);
  if (p.devices() > s.topology.devices)
    throw SimulationError(std::to_string(p.tensor) + " x " + std::to_string(p.pipeline) + " = " + std::to_string(p.devices()) +
                          " devices is more than system '" + device.name + "' has (" + std::to_string(s.topology.devices) + ")");
  const ir::Op attention = ir::op("attention");
  for (const ir::Layer& l : net.layers)
    if (l.op == attention) {
      const double d = static_cast<double>(net.layers.at(l.inputs.at(0)).output.back()) / static_cast<double>(l.attrs.i("heads"));
      s.kv_heads = static_cast<double>(net.layers.at(l.inputs.at(1)).output.back()) / d;
      break;
    }
  return s;
}

Placed place(const Report& r, const Sharding& s, double tokens, const ir::Runtime* stack) {
  const int T = s.parallel.tensor, P = s.parallel.pipeline;
  Placed out;
  if (s.parallel.devices() == 1) {   // one device: the report's own total, as summed there
    out.rank_s = r.totals.time_fwd_s;
    return out;
  }
  for (const LayerRow& row : r.layers) {
    const double t = row.time_fwd.paleo_s;
    // Every rank launches every kernel of a split layer, on its share of the work.
    out.rank_s += T == 1 || parallel::tensor_parallel_repeats(row, s.shape)
                      ? t
                      : std::max(t / T, row.fwd.kernels * r.device.launch_overhead_s);
  }
  // The activations the ranks exchange, at the width the stack keeps them (engine/quant_storage.hpp).
  const double width = ir::bytes_per_element(quant::activation_precision(stack, r.precision));
  const double hidden = tokens * static_cast<double>(s.shape.hidden) * width;
  using parallel::Collective;
  const int node = s.topology.node_devices(s.parallel.devices());
  if (T > 1) {
    const parallel::Group group{T, std::min(T, node)};
    out.communication_s += (2.0 * s.shape.layers + 1.0) * parallel::collective_seconds(Collective::AllReduce, hidden, group, s.topology);
    if (s.shape.vocab > 0)
      out.communication_s += parallel::collective_seconds(
          Collective::AllGather, tokens * static_cast<double>(s.shape.vocab) * width, group, s.topology);
  }
  if (P > 1)   // a stage boundary inside a node while the T x P devices fit one
    out.communication_s += (P - 1) * parallel::collective_seconds(Collective::PointToPoint, hidden,
                                                                   {2, s.parallel.devices() <= node ? 2 : 1}, s.topology);
  return out;
}

// Bytes one device holds of the weights (split weights / T + repeated ones, over P stages).
double weights_per_device(const Report& r, const Sharding& s) {
  const int T = s.parallel.tensor, P = s.parallel.pipeline;
  if (T * P == 1 || r.totals.params <= 0) return r.totals.weight_bytes;
  const double per_param = r.totals.weight_bytes / r.totals.params;
  double repeated = 0.0;
  for (const LayerRow& row : r.layers)
    if (parallel::tensor_parallel_repeats(row, s.shape)) repeated += row.params;
  const double split = std::max(0.0, r.totals.params - repeated);
  return (split / T + repeated) * per_param / P;
}

// A phase's network as the runtime runs it: a prefill's logits for the last position only, where
// the runtime says so (engine/runtime.hpp).
ir::Network phase_network(const NetworkAt& network_at, const Options& o, std::int64_t seq_len, std::int64_t past) {
  ir::Network net = network_at(seq_len, past);
  if (o.runtime && o.runtime->last_position_logits && seq_len > 1) return runtime::last_position_logits(std::move(net));
  return net;
}

}  // namespace

double phase_seconds(const NetworkAt& network_at, const ir::Device& device, const Options& o,
                     const GenerationParallel& parallel, std::int64_t seq_len, std::int64_t past) {
  const ir::Network net = phase_network(network_at, o, seq_len, past);
  const Sharding sharded = sharding(net, device, parallel);
  return place(simulate(net, device, o), sharded, static_cast<double>(o.batch) * static_cast<double>(seq_len), o.runtime.get()).seconds() +
         runtime::step_overhead_s(o.runtime.get());
}

Generation generate(const NetworkAt& network_at, const ir::Device& device, const Options& o, std::int64_t prompt,
                    std::int64_t count, const GenerationParallel& parallel) {
  constexpr std::int64_t kMaxTokens = std::int64_t{1} << 20;
  if (prompt < 1 || prompt > kMaxTokens || count < 1 || count > kMaxTokens)
    throw SimulationError("the prompt and the tokens to generate must each be between 1 and " + std::to_string(kMaxTokens));
  Generation g;
  g.batch = o.batch;
  g.prompt = prompt;
  g.generate = count;

  const ir::Network prefill_net = phase_network(network_at, o, prompt, 0);
  g.kv_cache_bytes_per_token = kv_cache_bytes_per_token(prefill_net, quant::kv_cache_precision(o.runtime.get(), o.precision));
  if (g.kv_cache_bytes_per_token == 0.0)
    throw SimulationError("network '" + prefill_net.name + "' has no attention layer: there is no KV cache to decode against");
  const Sharding sharded = sharding(prefill_net, device, parallel);
  g.tensor_parallel = parallel.tensor;
  g.pipeline_parallel = parallel.pipeline;
  g.prefill = simulate(prefill_net, device, o);
  // The prefill's last position gives the first token; each later one is a decode step fed the token
  // before it, against the prompt and the tokens before that: G - 1 steps at past P .. P+G-2. With
  // G = 1 no step runs, and the step at past P is still reported (what the next token would cost).
  const std::int64_t steps = count - 1;
  const Report first = simulate(network_at(1, prompt), device, o);
  g.decode_last = simulate(network_at(1, prompt + std::max<std::int64_t>(steps - 1, 0)), device, o);

  const double batch = static_cast<double>(o.batch);
  const Placed prefill = place(g.prefill, sharded, batch * static_cast<double>(prompt), o.runtime.get());
  const Placed decode_first = place(first, sharded, batch, o.runtime.get());
  const Placed decode_last = place(g.decode_last, sharded, batch, o.runtime.get());
  // The host's work per forward pass, where the runtime gives it.
  const double host = runtime::step_overhead_s(o.runtime.get());
  g.prefill_s = prefill.seconds() + host;
  g.decode_first_s = decode_first.seconds() + host;
  g.decode_last_s = decode_last.seconds() + host;
  g.communication_prefill_s = prefill.communication_s;
  g.communication_decode_s = decode_first.communication_s;   // a decode step's messages do not grow with the cache
  g.decode_per_token_s = 0.5 * (g.decode_first_s + g.decode_last_s);
  g.latency_s = g.prefill_s + static_cast<double>(steps) * g.decode_per_token_s;
  g.tokens_per_s = batch * static_cast<double>(count) / g.latency_s;
  g.decode_tokens_per_s = batch / g.decode_per_token_s;

  const Totals& t = g.prefill.totals;
  g.weight_bytes = t.weight_bytes;
  // The last token is never fed back: the cache peaks at the prompt and the first G - 1 tokens.
  g.kv_cache_bytes = batch * static_cast<double>(prompt + count - 1) * g.kv_cache_bytes_per_token;
  g.activation_bytes = t.peak_activation_bytes;
  g.memory_bytes = g.weight_bytes + g.kv_cache_bytes + g.activation_bytes;
  const int T = parallel.tensor, P = parallel.pipeline;
  // Fewer KV heads than ranks: each rank keeps whole heads, some of them repeated (as vLLM does).
  const double kv_ways = T == 1 ? 1.0 : std::min<double>(T, std::max(1.0, sharded.kv_heads));
  const double weights_here = weights_per_device(g.prefill, sharded);
  const double kv_here = g.kv_cache_bytes / (kv_ways * P);
  const double activations_here = g.activation_bytes / T;
  g.memory_per_device_bytes = weights_here + kv_here + activations_here;
  g.weights_per_device_bytes = weights_here;
  g.kv_bytes_per_token_per_device = g.kv_cache_bytes_per_token / (kv_ways * P);
  g.activations_per_device_bytes = activations_here;
  // What no decode step can beat: the first step's roofline, the bytes it reads (the weights it
  // touches, which for a mixture of experts are the routed experts' only, and the KV cache) at the
  // datasheet's bandwidth. Counting every weight (issue #41) put Mixtral's prediction at 0.48 x "its
  // bound". Every later step reads more cache.
  g.decode_bound_s = first.totals.roofline_fwd_s / T;
  if (g.decode_first_s < g.decode_bound_s * (1 - 1e-9) || g.decode_last_s < g.decode_bound_s * (1 - 1e-9))
    throw std::logic_error("decode predicted below its roofline bound on device '" + g.prefill.device.id + "'");
  if (const auto mem = g.prefill.device.memory_bytes) {
    g.fits = g.memory_per_device_bytes <= *mem;
    const double per_sequence = (kv_here + activations_here) / batch;
    g.max_batch = weights_here > *mem ? 0
                                      : static_cast<std::int64_t>(std::min<double>(
                                            std::floor((*mem - weights_here) / per_sequence), kMaxBatch));
  }
  for (const double v : {g.latency_s, g.tokens_per_s, g.decode_tokens_per_s})
    if (!std::isfinite(v)) throw SimulationError("generation times overflow on device '" + g.prefill.device.id + "'");
  return g;
}

}  // namespace ridge::engine
