#include "ir/ops.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace ridge::ir {
namespace {

const std::vector<OpInfo> kOps = {
    {Op::Input, "input", 0, 0},
    {Op::Conv, "conv", 1, 1},
    {Op::Linear, "linear", 1, 1},
    {Op::MatMul, "matmul", 2, 2},
    {Op::BatchNorm, "batchnorm", 1, 1},
    {Op::LayerNorm, "layernorm", 1, 1},
    {Op::ReLU, "relu", 1, 1},
    {Op::ReLU6, "relu6", 1, 1},
    {Op::SiLU, "silu", 1, 1},
    {Op::Sigmoid, "sigmoid", 1, 1},
    {Op::HardSwish, "hardswish", 1, 1},
    {Op::HardSigmoid, "hardsigmoid", 1, 1},
    {Op::GELU, "gelu", 1, 1},
    {Op::Tanh, "tanh", 1, 1},
    {Op::MaxPool, "maxpool", 1, 1},
    {Op::AvgPool, "avgpool", 1, 1},
    {Op::AdaptiveAvgPool, "adaptive_avgpool", 1, 1},
    {Op::AdaptiveMaxPool, "adaptive_maxpool", 1, 1},
    {Op::Dropout, "dropout", 1, 1},
    {Op::Flatten, "flatten", 1, 1},
    {Op::Reshape, "reshape", 1, 1},
    {Op::Concat, "concat", 1, -1},
    {Op::Add, "add", 2, 2},
    {Op::Mul, "mul", 2, 2},
    {Op::Softmax, "softmax", 1, 1},
    {Op::Slice, "slice", 1, 1},
    {Op::ChannelShuffle, "channel_shuffle", 1, 1},
};

[[noreturn]] void fail(const std::string& message) { throw ShapeError(message); }

std::string str(std::int64_t v) { return std::to_string(v); }

void require_rank(const Shape& s, std::size_t rank, std::string_view what) {
  if (s.size() != rank)
    fail(std::string(what) + " expects a " + str(static_cast<std::int64_t>(rank)) +
         "-d input per sample, got " + to_string(s));
}

// PyTorch's output-size rule for convolution and pooling along one axis.
std::int64_t window_output(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                           std::int64_t dilation, bool ceil_mode, std::string_view axis) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad < 0)
    fail("kernel, stride and dilation must be at least 1 and padding at least 0");
  const std::int64_t span = dilation * (kernel - 1) + 1;
  const std::int64_t room = in + 2 * pad - span;
  if (room < 0)
    fail("the window (" + str(span) + ") is larger than the padded input " + std::string(axis) +
         " (" + str(in + 2 * pad) + ")");
  std::int64_t out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
  // A ceil-mode window must start inside the input or its left padding (PyTorch's rule).
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Shape broadcast(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    out[i] = std::max(da, db);
  }
  return out;
}

std::int64_t checked_axis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) fail("axis " + str(axis) + " is out of range for a " + str(r) + "-d input");
  return axis < 0 ? axis + r : axis;
}

Shape infer_unchecked(Op op, const Attrs& a, const std::vector<Shape>& in) {
  switch (op) {
    case Op::Input:
      return a.shape;
    case Op::Conv: {
      require_rank(in[0], 3, "conv");
      const std::int64_t c = in[0][0];
      if (a.groups < 1) fail("groups must be at least 1");
      if (a.out < 1) fail("conv needs at least one output channel");
      if (c % a.groups != 0)
        fail("input channels (" + str(c) + ") are not divisible by groups (" + str(a.groups) + ")");
      if (a.out % a.groups != 0)
        fail("output channels (" + str(a.out) + ") are not divisible by groups (" + str(a.groups) + ")");
      return {a.out,
              window_output(in[0][1], a.kernel.h, a.stride.h, a.padding.h, a.dilation.h, false, "height"),
              window_output(in[0][2], a.kernel.w, a.stride.w, a.padding.w, a.dilation.w, false, "width")};
    }
    case Op::Linear: {
      if (in[0].empty()) fail("linear needs at least a 1-d input");
      if (a.out < 1) fail("linear needs at least one output feature");
      Shape out = in[0];
      out.back() = a.out;
      return out;
    }
    case Op::MatMul: {
      const Shape& x = in[0];
      const Shape& y = in[1];
      if (x.size() < 2 || y.size() < 2) fail("matmul expects inputs of at least 2 dimensions per sample");
      if (x.back() != y[y.size() - 2])
        fail("matmul inner dimensions differ: " + to_string(x) + " x " + to_string(y));
      Shape lead = broadcast(Shape(x.begin(), x.end() - 2), Shape(y.begin(), y.end() - 2));
      lead.push_back(x[x.size() - 2]);
      lead.push_back(y.back());
      return lead;
    }
    case Op::BatchNorm:
      if (in[0].empty()) fail("batchnorm needs a channel dimension");
      return in[0];
    case Op::LayerNorm:
      if (in[0].empty()) fail("layernorm needs at least a 1-d input");
      return in[0];
    case Op::ReLU: case Op::ReLU6: case Op::SiLU: case Op::Sigmoid: case Op::HardSwish:
    case Op::HardSigmoid: case Op::GELU: case Op::Tanh: case Op::Dropout:
      if (op == Op::Dropout && (a.p < 0.0 || a.p > 1.0)) fail("dropout probability must be in [0, 1]");
      return in[0];
    case Op::MaxPool:
    case Op::AvgPool: {
      require_rank(in[0], 3, op == Op::MaxPool ? "maxpool" : "avgpool");
      if (2 * a.padding.h > a.kernel.h || 2 * a.padding.w > a.kernel.w)
        fail("pooling padding must be at most half the kernel size");
      const Pair dil = op == Op::MaxPool ? a.dilation : Pair{1, 1};
      return {in[0][0],
              window_output(in[0][1], a.kernel.h, a.stride.h, a.padding.h, dil.h, a.ceil_mode, "height"),
              window_output(in[0][2], a.kernel.w, a.stride.w, a.padding.w, dil.w, a.ceil_mode, "width")};
    }
    case Op::AdaptiveAvgPool:
    case Op::AdaptiveMaxPool:
      require_rank(in[0], 3, "adaptive pooling");
      if (a.output_size.h < 1 || a.output_size.w < 1) fail("adaptive pooling output size must be positive");
      return {in[0][0], a.output_size.h, a.output_size.w};
    case Op::Flatten: {
      const std::int64_t axis = checked_axis(a.axis, in[0].size());
      Shape out(in[0].begin(), in[0].begin() + axis);
      std::int64_t rest = 1;
      for (auto it = in[0].begin() + axis; it != in[0].end(); ++it) rest *= *it;
      out.push_back(rest);
      return out;
    }
    case Op::Reshape: {
      if (a.shape.empty()) fail("reshape needs a target shape");
      Shape out = a.shape;
      const auto unknown = std::count(out.begin(), out.end(), std::int64_t{-1});
      if (unknown > 1) fail("reshape can infer at most one dimension (-1)");
      std::int64_t known = 1;
      for (auto d : out) {
        if (d == 0 || d < -1) fail("reshape dimensions must be positive (or -1 once)");
        if (d > 0) {
          if (known > kMaxElementsPerSample / d) fail("reshape target " + to_string(out) + " is absurdly large");
          known *= d;
        }
      }
      const std::int64_t total = element_count(in[0]);
      if (unknown == 1) {
        if (total % known != 0) fail("cannot reshape " + to_string(in[0]) + " to " + to_string(out));
        *std::find(out.begin(), out.end(), std::int64_t{-1}) = total / known;
      } else if (known != total) {
        fail("cannot reshape " + to_string(in[0]) + " (" + str(total) + " elements) to " + to_string(out));
      }
      return out;
    }
    case Op::Concat: {
      const std::int64_t axis = checked_axis(a.axis, in[0].size());
      Shape out = in[0];
      for (std::size_t i = 1; i < in.size(); ++i) {
        if (in[i].size() != out.size())
          fail("concat inputs differ in rank: " + to_string(in[0]) + " and " + to_string(in[i]));
        for (std::size_t d = 0; d < out.size(); ++d)
          if (static_cast<std::int64_t>(d) != axis && in[i][d] != out[d])
            fail("concat inputs differ outside axis " + str(axis) + ": " + to_string(in[0]) + " and " +
                 to_string(in[i]));
        out[axis] += in[i][axis];
      }
      return out;
    }
    case Op::Add:
    case Op::Mul:
      return broadcast(in[0], in[1]);
    case Op::Softmax:
      checked_axis(a.axis, in[0].size());
      return in[0];
    case Op::Slice: {
      const std::int64_t axis = checked_axis(a.axis, in[0].size());
      if (a.size < 1 || a.start < 0 || a.start + a.size > in[0][axis])
        fail("slice [" + str(a.start) + ", " + str(a.start + a.size) + ") is outside axis " + str(axis) +
             " of " + to_string(in[0]));
      Shape out = in[0];
      out[axis] = a.size;
      return out;
    }
    case Op::ChannelShuffle:
      if (in[0].empty()) fail("channel_shuffle needs a channel dimension");
      if (a.groups < 1 || in[0][0] % a.groups != 0)
        fail("channels (" + str(in[0][0]) + ") are not divisible by groups (" + str(a.groups) + ")");
      return in[0];
  }
  fail("unknown op");
}

}  // namespace

const std::vector<OpInfo>& all_ops() { return kOps; }

const OpInfo& op_info(Op op) {
  for (const auto& info : kOps)
    if (info.op == op) return info;
  throw std::logic_error("op missing from ir/ops.cpp");
}

std::string_view op_name(Op op) { return op_info(op).name; }

std::optional<Op> op_from_name(std::string_view name) {
  for (const auto& info : kOps)
    if (info.name == name && info.op != Op::Input) return info.op;
  return std::nullopt;
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Shape infer_shape(Op op, const Attrs& attrs, const std::vector<Shape>& inputs) {
  const OpInfo& info = op_info(op);
  const auto n = static_cast<int>(inputs.size());
  if (n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs))
    fail(std::string(info.name) + " takes " +
         (info.min_inputs == info.max_inputs ? str(info.min_inputs)
          : info.max_inputs < 0             ? "at least " + str(info.min_inputs)
                                            : str(info.min_inputs) + " to " + str(info.max_inputs)) +
         " input tensor(s), got " + str(n));
  Shape out = infer_unchecked(op, attrs, inputs);
  if (out.empty()) fail("a value needs at least one dimension per sample");
  std::int64_t total = 1;
  for (auto d : out) {
    if (d < 1) fail("the output shape " + to_string(out) + " has an empty dimension");
    if (d > kMaxDimension || total > kMaxElementsPerSample / d)
      fail("the output shape " + to_string(out) + " is absurdly large (limit " + str(kMaxElementsPerSample) +
           " elements per sample)");
    total *= d;
  }
  return out;
}

std::int64_t parameter_count(const Layer& layer, const std::vector<Shape>& in) {
  const Attrs& a = layer.attrs;
  switch (layer.op) {
    case Op::Conv:
      return a.out * (in.at(0).at(0) / a.groups) * a.kernel.h * a.kernel.w + (a.bias ? a.out : 0);
    case Op::Linear:
      return a.out * in.at(0).back() + (a.bias ? a.out : 0);
    case Op::BatchNorm:
      return 2 * in.at(0).at(0);   // weight and bias; running mean/var are buffers
    case Op::LayerNorm:
      return 2 * in.at(0).back();
    default:
      return 0;
  }
}

std::vector<Shape> input_shapes(const Network& network, const Layer& layer) {
  std::vector<Shape> shapes;
  shapes.reserve(layer.inputs.size());
  for (LayerId id : layer.inputs) shapes.push_back(network.layers.at(id).output);
  return shapes;
}

}  // namespace ridge::ir
