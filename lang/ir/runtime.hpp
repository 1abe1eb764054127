// A software stack as data (issue #35): how a framework runs a network on a device, beside what the
// network is (.net) and what the device is (.hw). `runtimes/*.rt` describe them, in the `.hw`
// language with `runtime "NAME" { ... }` for `device`; docs/language.md lists the keys. A runtime
// changes predictions only where it says something: absent keys leave the network's and the device's
// own figures (runtimes/pytorch-eager.rt says nothing, and every result stays as it was).
#pragma once

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ridge::ir {

// One step of a fusion pattern: a layer whose op is any of `ops` (an op class in the file stands for
// every op of the class), or with `repeat` a run of one or more such layers.
struct FusionStep {
  std::vector<Op> ops;
  bool repeat = false;
  bool matches(Op op) const { return std::find(ops.begin(), ops.end(), op) != ops.end(); }
};

// Op sequences the stack runs as one kernel (`fuse.NAME = "conv -> batch_norm -> elementwise+"`):
// each step a layer that reads the one before it (engine/fusion.hpp says what fusing changes).
struct FusionPattern {
  std::string name;               // the key's last part: "conv_bn_act"
  std::string text;               // as written, for reports
  std::vector<FusionStep> steps;  // at least two
};

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
  // The host's time per op where it issues the GPU's work one op at a time (eager PyTorch from
  // Python): per layer of a forward (views included: each is a call) and per layer with a backward
  // (autograd's node). Absent: the GPU is always fed. engine/host_dispatch.hpp times them.
  std::optional<Figure> host_forward_op;
  std::optional<Figure> host_backward_op;
  // Every attention layer's kernel ("flash", "flash2", "materialized", "eager", "sdpa"); absent: as the .net writes it.
  std::optional<std::string> attention;
  // A prefill computes the output layer (the logits) for each sequence's last position only.
  bool last_position_logits = false;
  std::string kv_cache = "contiguous";   // or "paged" (informative: the serving simulator pages anyway)
  std::optional<Figure> kv_block;        // tokens per block of a paged cache
  // A convolution whose input channels fill less than one 16-byte vector (ir::OpClass::NarrowConv):
  // false, as cuDNN runs it under PyTorch (a CUDA-core kernel); true where the stack pads the channels
  // and runs it on the matrix units like any convolution (`narrow_conv = padded`: TensorRT).
  bool pads_narrow_channels = false;
  // How the optimizer's update runs: "fused" (one kernel pass reading the weights, gradients and states
  // and writing the weights and states: apex's and DeepSpeed's FusedAdam, torch.optim's fused=True, and
  // Ridge's model without a runtime) or "foreach" (torch.optim's default on CUDA since PyTorch 2.0:
  // one multi-tensor kernel per arithmetic step, each a pass over parameter-sized tensors; the passes
  // are in engine/simulate.cpp, optimizer_passes).
  std::string optimizer = "fused";
  // How a quantised run (a --dtype below 16 bits) keeps and converts its tensors. The GEMMs run at that
  // precision and the layers' weight matrices are stored at it whatever the runtime says; the rest is
  // the stack's (engine/quant_storage.hpp applies it):
  // - quant_activations: the width of the tensors between kernels; nullopt: the run's (Ridge's model
  //   without a runtime, every tensor narrow). Transformer Engine, vLLM and TensorRT-LLM keep them at
  //   16 bits;
  // - quant_cast: how a weight GEMM's 16-bit input becomes narrow: "kernel" (a cast kernel of its own
  //   before the GEMM) or "fused" (the kernel that makes the input writes the narrow copy as well);
  // - quant_scaling: how the cast finds its scale: "static" (calibrated offline), "delayed" (from the
  //   amax history; the cast records the new amax as it goes), "per_token" (each row's amax, found in
  //   the cast kernel), or "current" (an amax pass over the tensor before the cast);
  // - quant_kv_cache: the KV cache's width; nullopt: the activations'.
  std::optional<Precision> quant_activations;
  std::string quant_cast = "fused";
  std::string quant_scaling = "static";
  std::optional<Precision> quant_kv_cache;
  // Fusion patterns, tried in the file's order at each layer, the longest match winning; and whether
  // they also apply to a training step (its forward and backward), or to inference only.
  std::vector<FusionPattern> fusions;
  bool fuse_training = false;
  std::map<std::string, std::string> sources;   // key -> source, for the keys that hold no figure
  std::vector<std::string> provenance;
};

}  // namespace ridge::ir
