#include "torch_program.hpp"

#include "ir/ops.hpp"

#include <cmath>
#include <string>

namespace ridge::validate {
namespace {

using ir::Op;

// Per-sample axis -> tensor dimension (the batch is dimension 0). Negative axes count from the end,
// which is the same in both.
std::int64_t dim(std::int64_t axis) { return axis < 0 ? axis : axis + 1; }

std::vector<std::int64_t> pair(ir::Pair p) { return {p.h, p.w}; }

// Per-sample broadcasting aligns shapes on the right, but a batched tensor of lower per-sample rank
// would align its batch dimension with a per-sample one; insert the missing unit dimensions after
// the batch so torch broadcasts what the IR broadcasts.
at::Tensor lift_rank(const at::Tensor& t, std::int64_t rank) {
  if (t.dim() >= rank) return t;
  std::vector<std::int64_t> shape{t.size(0)};
  for (std::int64_t i = t.dim(); i < rank; ++i) shape.push_back(1);
  for (std::int64_t i = 1; i < t.dim(); ++i) shape.push_back(t.size(i));
  return t.view(shape);
}

std::pair<at::Tensor, at::Tensor> aligned(const at::Tensor& a, const at::Tensor& b) {
  const std::int64_t rank = std::max(a.dim(), b.dim());
  return {lift_rank(a, rank), lift_rank(b, rank)};
}

// Fan-in scaled normal initialisation keeps activations O(1) through deep stacks: values that blow up
// to inf/NaN or decay into denormals change CPU timings.
at::Tensor weight(std::vector<std::int64_t> shape, std::int64_t fan_in, const at::TensorOptions& o) {
  return at::randn(shape, o).mul_(1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fan_in, 1))));
}

}  // namespace

TorchProgram::TorchProgram(const ir::Network& network, ProgramOptions options)
    : network_(network), options_(options), params_(network.layers.size()), buffers_(network.layers.size()) {
  if (network_.layers.empty() || network_.layers.front().op != Op::Input)
    throw ProgramError("network '" + network_.name + "' has no input layer");
  at::manual_seed(options_.seed);
  const auto o = at::TensorOptions().dtype(options_.dtype).device(options_.device);
  for (std::size_t id = 0; id < network_.layers.size(); ++id) {
    const ir::Layer& l = network_.layers[id];
    const auto in = ir::input_shapes(network_, l);
    const ir::Attrs& a = l.attrs;
    auto& p = params_[id];
    switch (l.op) {
      case Op::Conv: {
        const std::int64_t cin = in.at(0).at(0) / a.groups;
        p.push_back(weight({a.out, cin, a.kernel.h, a.kernel.w}, cin * a.kernel.h * a.kernel.w, o));
        if (a.bias) p.push_back(at::zeros({a.out}, o));
        break;
      }
      case Op::Linear: {
        const std::int64_t fin = in.at(0).back();
        p.push_back(weight({a.out, fin}, fin, o));
        if (a.bias) p.push_back(at::zeros({a.out}, o));
        break;
      }
      case Op::BatchNorm: {
        const std::int64_t c = in.at(0).at(0);
        p.push_back(at::ones({c}, o));
        p.push_back(at::zeros({c}, o));
        buffers_[id] = {at::zeros({c}, o), at::ones({c}, o)};
        break;
      }
      case Op::LayerNorm: {
        const std::int64_t f = in.at(0).back();
        p.push_back(at::ones({f}, o));
        p.push_back(at::zeros({f}, o));
        break;
      }
      default:
        break;
    }
  }
}

at::Tensor TorchProgram::run_layer(ir::LayerId id, const std::vector<at::Tensor>& x) const {
  const ir::Layer& l = network_.layers.at(id);
  const ir::Attrs& a = l.attrs;
  const auto& p = params_[id];
  const auto opt = [&](std::size_t i) { return i < p.size() ? c10::optional<at::Tensor>(p[i]) : c10::nullopt; };
  switch (l.op) {
    case Op::Input:
      return x.at(0);
    case Op::Conv:
      return at::conv2d(x[0], p[0], opt(1), pair(a.stride), pair(a.padding), pair(a.dilation), a.groups);
    case Op::Linear:
      return at::linear(x[0], p[0], opt(1));
    case Op::MatMul: {
      auto [u, v] = aligned(x[0], x[1]);
      return at::matmul(u, v);
    }
    case Op::BatchNorm: {
      // The running statistics are buffers: in training they are updated in place, as torch does;
      // the copies here are shallow, so the update lands in buffers_.
      at::Tensor mean = buffers_[id][0];
      at::Tensor var = buffers_[id][1];
      return at::batch_norm(x[0], p[0], p[1], mean, var, training_, 0.1, a.eps, /*cudnn_enabled=*/true);
    }
    case Op::LayerNorm:
      return at::layer_norm(x[0], {x[0].size(-1)}, p[0], p[1], a.eps);
    case Op::ReLU: return at::relu(x[0]);
    case Op::ReLU6: return at::hardtanh(x[0], 0.0, 6.0);
    case Op::SiLU: return at::silu(x[0]);
    case Op::Sigmoid: return at::sigmoid(x[0]);
    case Op::HardSwish: return at::hardswish(x[0]);
    case Op::HardSigmoid: return at::hardsigmoid(x[0]);
    case Op::GELU: return at::gelu(x[0]);
    case Op::Tanh: return at::tanh(x[0]);
    case Op::MaxPool:
      return at::max_pool2d(x[0], pair(a.kernel), pair(a.stride), pair(a.padding), pair(a.dilation), a.ceil_mode);
    case Op::AvgPool:
      return at::avg_pool2d(x[0], pair(a.kernel), pair(a.stride), pair(a.padding), a.ceil_mode,
                            a.count_include_pad);
    case Op::AdaptiveAvgPool:
      return at::adaptive_avg_pool2d(x[0], pair(a.output_size));
    case Op::AdaptiveMaxPool:
      return std::get<0>(at::adaptive_max_pool2d(x[0], pair(a.output_size)));
    case Op::Dropout:
      return at::dropout(x[0], a.p, training_);
    case Op::Flatten:
      return at::flatten(x[0], dim(a.axis));
    case Op::Reshape: {
      std::vector<std::int64_t> shape{x[0].size(0)};
      shape.insert(shape.end(), a.shape.begin(), a.shape.end());
      return x[0].reshape(shape);
    }
    case Op::Concat: {
      std::int64_t rank = 0;
      for (const auto& t : x) rank = std::max(rank, t.dim());
      return at::cat(x, dim(a.axis));
    }
    case Op::Add: {
      auto [u, v] = aligned(x[0], x[1]);
      return at::add(u, v);
    }
    case Op::Mul: {
      auto [u, v] = aligned(x[0], x[1]);
      return at::mul(u, v);
    }
    case Op::Softmax:
      return at::softmax(x[0], dim(a.axis));
    case Op::Slice:
      return x[0].narrow(dim(a.axis), a.start, a.size);
    case Op::ChannelShuffle: {
      // torchvision's channel_shuffle: view as [N, g, C/g, ...], swap the two, flatten back.
      const auto sizes = x[0].sizes().vec();
      std::vector<std::int64_t> grouped{sizes[0], a.groups, sizes[1] / a.groups};
      grouped.insert(grouped.end(), sizes.begin() + 2, sizes.end());
      return x[0].reshape(grouped).transpose(1, 2).contiguous().reshape(sizes);
    }
  }
  throw ProgramError("layer '" + l.name + "': op '" + std::string(ir::op_name(l.op)) + "' has no LibTorch form");
}

std::vector<at::Tensor> TorchProgram::run_all(const at::Tensor& input) const {
  std::vector<at::Tensor> values(network_.layers.size());
  values[0] = input;
  std::vector<at::Tensor> args;
  for (std::size_t id = 1; id < network_.layers.size(); ++id) {
    args.clear();
    for (ir::LayerId in : network_.layers[id].inputs) args.push_back(values.at(in));
    values[id] = run_layer(id, args);
  }
  return values;
}

at::Tensor TorchProgram::run(const at::Tensor& input) const {
  // Only values still needed are kept, so peak memory is that of torch's own forward, not the sum
  // of every activation.
  std::vector<std::size_t> last_use(network_.layers.size(), 0);
  for (std::size_t id = 0; id < network_.layers.size(); ++id)
    for (ir::LayerId in : network_.layers[id].inputs) last_use[in] = id;
  std::vector<at::Tensor> values(network_.layers.size());
  values[0] = input;
  std::vector<at::Tensor> args;
  for (std::size_t id = 1; id < network_.layers.size(); ++id) {
    args.clear();
    for (ir::LayerId in : network_.layers[id].inputs) args.push_back(values[in]);
    values[id] = run_layer(id, args);
    for (ir::LayerId in : network_.layers[id].inputs)
      if (last_use[in] == id && in != network_.output) values[in].reset();
  }
  return values.at(network_.output);
}

at::Tensor TorchProgram::make_input(std::int64_t batch) const {
  std::vector<std::int64_t> shape{batch};
  const ir::Shape& s = network_.input().output;
  shape.insert(shape.end(), s.begin(), s.end());
  return at::randn(shape, at::TensorOptions().dtype(options_.dtype).device(options_.device));
}

std::vector<at::Tensor> TorchProgram::parameters() const {
  std::vector<at::Tensor> all;
  for (const auto& p : params_) all.insert(all.end(), p.begin(), p.end());
  return all;
}

std::int64_t TorchProgram::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& p : params_)
    for (const auto& t : p) n += t.numel();
  return n;
}

void TorchProgram::set_requires_grad(bool on) {
  for (auto& p : params_)
    for (auto& t : p) t.requires_grad_(on);
}

}  // namespace ridge::validate
