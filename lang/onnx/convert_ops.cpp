// Converters for ops that compute: convolutions, dense layers, normalisations, activations,
// element-wise arithmetic, pooling, resampling, recurrent layers. Each maps one ONNX node onto op
// spec rows (ir/ops/*.cpp) through Importer::emit; shape-only ops are in convert_shapes.cpp.
#include "lang/onnx/importer.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace ridge::lang::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;

const Value& data_input(Importer& im, const onnx::NodeProto& n, int i = 0) {
  const Value& x = im.input(n, i);
  if (!x.batched()) im.fail(n, "input '" + n.input(i) + "' must be computed from the network's input");
  return x;
}

const Value& weight_input(Importer& im, const onnx::NodeProto& n, int i, std::size_t min_rank) {
  const Value& w = im.input(n, i);
  if (w.is_layer() || w.weight.empty() || w.dims.size() < min_rank)
    im.fail(n, "input '" + n.input(i) + "' must be an initializer of rank " + std::to_string(min_rank) + " or more");
  return w;
}

// kernel, stride, dilation and symmetric padding of a windowed op with `spatial` axes. Asymmetric
// padding (or auto_pad SAME with an odd total) becomes an explicit pad layer in front.
struct Window {
  Ints kernel, stride, dilation, pad;
};

Window window(Importer& im, const onnx::NodeProto& n, Value& x, const Ints& kernel, bool pad_layer_ok = true) {
  const std::size_t k = kernel.size();
  Window w{kernel, attr_ints(n, "strides").value_or(Ints(k, 1)), attr_ints(n, "dilations").value_or(Ints(k, 1)), {}};
  Ints pads = attr_ints(n, "pads").value_or(Ints(2 * k, 0));
  if (w.stride.size() != k || w.dilation.size() != k || pads.size() != 2 * k)
    im.fail(n, "strides, dilations and pads must give one value per spatial axis (" + std::to_string(k) + ")");
  const std::string autopad = attr_string(n, "auto_pad", "NOTSET");
  const ir::Shape shape = im.ir_shape(x);
  if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER") {
    for (std::size_t i = 0; i < k; ++i) {
      const std::int64_t in = shape.at(i + 1), s = std::max<std::int64_t>(w.stride[i], 1);
      const std::int64_t out = (in + s - 1) / s;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * s + (kernel[i] - 1) * w.dilation[i] + 1 - in, 0);
      pads[i] = autopad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[i + k] = total - pads[i];
    }
  } else if (autopad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  } else if (autopad != "NOTSET") {
    im.fail(n, "auto_pad '" + autopad + "' is not an ONNX value");
  }
  bool symmetric = true;
  for (std::size_t i = 0; i < k; ++i) symmetric = symmetric && pads[i] == pads[i + k];
  if (symmetric) {
    w.pad.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(k));
    return w;
  }
  if (!pad_layer_ok) im.fail(n, "asymmetric padding is not supported here");
  Ints pad;   // F.pad order: last axis first, before then after
  for (std::size_t i = k; i-- > 0;) {
    pad.push_back(pads[i]);
    pad.push_back(pads[i + k]);
  }
  x = im.emit("pad", {x}, {{"pad", pad}}, n, x.batch_axis, ".pad");
  w.pad = Ints(k, 0);
  return w;
}

void need_batch_first(Importer& im, const onnx::NodeProto& n, const Value& x) {
  if (x.batch_axis != 0) im.fail(n, "expects the batch on axis 0");
}

void conv(Importer& im, const onnx::NodeProto& n) {
  Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const Value w = weight_input(im, n, 1, 3);
  const std::int64_t groups = attr_int(n, "group", 1);
  const Ints kernel = attr_ints(n, "kernel_shape").value_or(Ints(w.dims.begin() + 2, w.dims.end()));
  if (kernel.size() + 1 != im.ir_shape(x).size()) im.fail(n, "the kernel's rank does not fit the input");
  if (groups < 1 || w.dims[1] * groups != im.ir_shape(x).at(0))
    im.fail(n, "the weight " + ir::to_string(w.dims) + " with group " + std::to_string(groups) + " does not fit " +
                   std::to_string(im.ir_shape(x).at(0)) + " input channels");
  const Window win = window(im, n, x, kernel);
  const Value y = im.emit("conv", {x},
                          {{"out", w.dims[0]}, {"kernel", win.kernel}, {"stride", win.stride}, {"pad", win.pad},
                           {"dilation", win.dilation}, {"groups", groups}, {"bias", im.has_input(n, 2)}},
                          n, 0);
  im.set_owner(w.weight, y.layer);
  im.set_output(n, 0, y);
}

void conv_transpose(Importer& im, const onnx::NodeProto& n) {
  Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const Value w = weight_input(im, n, 1, 3);
  const std::int64_t groups = attr_int(n, "group", 1);
  if (attribute(n, "output_shape")) im.fail(n, "output_shape is not supported; give pads and output_padding");
  const Ints kernel = attr_ints(n, "kernel_shape").value_or(Ints(w.dims.begin() + 2, w.dims.end()));
  const Window win = window(im, n, x, kernel, false);
  const Ints output_pad = attr_ints(n, "output_padding").value_or(Ints(kernel.size(), 0));
  const Value y = im.emit("conv_transpose", {x},
                          {{"out", w.dims[1] * groups}, {"kernel", win.kernel}, {"stride", win.stride}, {"pad", win.pad},
                           {"output_pad", output_pad}, {"groups", groups}, {"bias", im.has_input(n, 2)},
                           {"dilation", win.dilation}},
                          n, 0);
  im.set_owner(w.weight, y.layer);
  im.set_output(n, 0, y);
}

// A linear layer over the last axis with an initializer weight of [out, in] (transposed: [in, out]).
Value linear(Importer& im, const onnx::NodeProto& n, const Value& x, const Value& w, bool in_out, bool bias,
             const std::string& name = {}) {
  if (w.dims.size() != 2) im.fail(n, "the weight '" + w.weight + "' must be a matrix");
  const std::int64_t out = in_out ? w.dims[1] : w.dims[0];
  const std::int64_t in = in_out ? w.dims[0] : w.dims[1];
  const ir::Shape xs = im.ir_shape(x);
  if (xs.empty() || xs.back() != in)
    im.fail(n, "the weight " + ir::to_string(w.dims) + " does not fit an input of " + ir::to_string(im.full_shape(x)));
  ir::Attrs attrs{{"out", out}, {"bias", bias}};
  // A slice of a learned tensor is a weight of its own: nn.MultiheadAttention's cross-attention splits
  // its packed in_proj_weight into the queries' [E, E] and the keys' and values' [2E, E], two linear
  // layers that together hold the tensor once. The same slice read twice is a tied weight.
  const std::string key = w.weight + w.part;
  const auto owner = im.owner(key);
  if (owner) attrs.set("tied", static_cast<std::int64_t>(*owner));
  Value y = im.emit("linear", {x}, std::move(attrs), n, x.batch_axis, name);
  if (!owner) im.set_owner(key, y.layer);
  return y;
}

void gemm(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  if (attr_int(n, "transA", 0) != 0) im.fail(n, "transA is not supported (the batch would move)");
  const Value w = weight_input(im, n, 1, 2);
  im.set_output(n, 0, linear(im, n, x, w, attr_int(n, "transB", 0) == 0, im.has_input(n, 2)));
}

void matmul(Importer& im, const onnx::NodeProto& n) {
  const Value& a = im.input(n, 0);
  const Value& b = im.input(n, 1);
  // Data times a learned matrix is a linear layer. The data may be the same for every sample: a
  // learned tensor, a buffer, or what is computed from them (Swin V2's position-bias MLP over its fixed
  // coordinates table), a linear layer over a batch-independent value, counted per sample as every
  // value is.
  if ((a.is_layer() || a.learned()) && !b.is_layer() && b.learned() && b.dims.size() == 2) {
    im.set_output(n, 0, linear(im, n, im.materialize(a, n), b, true, false));
    return;
  }
  const Value x = im.materialize(n, 0), y = im.materialize(n, 1);
  if (x.batched() && y.batched() &&
      (x.batch_axis != y.batch_axis || x.folded != y.folded || im.full_shape(x).size() != im.full_shape(y).size()))
    im.fail(n, "multiplies tensors whose batch axes do not line up");
  if (!x.batched() && !y.batched()) im.fail(n, "multiplies two learned tensors: not per-sample work Ridge can count");
  if (x.batch_axis > 0 || y.batch_axis > 0) im.fail(n, "expects the batch on axis 0");
  im.set_output(n, 0, im.emit("matmul", {x, y}, {}, n, 0));
}

void batchnorm(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const Value scale = weight_input(im, n, 1, 1);
  const Value y = im.emit("batchnorm", {x}, {{"eps", attr_float(n, "epsilon", 1e-5)}}, n, 0);
  im.set_owner(scale.weight, y.layer);
  im.set_output(n, 0, y);
}

void instancenorm(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  need_batch_first(im, n, x);
  im.set_output(n, 0, im.emit("instancenorm", {x}, {{"eps", attr_float(n, "epsilon", 1e-5)}, {"affine", true}}, n, 0));
}

void layernorm(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  const auto rank = static_cast<std::int64_t>(im.full_shape(x).size());
  std::int64_t axis = attr_int(n, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis <= x.batch_axis || axis >= rank) im.fail(n, "normalises over the batch axis");
  im.set_output(n, 0, im.emit("layernorm", {x}, {{"dims", rank - axis}, {"eps", attr_float(n, "epsilon", 1e-5)},
                                                 {"affine", im.has_input(n, 1)}, {"bias", im.has_input(n, 2)}},
                              n, x.batch_axis));
}

void unary(Importer& im, const onnx::NodeProto& n, std::string_view op, ir::Attrs attrs = {}) {
  const Value x = im.materialize(n, 0);
  im.set_output(n, 0, im.emit(op, {x}, std::move(attrs), n, x.batch_axis));
}

void clip(Importer& im, const onnx::NodeProto& n) {
  double lo = -INFINITY, hi = INFINITY;
  if (im.opset() >= 11) {
    if (im.has_input(n, 1)) lo = im.const_data(n, 1).at(0);
    if (im.has_input(n, 2)) hi = im.const_data(n, 2).at(0);
  } else {
    lo = attr_float(n, "min", -INFINITY);
    hi = attr_float(n, "max", INFINITY);
  }
  if (lo == 0 && hi == 6) return unary(im, n, "relu6");
  if (lo == 0 && std::isinf(hi) && hi > 0) return unary(im, n, "relu");
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) im.fail(n, "clips to [" + std::to_string(lo) + ", " + std::to_string(hi) + "], an empty range");
  // An unbounded side is float's largest magnitude, which clamps nothing a tensor holds.
  constexpr double kLargest = std::numeric_limits<float>::max();   // clamp's default bounds
  unary(im, n, "clamp", {{"min", std::max(lo, -kLargest)}, {"max", std::min(hi, kLargest)}});
}

// A number an operand holds: a known constant that is not a learned tensor (or a learned scalar),
// with one value throughout, that does not widen the other operand's shape.
std::optional<double> number(const Value& v, const ir::Shape& other_full) {
  if (v.is_layer() || !v.data || v.data->empty()) return std::nullopt;
  if (!v.weight.empty() && v.data->size() > 1) return std::nullopt;
  const double first = v.data->front();
  if (!std::isfinite(first) || std::any_of(v.data->begin(), v.data->end(), [&](double d) { return d != first; })) return std::nullopt;
  const auto b = broadcast(other_full, v.dims);
  if (!b || *b != other_full) return std::nullopt;
  return first;
}

// Makes an unbatched operand broadcast against a batched one per sample: [1, T, F] beside [B, T, F]
// loses its leading 1 (a view).
Value align(Importer& im, const onnx::NodeProto& n, Value v, const Value& batched) {
  if (v.batched()) {
    if (v.batch_axis != batched.batch_axis || v.folded != batched.folded || im.full_shape(v).size() != im.full_shape(batched).size())
      im.fail(n, "combines tensors whose batch axes do not line up");
    return v;
  }
  const ir::Shape mine = im.full_shape(v);
  const std::size_t rank = im.full_shape(batched).size();
  if (mine.size() < rank) return v;
  if (mine.size() > rank || batched.batch_axis != 0 || mine[0] != 1) im.fail(n, "broadcasts a learned tensor over the batch axis");
  const ir::Shape rest = mine.size() > 1 ? ir::Shape(mine.begin() + 1, mine.end()) : ir::Shape(1, 1);
  return im.emit("reshape", {v}, {{"shape", rest}}, n, -1, ".squeeze");
}

double add_(double a, double b) { return a + b; }
double sub_(double a, double b) { return a - b; }
double mul_(double a, double b) { return a * b; }
double div_(double a, double b) {
  if (b == 0 || is_batch(a) || is_batch(b)) return kBatch;   // folded shape arithmetic: unknown, not inf
  const double q = a / b;
  return q;
}
double pow_(double a, double b) { return std::pow(a, b); }

void binary(Importer& im, const onnx::NodeProto& n, std::string_view op, double (*f)(double, double), bool commutative) {
  const Value a = im.input(n, 0), b = im.input(n, 1);
  // x - x is zeros whatever x holds: known at import when x is not data (torch.onnx's aten::zero as
  // ridge.from_torch exports it, on a slice of a learned tensor).
  if (op == "sub" && n.input(0) == n.input(1) && !a.is_layer()) {
    const std::int64_t elements = element_count_checked(a.dims, "its result");
    if (elements <= kMaxFoldedElements)
      return im.set_output(n, 0, Value::constant(a.dims, std::vector<double>(static_cast<std::size_t>(elements), 0.0), a.integral));
  }
  if (!a.is_layer() && !b.is_layer() && a.data && b.data) {
    Value v = fold_binary(a, b, f, "its result");
    if (op == "div" && v.integral)
      for (double& d : *v.data) d = std::floor(d);   // integer division, as shape arithmetic means it
    im.set_output(n, 0, std::move(v));
    return;
  }
  const char* number_name = op == "pow" ? "exponent" : "b";
  if (a.is_layer()) {
    if (const auto k = number(b, im.full_shape(a))) {
      im.set_output(n, 0, im.emit(op, {a}, {{number_name, *k}}, n, a.batch_axis));
      return;
    }
  }
  if (b.is_layer() && commutative) {
    if (const auto k = number(a, im.full_shape(b))) {
      im.set_output(n, 0, im.emit(op, {b}, {{number_name, *k}}, n, b.batch_axis));
      return;
    }
  }
  // A fixed tensor (computed from shapes alone, not learned: Swin's shifted-window attention mask)
  // combined with data it does not widen: counted as the op with a number, one per element, as a
  // masked_fill by a fixed mask is (where); the IR holds no constant tensors, so its reads are left out.
  const auto fixed = [&](const Value& c, const Value& data) {
    if (c.is_layer() || !c.weight.empty() || !c.data || !data.batched() || op == "pow") return false;
    const auto out = broadcast(im.full_shape(data), c.dims);
    return out && *out == im.full_shape(data);
  };
  const double neutral = op == "mul" || op == "div" ? 1.0 : 0.0;
  if (fixed(b, a)) return im.set_output(n, 0, im.emit(op, {a}, {{number_name, neutral}}, n, a.batch_axis));
  if (commutative && fixed(a, b)) return im.set_output(n, 0, im.emit(op, {b}, {{number_name, neutral}}, n, b.batch_axis));
  Value x = im.materialize(a, n), y = im.materialize(b, n);
  if (x.batched()) y = align(im, n, y, x);
  else if (y.batched()) x = align(im, n, x, y);
  const Value& lead = x.batched() ? x : y;
  const std::size_t out_rank = std::max(im.full_shape(x).size(), im.full_shape(y).size());
  const int axis = lead.batched() ? lead.batch_axis + static_cast<int>(out_rank - im.full_shape(lead).size()) : -1;
  im.set_output(n, 0, im.emit(op, {x, y}, {}, n, axis));
}

void softmax(Importer& im, const onnx::NodeProto& n, std::string_view op) {
  const Value x = data_input(im, n);
  const auto rank = static_cast<std::int64_t>(im.full_shape(x).size());
  std::int64_t axis = attr_int(n, "axis", im.opset() >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (im.opset() < 13 && axis != rank - 1) im.fail(n, "softmax over several axes (opset < 13, axis not last)");
  im.set_output(n, 0, im.emit(op, {x}, {{"axis", im.per_sample_axis(x, axis, n)}}, n, x.batch_axis));
}

void reduce(Importer& im, const onnx::NodeProto& n, std::string_view op) {
  const Value x = data_input(im, n);
  Ints axes = attr_ints(n, "axes").value_or(Ints{});
  if (im.has_input(n, 1)) axes = as_ints(im.input(n, 1), "axes");
  if (axes.empty()) im.fail(n, "reduces every axis, the batch's included");
  Ints per_sample;
  for (const auto a : axes) per_sample.push_back(im.per_sample_axis(x, a, n));
  std::sort(per_sample.begin(), per_sample.end());
  // The mean over every spatial axis of [C, *spatial] is a global average pool (torchvision's
  // `x.mean([2, 3])` in ShuffleNet and MNASNet): counted as one.
  const auto rank = static_cast<std::int64_t>(im.ir_shape(x).size());
  Ints spatial(static_cast<std::size_t>(std::max<std::int64_t>(rank - 1, 0)));
  std::iota(spatial.begin(), spatial.end(), 1);
  if (op == "mean" && x.batch_axis == 0 && rank >= 2 && rank <= 4 && per_sample == spatial) {
    Value y = im.emit("adaptive_avgpool", {x}, {{"size", std::int64_t{1}}}, n, 0);
    if (attr_int(n, "keepdims", 1) == 0)
      y = im.emit("flatten", {y}, {}, n, 0, ".flatten");
    return im.set_output(n, 0, y);
  }
  im.set_output(n, 0, im.emit(op, {x}, {{"axes", per_sample}, {"keepdim", attr_int(n, "keepdims", 1) != 0}}, n, x.batch_axis));
}

void pool(Importer& im, const onnx::NodeProto& n, bool max) {
  Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const auto kernel = attr_ints(n, "kernel_shape");
  if (!kernel) im.fail(n, "has no kernel_shape");
  const Window w = window(im, n, x, *kernel);
  ir::Attrs attrs{{"kernel", w.kernel}, {"stride", w.stride}, {"pad", w.pad}, {"ceil", attr_int(n, "ceil_mode", 0) != 0}};
  if (max) attrs.set("dilation", w.dilation);
  else attrs.set("count_include_pad", attr_int(n, "count_include_pad", 0) != 0);
  im.set_output(n, 0, im.emit(max ? "maxpool" : "avgpool", {x}, std::move(attrs), n, 0));
}

void global_pool(Importer& im, const onnx::NodeProto& n, std::string_view op) {
  const Value x = data_input(im, n);
  need_batch_first(im, n, x);
  im.set_output(n, 0, im.emit(op, {x}, {{"size", std::int64_t{1}}}, n, 0));
}

void pad(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const Ints pads = im.opset() >= 11 ? as_ints(im.input(n, 1), "pads") : attr_ints(n, "pads").value_or(Ints{});
  const std::size_t rank = im.full_shape(x).size();
  if (pads.size() != 2 * rank) im.fail(n, "pads must hold two values per axis");
  if (pads[0] != 0 || pads[rank] != 0) im.fail(n, "pads the batch axis");
  if (std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; }))
    return im.set_output(n, 0, x);   // torch's AvgPool2d export pads by zero in front: nothing
  if (im.has_input(n, 3)) im.fail(n, "pads chosen axes (the axes input); give pads for every axis");
  Ints order;
  for (std::size_t i = rank; i-- > 1;) {
    order.push_back(pads[i]);
    order.push_back(pads[i + rank]);
  }
  const std::string mode = attr_string(n, "mode", "constant");
  const std::string ridge_mode = mode == "edge" ? "replicate" : mode == "wrap" ? "circular" : mode;
  // torch pads reflect/replicate/circular over the spatial axes only: the channels' pair goes.
  if (ridge_mode != "constant" && order.size() >= 2 && order[order.size() - 1] == 0 && order[order.size() - 2] == 0)
    order.resize(order.size() - 2);
  double value = 0;
  if (im.opset() >= 11 && im.has_input(n, 2)) value = im.const_data(n, 2).empty() ? 0 : im.const_data(n, 2).at(0);
  else value = attr_float(n, "value", 0);
  if (!std::isfinite(value)) im.fail(n, "pads with a value that is not a finite number");
  im.set_output(n, 0, im.emit("pad", {x}, {{"pad", order}, {"value", value}, {"mode", ridge_mode}}, n, 0));
}

void resize(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  need_batch_first(im, n, x);
  const ir::Shape full = im.full_shape(x);
  const std::size_t spatial = full.size() - 2;
  std::string mode = attr_string(n, "mode", "nearest");
  if (mode == "linear") mode = spatial == 1 ? "linear" : spatial == 2 ? "bilinear" : "trilinear";
  else if (mode == "cubic") mode = "bicubic";
  ir::Attrs attrs{{"mode", mode}, {"align_corners", attr_string(n, "coordinate_transformation_mode", "") == "align_corners"}};
  // Upsample (opset < 10) and Resize-10 take scales as input 1; Resize 11+ as input 2, sizes as 3.
  const int scales_at = n.op_type() == "Upsample" || im.opset() < 11 ? 1 : 2;
  if (im.has_input(n, 3)) {
    // Sizes computed from the input's shape (F.interpolate(x, size=...): [batch, channels] of x's
    // Shape, then the sizes asked for) hold the batch first: only the spatial sizes are read.
    const Value& sizes = im.input(n, 3);
    if (sizes.is_layer() || !sizes.data) im.fail(n, "sizes must be known at import");
    if (sizes.data->size() != full.size()) im.fail(n, "sizes must hold one value per axis");
    if (!is_batch(sizes.data->at(0)) && sizes.data->at(0) != static_cast<double>(im.declared_batch()) && im.declared_batch() > 0)
      im.fail(n, "resizes the batch axis");
    if (as_int(sizes.data->at(1), "the channel size") != full[1]) im.fail(n, "resizes the channel axis");
    Ints spatial_sizes;
    for (std::size_t i = 2; i < full.size(); ++i) spatial_sizes.push_back(as_int(sizes.data->at(i), "a size"));
    attrs.set("size", spatial_sizes);
  } else if (im.has_input(n, scales_at) && !im.const_data(n, scales_at).empty()) {
    const auto& scales = im.const_data(n, scales_at);
    if (scales.size() != full.size()) im.fail(n, "scales must hold one value per axis");
    Ints ints;
    for (std::size_t i = 2; i < scales.size(); ++i) {
      if (scales[i] != std::floor(scales[i]) || scales[i] < 1) im.fail(n, "scales by " + std::to_string(scales[i]) + "; Ridge resizes by whole factors or to sizes");
      ints.push_back(static_cast<std::int64_t>(scales[i]));
    }
    attrs.set("scale", ints);
  } else {
    im.fail(n, "has neither scales nor sizes");
  }
  im.set_output(n, 0, im.emit("upsample", {x}, std::move(attrs), n, 0));
}

// LSTM / GRU over X [T, B, I] (layout 0, as torch exports them): one IR layer per node, its output Y
// [T, D, B, H] a view of the IR's [T, D*H]. The final states Y_h and Y_c ([D, B, H], what nn.LSTM and
// nn.GRU return beside the sequence) are made inside the recurrent kernel, whose costs count them, and
// are read from there: each is a view of Y's last step, which has their shape (for a reverse direction
// the final state is the first step's; a view moves nothing either way).
void recurrent(Importer& im, const onnx::NodeProto& n, std::string_view op) {
  const Value x = data_input(im, n);
  if (attr_int(n, "layout", 0) != 0) im.fail(n, "layout 1 (batch first) is not supported");
  if (x.batch_axis != 1 || im.full_shape(x).size() != 3) im.fail(n, "expects X as [T, batch, features]");
  const Value w = weight_input(im, n, 1, 3);
  const std::string direction = attr_string(n, "direction", "forward");
  const bool bidirectional = direction == "bidirectional";
  const std::int64_t hidden = attr_int(n, "hidden_size", 0);
  const Value y = im.emit(op, {x}, {{"hidden", hidden}, {"bidirectional", bidirectional}, {"bias", im.has_input(n, 3)}}, n, -1);
  im.set_owner(w.weight, y.layer);
  const ir::Shape out = im.ir_shape(y);
  const std::int64_t dirs = bidirectional ? 2 : 1;
  im.set_output(n, 0, im.emit("reshape", {y}, {{"shape", Ints{out.at(0), dirs, out.at(1) / dirs}}}, n, 2, ".y"));
  static constexpr std::array<const char*, 3> kFinal = {"", ".h", ".c"};
  for (int i = 1; i < std::min(n.output_size(), 3); ++i) {
    if (n.output(i).empty() || im.consumers(n.output(i)) == 0) continue;
    const Value last = im.emit("slice", {y}, {{"start", out.at(0) - 1}, {"size", std::int64_t{1}}, {"axis", std::int64_t{0}}}, n, -1,
                               std::string(kFinal[static_cast<std::size_t>(i)]) + "_step");
    im.set_output(n, i, im.emit("reshape", {last}, {{"shape", Ints{dirs, out.at(1) / dirs}}}, n, 1, kFinal[static_cast<std::size_t>(i)]));
  }
}

void prelu(Importer& im, const onnx::NodeProto& n) {
  const Value x = data_input(im, n);
  const Value& slope = im.input(n, 1);
  if (slope.is_layer()) im.fail(n, "the slope must be an initializer");
  const std::int64_t count = element_count_checked(slope.dims, "the slope");
  const Value y = im.emit("prelu", {x}, {{"num", count}}, n, x.batch_axis);
  if (!slope.weight.empty()) im.set_owner(slope.weight, y.layer);
  im.set_output(n, 0, y);
}

}  // namespace

Value linear_layer(Importer& im, const onnx::NodeProto& n, const Value& x, const Value& w, bool bias, const std::string& name,
                   bool w_in_out) {
  return linear(im, n, x, w, w_in_out, bias, name);
}

void add_op_converters(std::map<std::string, Converter>& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["Gemm"] = gemm;
  t["MatMul"] = matmul;
  t["BatchNormalization"] = batchnorm;
  t["InstanceNormalization"] = instancenorm;
  t["LayerNormalization"] = layernorm;
  t["Relu"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "relu"); };
  t["Sigmoid"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "sigmoid"); };
  t["Tanh"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "tanh"); };
  t["HardSigmoid"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "hardsigmoid"); };
  t["HardSwish"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "hardswish"); };
  t["Mish"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "mish"); };
  t["Exp"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "exp"); };
  t["Sqrt"] = [](Importer& im, const onnx::NodeProto& n) {
    const Value& x = im.input(n, 0);
    if (!x.is_layer() && x.data && x.weight.empty()) {
      Value v = x;
      for (double& d : *v.data) d = std::sqrt(d);
      v.integral = false;
      return im.set_output(n, 0, v);
    }
    unary(im, n, "sqrt");
  };
  t["Gelu"] = [](Importer& im, const onnx::NodeProto& n) {
    unary(im, n, "gelu", {{"approximate", attr_string(n, "approximate", "none")}});
  };
  t["LeakyRelu"] = [](Importer& im, const onnx::NodeProto& n) {
    unary(im, n, "leaky_relu", {{"negative_slope", attr_float(n, "alpha", 0.01)}});
  };
  t["Elu"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "elu", {{"alpha", attr_float(n, "alpha", 1.0)}}); };
  t["Softplus"] = [](Importer& im, const onnx::NodeProto& n) { unary(im, n, "softplus"); };
  t["PRelu"] = prelu;
  t["Clip"] = clip;
  t["Add"] = [](Importer& im, const onnx::NodeProto& n) { binary(im, n, "add", add_, true); };
  t["Sub"] = [](Importer& im, const onnx::NodeProto& n) { binary(im, n, "sub", sub_, false); };
  t["Mul"] = [](Importer& im, const onnx::NodeProto& n) { binary(im, n, "mul", mul_, true); };
  t["Div"] = [](Importer& im, const onnx::NodeProto& n) { binary(im, n, "div", div_, false); };
  t["Pow"] = [](Importer& im, const onnx::NodeProto& n) { binary(im, n, "pow", pow_, false); };
  t["Softmax"] = [](Importer& im, const onnx::NodeProto& n) { softmax(im, n, "softmax"); };
  t["LogSoftmax"] = [](Importer& im, const onnx::NodeProto& n) { softmax(im, n, "log_softmax"); };
  t["ReduceMean"] = [](Importer& im, const onnx::NodeProto& n) { reduce(im, n, "mean"); };
  t["ReduceSum"] = [](Importer& im, const onnx::NodeProto& n) { reduce(im, n, "sum"); };
  t["ReduceMax"] = [](Importer& im, const onnx::NodeProto& n) { reduce(im, n, "amax"); };
  t["ReduceL2"] = [](Importer& im, const onnx::NodeProto& n) { reduce(im, n, "norm"); };
  t["MaxPool"] = [](Importer& im, const onnx::NodeProto& n) { pool(im, n, true); };
  t["AveragePool"] = [](Importer& im, const onnx::NodeProto& n) { pool(im, n, false); };
  t["GlobalAveragePool"] = [](Importer& im, const onnx::NodeProto& n) { global_pool(im, n, "adaptive_avgpool"); };
  t["GlobalMaxPool"] = [](Importer& im, const onnx::NodeProto& n) { global_pool(im, n, "adaptive_maxpool"); };
  t["Pad"] = pad;
  t["Resize"] = resize;
  t["Upsample"] = resize;
  t["LSTM"] = [](Importer& im, const onnx::NodeProto& n) { recurrent(im, n, "lstm"); };
  t["GRU"] = [](Importer& im, const onnx::NodeProto& n) { recurrent(im, n, "gru"); };
  t["Dropout"] = [](Importer& im, const onnx::NodeProto& n) {
    double p = attr_float(n, "ratio", 0.5);
    if (im.has_input(n, 1) && !im.const_data(n, 1).empty()) p = im.const_data(n, 1).at(0);
    if (!(p >= 0 && p < 1)) im.fail(n, "drops with ratio " + std::to_string(p) + ", not in [0, 1)");
    const Value x = data_input(im, n);
    im.set_output(n, 0, im.emit("dropout", {x}, {{"p", p}}, n, x.batch_axis));
  };
}

}  // namespace ridge::lang::onnx_import
