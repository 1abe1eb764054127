// The copies eager PyTorch makes where a view cannot express a value's memory (issue #32).
//
// PyTorch's permute and transpose are views: they reorder a tensor's strides, not its elements. What
// comes after decides whether that costs anything. `reshape` returns a view only where each group of
// axes it merges lies adjacent in memory, in order (aten/src/ATen/TensorUtils.cpp, computeStride);
// otherwise it copies into a new contiguous tensor. A batched `matmul` folds its batch axes with
// `reshape` and hands cuBLAS matrices that must be row- or column-major, so an operand whose batch
// axes are not adjacent in memory, or whose two matrix axes are not its innermost, is copied first;
// `linear` on a tensor of more than two axes does the same to fold them; softmax and layer norm call
// `.contiguous()` on their input. Swin-T's window partitions make seven such copies a block in
// torchvision, which the engine had taken for views (docs/results/2026-11-27-h100-third-run.md).
//
// eager_copies follows each value's memory order through the network by those rules:
//   views (permute, transpose, reshape that can be a view, flatten, slice, expand, dropout) carry the
//     order (a permute reorders it; a reshape regroups it);
//   elementwise ops, batch norm and pooling write their result in their first input's order
//     (TensorIterator keeps a dense input's layout; channels-last stays channels-last);
//   a convolution writes channels-last where the run is channels-last (MemoryFormat::ChannelsLast);
//   every other op writes a contiguous result.
// Not followed: a partial slice's gap. torch folds the batch into a tensor's other axes (a matmul's,
// a linear's) only where the batch's stride is the per-sample size; after x[:, 0:1] it is not, and
// torch copies where these rules see a contiguous value (they take every value's batch to be dense).
// Swin's q, k and v are copied for their permuted axes anyway.
// A copy is charged where one of the rules above copies: the elements of the input copied, per
// sample, and one kernel per copy. simulate() adds them to the layer's passes (a copy of the value
// forward and of its gradient backward) where eager PyTorch runs them: not under a runtime that fuses.
#pragma once

#include "lang/ir/network.hpp"

#include <vector>

namespace ridge::engine::layout {

struct Copies {
  double elements = 0;   // per sample, over the copied inputs
  int kernels = 0;
  friend bool operator==(const Copies&, const Copies&) = default;
};

// One entry per layer of `net`. `channels_last`: convolutions write channels-last tensors.
std::vector<Copies> eager_copies(const ir::Network& net, bool channels_last);

}  // namespace ridge::engine::layout
