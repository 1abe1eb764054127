// Renderers of the inference phases (engine/generation.hpp): a short table and JSON. JSON fields (SI
// base units): network, device, device_id, batch, dtype, prompt, generate, tensor_parallel,
// pipeline_parallel, prefill_s, communication_prefill_s, communication_decode_s,
// decode_per_token_s, decode_first_s, decode_last_s, latency_s, tokens_per_s, decode_tokens_per_s,
// kv_cache_bytes, kv_cache_bytes_per_token, weight_bytes, activation_bytes, memory_bytes,
// memory_per_device_bytes, fits
// (null when the device gives no memory size), max_batch, decode_bound_s, notes.
#include "engine/render/json_writer.hpp"
#include "engine/render/render.hpp"
#include "engine/render/units.hpp"

#include <string>

namespace ridge::engine::render {

std::string table(const Generation& g) {
  const Report& r = g.prefill;
  std::string s = "Generation (" + r.network + " on " + r.device.name + ", batch " + std::to_string(g.batch) + ", " +
                  std::string(ir::precision_name(r.precision)) + ", prompt " + std::to_string(g.prompt) +
                  " tokens, " + std::to_string(g.generate) + " generated)\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    s += "  " + k + std::string(k.size() < 20 ? 20 - k.size() : 1, ' ') + v + "\n";
  };
  const int devices = g.tensor_parallel * g.pipeline_parallel;
  if (devices > 1)
    row("devices", std::to_string(devices) + " (tensor parallel " + std::to_string(g.tensor_parallel) + " x pipeline " +
                       std::to_string(g.pipeline_parallel) + "); communication " + si(g.communication_prefill_s, "s") +
                       " of the prefill, " + si(g.communication_decode_s, "s") + " of each decode step");
  row("prefill", si(g.prefill_s, "s") + " (time to first token)");
  row("decode", si(g.decode_per_token_s, "s") + " per token (first " + si(g.decode_first_s, "s") + ", last " +
                    si(g.decode_last_s, "s") + "), " + si(g.decode_tokens_per_s, "tokens/s"));
  row("end to end", si(g.latency_s, "s") + ", " + si(g.tokens_per_s, "tokens/s") + " generated");
  row("decode bound", si(g.decode_bound_s, "s") + " per token = the first step's roofline (the weights it reads and the KV "
                          "cache at " + si(r.device.bandwidth, "B/s") + (g.tensor_parallel > 1 ? ", over " + std::to_string(g.tensor_parallel) + " ranks" : "") +
                          "); the prediction is " +
                          ratio(g.decode_per_token_s / g.decode_bound_s, "x") +
                          " of it (efficiency below peak, launches, the cache growing)");
  row("KV cache", memory(g.kv_cache_bytes_per_token) + " per token per sequence, " + memory(g.kv_cache_bytes) +
                      " at " + std::to_string(g.prompt + g.generate - 1) + " cached tokens x batch " + std::to_string(g.batch));
  const std::string judged = g.fits ? std::string(*g.fits ? ": fits in " : ": DOES NOT FIT in ") + memory(*r.device.memory_bytes)
                                     : std::string(": device memory not given");
  row("memory", memory(g.memory_bytes) + " (weights " + memory(g.weight_bytes) + " + KV cache + activations " +
                    memory(g.activation_bytes) + ")" + (devices > 1 ? " over " + std::to_string(devices) + " devices" : judged));
  if (devices > 1) row("per device", memory(g.memory_per_device_bytes) + judged);
  if (g.fits) row("largest batch", std::to_string(g.max_batch) + " sequences of " + std::to_string(g.prompt + g.generate - 1) + " cached tokens");
  return s;
}

}  // namespace ridge::engine::render
