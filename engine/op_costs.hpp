// The engine's one table of op costs: for every IR op, its MACs, FLOPs and bytes moved in the
// forward and backward passes. Every counting formula of Ridge lives under engine/costs/, one file
// per op family (the same families as lang/ir/ops/), each row keyed by the op's name; timing
// (timing.hpp) and the whole-network sums (simulate.hpp) only add these numbers up.
//
// Conventions (docs/counting.md):
// - A multiply-add is 2 FLOPs. MACs count the matrix products only, as torchvision's published
//   GFLOPS (which are MACs) do: conv, linear and matmul, and the products inside attention, moe, lstm
//   and gru (engine/costs/dense.cpp); every other op has 0 MACs but may have FLOPs.
// - Counts are per batch (the IR's shapes are per sample), in doubles: exact up to 2^53, which the
//   IR's per-sample limits and simulate()'s batch limit keep every count inside.
// - Bytes are at the precision's width (ir::bytes_per_element) for activations, weights and
//   gradients alike (mixed-precision fp32 master weights are not modelled), except where the caller
//   gives other widths: weight-only quantisation, and a quantised stack's 16-bit activations and KV
//   cache (engine/quant_storage.hpp).
// - Forward (inference): activations read + weights read + outputs written, eval mode (batch norm uses
//   its running statistics, dropout is the identity). Forward (training): the same pass in train
//   mode, which differs for batch norm (batch statistics) and dropout (mask); the training step uses it.
// - Backward: reads the output gradient, the saved tensors the op needs and the weights (when the input
//   gradient is computed); writes the input gradients and the weight gradients. The input gradient is
//   skipped for an input that needs none (autograd's rule: a value needs a gradient when it depends on
//   a parameter; the network input does not).
#pragma once

#include "engine/kernels/attention.hpp"
#include "engine/kernels/gemm.hpp"
#include "engine/kernels/streaming.hpp"
#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace ridge::engine {

// The work of one pass of one layer, per batch.
struct PassCost {
  double flops = 0.0;          // multiply-add = 2
  double bytes_read = 0.0;     // B
  double bytes_written = 0.0;  // B
  int kernels = 0;             // kernels launched (0 for views and for passes that do nothing)
  // Its arithmetic runs in a GEMM's epilogue (engine/fusion.hpp), on the vector lanes while the tensor
  // cores run the next tile's main loop: hidden under the GEMM, so only its bytes take time.
  bool in_epilogue = false;
  double bytes() const { return bytes_read + bytes_written; }
  friend bool operator==(const PassCost&, const PassCost&) = default;
};

// The GEMMs one pass runs, for the GPU kernel model (engine/kernels/gemm.hpp): a linear layer's one
// forward product, its input- and weight-gradient products backward; a convolution's implicit GEMMs;
// attention's score and value products. Empty for a pass that is no GEMM (the flat model times it).
// Their FLOPs are the pass's matmul FLOPs, exactly (a test holds every row to it).
struct PassGemms {
  // The count and ids first: timing a pass reads them for every GEMM and the GEMMs' dimensions seldom
  // (a sweep's timing loop is bound by the cache lines it touches).
  int count = 0;
  std::array<int, 4> ids{};   // each GEMM's index in its Workload's distinct GEMMs (engine/simulate.hpp)
  std::array<kernels::Gemm, 4> gemms{};
  void add(const kernels::Gemm& g) { gemms.at(static_cast<std::size_t>(count++)) = g; }
  double flops() const {
    double f = 0;
    for (int i = 0; i < count; ++i) f += gemms[static_cast<std::size_t>(i)].flops();
    return f;
  }
  friend bool operator==(const PassGemms&, const PassGemms&) = default;
};

// What an op's backward reads of its forward's values, as autograd saves them (PyTorch's
// derivatives.yaml): a bit per input (bit i: input i; weights are parameters, not activations) and the
// output. simulate() keeps an activation for backward when the layer that made it or a layer that
// reads it saves it; masks, indices and statistics are OpCost::saved_bytes on top.
struct Saves {
  std::uint32_t inputs = 0;
  bool output = false;
  bool input(std::size_t i) const { return i < 32 && ((inputs >> i) & 1u) != 0; }
  friend bool operator==(const Saves&, const Saves&) = default;
};

struct OpCost {
  // What timing a layer on a device reads comes first (the class, the flags, the passes): a sweep's
  // timing loop is bound by the cache lines it touches of each kilobyte OpCost.
  ir::OpClass op_class = ir::OpClass::DataMovement;
  bool view = false;             // no kernel, no new storage: it aliases its (first) input
  bool matrix_unit = false;      // may run on the matrix units (tensor cores): matmul class, not depthwise
  bool sparse = false;           // its inference forward runs 2:4-sparse weights (engine/sparsity.hpp)
  // A dense convolution whose input channels fill less than one 16-byte vector at this precision: on
  // a GPU, simulate() moves it off the matrix units (ir::OpClass::NarrowConv) unless the runtime pads.
  bool narrow_input = false;
  // A dense 1x1 convolution of unit stride and dilation: where eager LibTorch runs it outside oneDNN
  // (engine/cpu_dispatch.hpp), simulate() times it by ir::OpClass::PointwiseNative.
  bool unit_stride_1x1 = false;
  double params = 0.0;           // learnable parameters (ir::parameter_count)
  double macs = 0.0;             // forward MACs per batch (conv/linear/matmul only)
  PassCost forward;              // inference (eval mode)
  PassCost forward_train;        // training mode (differs for batchnorm and dropout)
  PassCost backward;             // input gradient(s) where needed + weight gradient
  kernels::RowKernel rows_forward;   // the forward's row kernel (softmax, layer norm), for the streaming model
  std::optional<kernels::Attention> flash;   // a fused attention kernel, for the attention kernel model
  PassGemms gemm_forward;        // the GEMMs of the forward (inference and training alike)
  PassGemms gemm_backward;       // and of the backward
  Saves saves;                    // which of its inputs and output the backward reads
  double saved_bytes = 0.0;      // extra bytes kept for backward beyond those values (masks, indices, statistics)
  // The layout conversions a library runs around a tensor-core convolution whose tensors are
  // channels-first (NCHW; Options::memory_format): each activation tensor a call reads is transposed to
  // channels-last and its result back, one streaming kernel each (costs/conv.cpp). Empty for other ops;
  // simulate() adds them to the passes where they apply.
  PassCost nchw_forward, nchw_backward;
  // The bias a GPU's convolution library leaves to PyTorch: one streaming kernel after the forward and a
  // reduction of dY in the backward (costs/conv.cpp). Empty for other ops and convolutions without a
  // bias; simulate() adds them on a GPU where the runtime fuses nothing.
  PassCost bias_forward, bias_backward;
  // The argmax indices a max pool's inference forward writes on a GPU, where PyTorch always computes
  // them (costs/conv.cpp); the training forward writes them anywhere. Added by simulate() likewise.
  PassCost indices_forward;
  // The copies eager PyTorch makes before the layer where a view cannot express its input's memory
  // (engine/layout.hpp): the value forward, its gradient backward. Added by simulate() likewise.
  PassCost copy_forward, copy_backward;
  friend bool operator==(const OpCost&, const OpCost&) = default;
};

// Which of a layer's inputs need a gradient, in argument order; and whether the layer is on a
// gradient path at all (it or an input depends on a parameter). See grad_flags() below.
struct GradNeeds {
  std::vector<bool> inputs;
  bool output = false;
};

// The cost of `layer`, whose inputs have `input_shapes` (per sample), at `batch` samples and
// `precision`; `grad` says which inputs need a gradient (see grad_needs()). `weight_width`: bytes per
// weight of the weight matrices (the rows that read c.ww) under weight-only quantisation; 0: the precision's.
// `activation_width`: bytes per element of every other tensor where the stack keeps them wider than the
// GEMMs' precision (engine/quant_storage.hpp); 0: the precision's. `kv_width`: bytes per element of attention's
// KV cache; 0: the activations'.
OpCost op_cost(const ir::Layer& layer, const std::vector<ir::Shape>& input_shapes, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad, double weight_width = 0.0,
               double activation_width = 0.0, double kv_width = 0.0);
// The same for a layer of `network` (its input shapes looked up there).
OpCost op_cost(const ir::Network& network, const ir::Layer& layer, std::int64_t batch,
               ir::Precision precision, const GradNeeds& grad);

// Autograd's requires_grad, one layer at a time in topological order: `earlier` holds the needs of
// every earlier layer. A layer's output needs a gradient when it has parameters or any input needs
// one; the input layer never does. Throws std::invalid_argument when an input is not an earlier layer.
GradNeeds grad_needs(const ir::Layer& layer, bool has_parameters, const std::vector<GradNeeds>& earlier);
// The same from the earlier layers' output needs alone, into `out` (its storage reused): what a pass
// over a whole network uses, without a vector per layer.
void grad_needs(const ir::Layer& layer, bool has_parameters, const std::vector<bool>& earlier_outputs,
                GradNeeds& out);
// The needs of every layer of the network (index = layer id).
std::vector<GradNeeds> grad_flags(const ir::Network& network);

// The op class an op's PPP is looked up under (its spec row's).
ir::OpClass op_class(ir::Op op);

// True for ops that run no kernel and alias their input (flatten, reshape, slice, inference dropout, input).
bool is_view(ir::Op op);

// Whether the cost table has a row for the op (a test walks the spec table with it).
bool has_cost(ir::Op op);

// FLOPs of one SGD-with-momentum update per parameter, and tensors read/written per parameter:
//   v = momentum * v + g        (mul, add)
//   w = w - lr * v              (mul, sub)
// reads w, g, v; writes w, v. Weight decay and Nesterov are off (torch.optim.SGD's defaults).
inline constexpr double kSgdMomentumFlopsPerParam = 4.0;
inline constexpr double kSgdMomentumTensorsRead = 3.0;
inline constexpr double kSgdMomentumTensorsWritten = 2.0;

}  // namespace ridge::engine
