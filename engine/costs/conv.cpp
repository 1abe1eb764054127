// Costs of convolution, pooling and resampling.
//
// conv, conv_transpose: forward 2*MACs; backward 2*MACs for the input gradient (when needed) plus
// 2*MACs for the weight gradient. Bias adds and bias gradients are not counted (as fvcore does): one
// add per output element, under 1/(C_in*k) of the layer's work. MACs: conv, per output element
// (C_in/groups) * prod(kernel); conv_transpose, per *input* element (out/groups) * prod(kernel) (each
// input scatters into its window). A depthwise conv (one input channel per group) is of the depthwise
// class (window up to 3x3) or depthwise_large, and timed against the vector peak: its per-channel dot
// products are too short for tensor cores.
// maxpool       window-1 comparisons per output; backward 1 per output (scatter-add into the argmax).
//               The training forward writes the argmax (int64) for the backward. So does the inference
//               forward on a GPU: at::max_pool2d computes the indices on any device but a CPU
//               (`self.device() != at::kCPU`, aten/src/ATen/native/MaxPooling.cpp), and simulate()
//               adds them there (OpCost::indices_forward) unless the runtime fuses. An adaptive max
//               pool always returns its indices.
// avgpool       window per output (window-1 adds, 1 div); backward window per output
// adaptive      the same over torch's adaptive windows: along an axis of n inputs and m outputs,
//               window i is [floor(i n/m), ceil((i+1) n/m)), and the windows' sizes add up to
//               n + m - gcd(n, m) (closed form: no loop over outputs)
// upsample      nearest: a copy; an interpolation of t taps costs 2t-1 per output (linear t=2,
//               bilinear 4, trilinear 8, bicubic 16); backward the same, scattered into a zero-filled
//               input (2 kernels), nearest's 1 add per output (the copies' gradients summed)
// pixel_shuffle a copy each way
//
// Channels-first tensors (--memory-format nchw): tensor-core convolutions read and write channels-last
// (NHWC) tensors, so cuDNN transposes NCHW operands before the call and its result after ("The cuDNN
// library may use padding, folding, and NCHW-to-NHWC transformations to call the Tensor Core
// operations", cuDNN Developer Guide, Tensor Core operations; PyTorch's channels-last tutorial). Each
// call converts what it reads and writes, each a kernel reading and writing the tensor once: forward x
// and y; the input gradient dY and dX; the weight gradient x and dY (the filter's own conversion, C·k
// times smaller, is left out).
//
// A GPU's convolution bias: cuDNN's convolution takes no bias, so PyTorch adds it after the call,
// `output.add_(reshape_bias(...))` (aten/src/ATen/native/Convolution.cpp, the cuDNN and MIOpen
// backends), a kernel that reads the output and the bias and writes the output; and the backward
// sums dY over the batch and the positions for the bias gradient (`grad_output.sum({0, 2, 3})`), a
// kernel that reads dY. One add per output element each way (the FLOP counts above still leave them
// out). Empty without a bias, and for depthwise convolutions (their kernels take the bias); simulate()
// adds them on a GPU where no runtime fuses (a CPU's oneDNN, TensorRT and Inductor fold the bias
// into the convolution or the next kernel).
#include "engine/costs/rows.hpp"

#include <algorithm>

#include <numeric>

namespace ridge::engine::costs {
namespace {

// The bytes of channels a tensor-core convolution loads at a time (ir::OpClass::NarrowConv).
constexpr double kTensorCoreVectorBytes = 16.0;

double product(const std::vector<std::int64_t>& v) {
  double p = 1;
  for (auto x : v) p *= static_cast<double>(x);
  return p;
}


// A (transposed) convolution as implicit GEMMs, one per group: m = the batch's output positions,
// n = output channels per group, k = the MACs per output element (input channels per group times the
// window, or its transposed equivalent).
// Backward, as cuDNN's and CUTLASS's implicit-GEMM kernels run it: the weight gradient is
// [n, k] = dY^T [n, m] X [m, k]; the input gradient is a convolution of dY with the flipped weights, so
// its GEMM has one row per input position, one column per input channel of a group, and reduces over
// the output channels times the window (for a strided convolution, the taps that reach each input
// position: the same MACs as the forward).
void implicit_gemms(const Ctx& c, OpCost& r, std::int64_t groups) {
  const double g = static_cast<double>(groups);
  const ir::Shape& out = c.layer.output;
  const double n = static_cast<double>(out.at(0)) / g;
  const double m = c.out() / static_cast<double>(out.at(0));
  // The windowed operand is stored as its tensor (kernels::Gemm): x forward, dY for the input gradient,
  // x again for the weight gradient.
  const double x_stored = c.in() / g, dy_stored = c.out() / g;
  const kernels::Gemm forward{m, n, r.macs / (m * n * g), g, x_stored, 0};
  r.gemm_forward.add(weights_as_stored(c, forward));
  if (c.need()) {
    const ir::Shape& in = c.in_shapes.at(0);
    const double m_in = c.in() / static_cast<double>(in.at(0));
    const double n_in = static_cast<double>(in.at(0)) / g;
    r.gemm_backward.add({m_in, n_in, r.macs / (m_in * n_in * g), g, dy_stored, 0});
  }
  r.gemm_backward.add({forward.n, forward.k, forward.m, g, 0, x_stored});

  const auto conversions = [&](double elements, int kernels) { return pass(0, elements * c.w, elements * c.w, kernels); };
  r.nchw_forward = conversions(c.in() + c.out(), 2);
  r.nchw_backward = conversions((c.need() ? c.out() + c.in() : 0.0) + c.in() + c.out(), c.need() ? 4 : 2);
}

void separate_bias(const Ctx& c, OpCost& r) {
  if (!c.a().b("bias")) return;
  const double channels = static_cast<double>(c.layer.output.at(0));
  r.bias_forward = pass(0, c.out() * c.w + channels * c.ww, c.out() * c.w, 1);
  r.bias_backward = pass(0, c.out() * c.w, channels * c.ww, 1);
}

void conv(const Ctx& c, OpCost& r) {
  const std::int64_t cin = c.in_shapes.at(0).at(0), groups = c.a().i("groups");
  weighted(c, r, c.out() * static_cast<double>(cin / groups) * product(c.a().ints("kernel")));
  if (groups > 1 && groups == cin) {   // depthwise: kernel families of their own (ir::OpClass)
    r.op_class = product(c.a().ints("kernel")) <= 9 ? ir::OpClass::Depthwise : ir::OpClass::DepthwiseLarge;
    r.matrix_unit = false;
    return;
  }
  if (groups == 1 && product(c.a().ints("kernel")) == 1) {
    r.op_class = ir::OpClass::Pointwise;
    r.unit_stride_1x1 = product(c.a().ints("stride")) == 1 && product(c.a().ints("dilation")) == 1;
  }
  // Under one 16-byte vector of input channels (3 RGB channels; 8 fp16/bf16, 4 tf32/fp32 and 16 int8
  // channels fill one): see ir::OpClass::NarrowConv.
  r.narrow_input = groups == 1 && static_cast<double>(cin) * c.w < kTensorCoreVectorBytes;
  implicit_gemms(c, r, groups);
  separate_bias(c, r);
}

void conv_transpose(const Ctx& c, OpCost& r) {
  weighted(c, r, c.in() * static_cast<double>(c.a().i("out") / c.a().i("groups")) * product(c.a().ints("kernel")));
  implicit_gemms(c, r, c.a().i("groups"));
  separate_bias(c, r);
}

// A pool to one value per channel (the window is the whole map) is a reduction: ir::OpClass::Reduction.
void mark_global(const Ctx& c, OpCost& r) {
  const ir::Shape& out = c.layer.output;
  if (out.size() > 1 && std::all_of(out.begin() + 1, out.end(), [](std::int64_t d) { return d == 1; }))
    r.op_class = ir::OpClass::Reduction;
}

void maxpool_from_windows(const Ctx& c, OpCost& r, double window_elements, bool always_indices) {
  // window_elements: sum over every output of its window size, per batch.
  mark_global(c, r);
  r.forward_train = pass(window_elements - c.out(), c.in() * c.w, c.out() * (c.w + kIndexBytes));
  r.forward = always_indices ? r.forward_train : pass(window_elements - c.out(), c.in() * c.w, c.out() * c.w);
  if (!always_indices) r.indices_forward = pass(0, 0, c.out() * kIndexBytes, 0);
  r.backward = pass(c.out(), c.out() * (c.w + kIndexBytes), c.in() * c.w);
  r.saved_bytes = c.out() * kIndexBytes;
}

void avgpool_from_windows(const Ctx& c, OpCost& r, double window_elements) {
  mark_global(c, r);
  r.forward = pass(window_elements, c.in() * c.w, c.out() * c.w);
  r.backward = pass(window_elements, c.out() * c.w, c.in() * c.w);
}

double fixed_windows(const Ctx& c) { return c.out() * product(c.a().ints("kernel")); }

double adaptive_span(std::int64_t n, std::int64_t m) { return static_cast<double>(n + m - std::gcd(n, m)); }

double adaptive_windows(const Ctx& c) {
  const ir::Shape& s = c.in_shapes.at(0);
  const auto& size = c.a().ints("size");
  double total = static_cast<double>(s.at(0)) * c.batch;
  for (std::size_t i = 0; i < size.size(); ++i) total *= adaptive_span(s.at(i + 1), size[i]);
  return total;
}

void maxpool(const Ctx& c, OpCost& r) { maxpool_from_windows(c, r, fixed_windows(c), false); }
void avgpool(const Ctx& c, OpCost& r) { avgpool_from_windows(c, r, fixed_windows(c)); }
void adaptive_maxpool(const Ctx& c, OpCost& r) { maxpool_from_windows(c, r, adaptive_windows(c), true); }
void adaptive_avgpool(const Ctx& c, OpCost& r) { avgpool_from_windows(c, r, adaptive_windows(c)); }

void upsample(const Ctx& c, OpCost& r) {
  const std::string& mode = c.a().s("mode");
  const double taps = mode == "linear" ? 2 : mode == "bilinear" ? 4 : mode == "trilinear" ? 8 : mode == "bicubic" ? 16 : 0;
  const double per = taps > 0 ? 2 * taps - 1 : 0;
  r.forward = pass(per * c.out(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(std::max(per, 1.0) * c.out(), c.out() * c.w, c.in() * c.w, 2);   // zero fill + scatter-add
}


}  // namespace

std::vector<CostRow> conv_costs() {
  return {{"conv", conv, kSavesInput},
          {"conv_transpose", conv_transpose, kSavesInput},
          {"maxpool", maxpool, kSavesInput},
          {"avgpool", avgpool, kSavesInput},
          {"adaptive_avgpool", adaptive_avgpool, kSavesInput},
          {"adaptive_maxpool", adaptive_maxpool, kSavesInput},
          {"upsample", upsample, kSavesNothing},
          {"pixel_shuffle", copy_both_ways, kSavesNothing}};
}

}  // namespace ridge::engine::costs
