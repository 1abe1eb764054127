// The op families: each file under ir/ops/ holds the spec rows of one kind of op. The registry
// (ir/ops.cpp) concatenates them; an op is named in its family file only.
#pragma once

#include "lang/ir/ops.hpp"

#include <vector>

namespace ridge::ir::families {

std::vector<OpSpec> tensor_ops();      // views, copies, reductions, softmax (ops/tensor.cpp)
std::vector<OpSpec> pointwise_ops();   // arithmetic, math functions, activations (ops/pointwise.cpp)
std::vector<OpSpec> conv_ops();        // convolution, pooling, resampling (ops/conv.cpp)
std::vector<OpSpec> norm_ops();        // normalisation (ops/norm.cpp)
std::vector<OpSpec> dense_ops();       // linear, matmul, embeddings, learned tensors, attention, RNNs (ops/dense.cpp)

}  // namespace ridge::ir::families
