// A software stack as data (issue #35): how a framework runs a network on a device, beside what the
// network is (.net) and what the device is (.hw). `runtimes/*.rt` describe them, in the `.hw`
// language with `runtime "NAME" { ... }` for `device`; docs/language.md lists the keys. A runtime
// changes predictions only where it says something: absent keys leave the network's and the device's
// own figures (runtimes/pytorch-eager.rt says nothing, and every result stays as it was).
#pragma once

#include "lang/ir/device.hpp"

#include <map>
#include <optional>
#include <string>

namespace ridge::ir {

struct Runtime {
  std::string id;        // file stem: "vllm"
  std::string name;      // "vLLM 0.6 (CUDA graphs, FlashAttention-2)"
  std::string version;   // the release whose behaviour the file describes
  // Per kernel launched, replacing the device's launch_overhead (CUDA graphs: the gap between
  // kernels of a captured graph, not a launch from the host).
  std::optional<Figure> launch_overhead;
  // Host work per forward pass (a serving engine's scheduling, sampling and detokenising per
  // iteration; a generation's per step), added to each.
  std::optional<Figure> step_overhead;
  // Every attention layer's kernel ("flash", "materialized", "eager"); absent: as the .net writes it.
  std::optional<std::string> attention;
  // A prefill computes the output layer (the logits) for each sequence's last position only.
  bool last_position_logits = false;
  std::string kv_cache = "contiguous";   // or "paged" (informative: the serving simulator pages anyway)
  std::optional<Figure> kv_block;        // tokens per block of a paged cache
  std::map<std::string, std::string> sources;   // key -> source, for the keys that hold no figure
  std::vector<std::string> provenance;
};

}  // namespace ridge::ir
