// What a software stack (ir::Runtime, issue #35) changes, in one place:
//   - every attention layer's kernel, where the runtime names one (simulate.cpp's workload);
//   - the launch overhead per kernel, replacing the device's (simulate.cpp's timing);
//   - the host's time per op of an eager stack, the GPU waiting on it (host_dispatch.hpp, applied in
//     simulate.cpp);
//   - a prefill's output layer over each sequence's last position only (last_position_logits);
//   - the host's work per forward pass, added to each phase of a generation or a serving iteration
//     (generation.cpp);
//   - which layers run as one kernel, and what that saves (engine/fusion.hpp, applied in simulate.cpp's
//     workload).
//   - in a quantised run (below 16 bits), the width of the activations and the KV cache, and the casts
//     to the narrow type before each weight GEMM (engine/quant_storage.hpp, applied in simulate.cpp's
//     workload and generation.cpp).
// With no runtime, or pytorch-eager (which says nothing), every result is as before: the GPU's own,
// the GPU always fed.
#pragma once

#include "lang/ir/network.hpp"
#include "lang/ir/runtime.hpp"

#include <optional>
#include <string>

namespace ridge::engine::runtime {

// The network with its output layer fed the last position of its input only: a `slice` (a view, as
// vLLM's logits processor indexes the last hidden states) inserted before the output layer, whose
// shape follows. Unchanged where the output layer is not the last layer or its input has one
// position; `network` is a decoder's phase with its sequence axis first.
ir::Network last_position_logits(ir::Network network);

// The runtime's kernel for attention layers, its launch overhead and its host time per pass (0
// without a runtime or the figure).
std::optional<std::string> attention_kernel(const ir::Runtime* runtime);
std::optional<double> launch_overhead_s(const ir::Runtime* runtime);
double step_overhead_s(const ir::Runtime* runtime);

}  // namespace ridge::engine::runtime
