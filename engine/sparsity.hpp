// 2:4 structured sparsity (--sparsity 2:4, issue #39): a network whose weights are pruned to 2 of
// every 4 values, run for inference on matrix units that skip the pruned half (NVIDIA A100 Tensor
// Core GPU Architecture whitepaper, 2020, "Fine-Grained Structured Sparsity": twice the dense math
// throughput; each kept value carries a 2-bit index of its position among the 4).
//
// What it changes, per layer with a weight matrix (linear, and convolutions on the matrix units; not
// depthwise ones, not matmuls of two activations, not attention), in the inference forward only
// (training keeps dense weights: the backward's transposed weights are not 2:4):
//   - the weights read: kept values and their indices, 1/2 + (1/2 x 2 bits) / (8 x width) of dense;
//   - the GEMM: the matrix units' rate doubles (kernels::Gemm::sparse), the FLOPs counted stay dense
//     (as utilisation is reported against dense peaks).
// A device must declare it (`sparsity = "2:4"` in its .hw): simulate() refuses it elsewhere.
#pragma once

#include "engine/op_costs.hpp"

namespace ridge::engine::sparsity {

// The bytes of 2:4-sparse weights per dense weight of `width` bytes: 0.5625 at 2 bytes.
double weight_fraction(double width);

// `cost` of one layer made 2:4-sparse where it has a weight matrix; `weight_width` its weights' bytes
// each. Layers without one are left as they are.
void apply_two_four(OpCost& cost, double weight_width);

}  // namespace ridge::engine::sparsity
