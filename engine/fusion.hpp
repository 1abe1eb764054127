// Kernel fusion as a pass over the elaborated network (issue #35): which layers a software stack runs
// as one kernel (ir::Runtime::fusions), and what that changes in each layer's costs. Layers keep
// their names and rows: a fused layer records the kernel it ran in (its head, the kernel's first
// layer), launches nothing of its own, and no longer moves the values that stay inside the kernel.
//
// Matching. At each layer in topological order that no kernel holds yet, every pattern is tried; the
// longest match wins (the file's order breaks ties). A step's layer reads the previous step's (any of
// its inputs); views between them (reshape, split, dropout) are passed through and join the kernel. A
// value another layer outside the kernel also reads is still written, once. A layer joins only when
// its other inputs are ready before the kernel starts (none depends on the kernel's head), and after a
// GEMM only when it maps the GEMM's result element for element (an epilogue).
//
// Costs, per fused value of E elements (bytes at the pass's width):
//   - its reader inside the kernel reads E fewer (the value never leaves the SM);
//   - its maker writes E fewer when nothing outside the kernel reads it;
//   - a kernel headed by a GEMM (conv, linear, matmul) writes its result from the GEMM's epilogue:
//     the head keeps its output write (the GEMM kernel model counts it), so the layer whose value
//     leaves the kernel writes that many bytes fewer;
//   - only the head launches a kernel (PassCost::kernels 0 for the rest).
// Training (Runtime::fuse_training): the training forward fuses the same way, except that a batch
// norm cannot join a GEMM's epilogue (it needs the whole output's statistics first, so its kernel
// starts there); the backward runs the kernel's layers after the GEMM as one kernel in reverse (the
// gradients between them stay inside it), the GEMM's own backward on its own.
#pragma once

#include "engine/op_costs.hpp"

#include "lang/ir/network.hpp"
#include "lang/ir/runtime.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ridge::engine::fusion {

// One layer's place in its pass's kernels. Elements are per sample.
struct Member {
  ir::LayerId kernel = 0;              // the head: the layer that launches the kernel it runs in
  std::int64_t read_inside = 0;        // input elements made inside the kernel
  std::int64_t write_dropped = 0;      // output elements not written
  bool launches = true;                // false: runs in its head's kernel
  bool epilogue = false;               // runs in the epilogue of a GEMM (PassCost::in_epilogue)
  bool fused() const { return !launches || read_inside > 0 || write_dropped > 0; }
};

// The kernels of one network under one runtime, per pass (index = layer id). Empty vectors: nothing
// fuses in that pass (no runtime, no patterns, or inference-only patterns in training).
struct Plan {
  std::vector<Member> forward, forward_train, backward;
  std::vector<std::string> pattern;    // per layer: the pattern its forward kernel matched ("" alone)
  bool empty() const { return forward.empty(); }
};
Plan plan(const ir::Network& network, const ir::Runtime* runtime);

// A layer's pass with its fusion applied: `element_bytes` is the pass's bytes per element times the
// batch. Reads and writes never go below zero (a view moves nothing to begin with).
void apply(PassCost& pass, const Member& member, double element_bytes);

}  // namespace ridge::engine::fusion
