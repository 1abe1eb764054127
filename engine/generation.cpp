#include "engine/generation.hpp"

#include "lang/ir/ops.hpp"
#include "engine/timing.hpp"

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

Generation generate(const NetworkAt& network_at, const ir::Device& device, const Options& o, std::int64_t prompt,
                    std::int64_t count) {
  constexpr std::int64_t kMaxTokens = std::int64_t{1} << 20;
  if (prompt < 1 || prompt > kMaxTokens || count < 1 || count > kMaxTokens)
    throw SimulationError("the prompt and the tokens to generate must each be between 1 and " + std::to_string(kMaxTokens));
  Generation g;
  g.batch = o.batch;
  g.prompt = prompt;
  g.generate = count;

  const ir::Network prefill_net = network_at(prompt, 0);
  g.kv_cache_bytes_per_token = kv_cache_bytes_per_token(prefill_net, o.precision);
  if (g.kv_cache_bytes_per_token == 0.0)
    throw SimulationError("network '" + prefill_net.name + "' has no attention layer: there is no KV cache to decode against");
  g.prefill = simulate(prefill_net, device, o);
  // The prefill's last position gives the first token; each later one is a decode step fed the token
  // before it, against the prompt and the tokens before that: G - 1 steps at past P .. P+G-2. With
  // G = 1 no step runs, and the step at past P is still reported (what the next token would cost).
  const std::int64_t steps = count - 1;
  const Report first = simulate(network_at(1, prompt), device, o);
  g.decode_last = simulate(network_at(1, prompt + std::max<std::int64_t>(steps - 1, 0)), device, o);

  g.prefill_s = g.prefill.totals.time_fwd_s;
  g.decode_first_s = first.totals.time_fwd_s;
  g.decode_last_s = g.decode_last.totals.time_fwd_s;
  g.decode_per_token_s = 0.5 * (g.decode_first_s + g.decode_last_s);
  g.latency_s = g.prefill_s + static_cast<double>(steps) * g.decode_per_token_s;
  const double batch = static_cast<double>(o.batch);
  g.tokens_per_s = batch * static_cast<double>(count) / g.latency_s;
  g.decode_tokens_per_s = batch / g.decode_per_token_s;

  const Totals& t = g.prefill.totals;
  g.weight_bytes = t.weight_bytes;
  // The last token is never fed back: the cache peaks at the prompt and the first G - 1 tokens.
  g.kv_cache_bytes = batch * static_cast<double>(prompt + count - 1) * g.kv_cache_bytes_per_token;
  g.activation_bytes = t.peak_activation_bytes;
  g.memory_bytes = g.weight_bytes + g.kv_cache_bytes + g.activation_bytes;
  // What no decode step can beat: the first step's roofline, the bytes it reads (the weights it
  // touches, which for a mixture of experts are the routed experts' only, and the KV cache) at the
  // datasheet's bandwidth. Counting every weight (issue #41) put Mixtral's prediction at 0.48 x "its
  // bound". Every later step reads more cache.
  g.decode_bound_s = first.totals.roofline_fwd_s;
  if (g.decode_first_s < g.decode_bound_s * (1 - 1e-9) || g.decode_last_s < g.decode_bound_s * (1 - 1e-9))
    throw std::logic_error("decode predicted below its roofline bound on device '" + g.prefill.device.id + "'");
  if (const auto mem = g.prefill.device.memory_bytes) {
    g.fits = g.memory_bytes <= *mem;
    const double per_sequence = (g.kv_cache_bytes + g.activation_bytes) / batch;
    g.max_batch = g.weight_bytes > *mem ? 0
                                        : static_cast<std::int64_t>(std::min<double>(
                                              std::floor((*mem - g.weight_bytes) / per_sequence), kMaxBatch));
  }
  for (const double v : {g.latency_s, g.tokens_per_s, g.decode_tokens_per_s})
    if (!std::isfinite(v)) throw SimulationError("generation times overflow on device '" + g.prefill.device.id + "'");
  return g;
}

}  // namespace ridge::engine
