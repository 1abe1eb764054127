#include "validate/torch_program.hpp"

#include "lang/ir/ops.hpp"
#include "validate/lower/lowering.hpp"

#include <string>

namespace ridge::validate {
namespace {

const lower::Row& row(const ir::Layer& l) {
  const lower::Row* r = lower::find(l.op);
  if (!r) throw ProgramError("layer '" + l.name + "': op '" + std::string(ir::op_name(l.op)) + "' has no LibTorch form");
  return *r;
}

// On a GPU, images and convolution weights are laid out channels-last (NHWC), as GPU users run
// convolutions and as the kernel model times them (an implicit GEMM over NHWC): in PyTorch's default
// NCHW, cuDNN on Hopper converts every convolution's input and output (nchwToNhwcKernel and back),
// 8 % of an H200 calibration's GPU time (validate/measured/h200-sxm-2026-11-26). The layers after a
// convolution keep the format PyTorch propagates. A leaf stays a leaf: the copy is made outside autograd.
at::Tensor channels_last(const at::Tensor& t) {
  if (t.dim() != 4) return t;
  return t.detach().contiguous(at::MemoryFormat::ChannelsLast).requires_grad_(t.requires_grad());
}

}  // namespace

TorchProgram::TorchProgram(const ir::Network& network, ProgramOptions options)
    : network_(network), options_(options), params_(network.layers.size()), buffers_(network.layers.size()) {
  if (network_.layers.empty() || network_.layers.front().op != ir::kInputOp)
    throw ProgramError("network '" + network_.name + "' has no input layer");
  for (std::size_t id = 1; id < network_.layers.size(); ++id)
    if (network_.layers[id].op == ir::kInputOp)
      throw ProgramError("network '" + network_.name + "' takes several inputs ('" + network_.layers[id].name +
                         "' besides the first); LibTorch programs are built for networks of one input");
  at::manual_seed(options_.seed);
  const auto o = at::TensorOptions().dtype(options_.dtype).device(options_.device);
  for (std::size_t id = 0; id < network_.layers.size(); ++id) {
    const ir::Layer& l = network_.layers[id];
    const lower::Row& r = row(l);
    if (const auto owner = ir::tied_to(l)) {
      params_[id] = params_.at(*owner);   // the same tensors: one parameter used twice
      tied_.push_back(id);
      continue;
    }
    if (r.init) params_[id] = r.init(lower::Init{l, ir::input_shapes(network_, l), o, buffers_[id]});
    if (options_.device.is_cuda())
      for (at::Tensor& p : params_[id]) p = channels_last(p);
  }
}

at::Tensor TorchProgram::run_layer(ir::LayerId id, const std::vector<at::Tensor>& x) const {
  const ir::Layer& l = network_.layers.at(id);
  const std::int64_t batch = x.empty() ? batch_ : x.front().size(0);
  return row(l).run(lower::Run{l, x, params_[id], buffers_[id], training_, batch});
}

std::vector<at::Tensor> TorchProgram::run_all(const at::Tensor& input) const {
  batch_ = input.size(0);
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
  batch_ = input.size(0);
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
  // A network that looks its input up in embedding tables reads token ids, as a language model does.
  std::int64_t vocabulary = 0;
  for (const ir::Layer& l : network_.layers)
    if (ir::op_name(l.op) == "embedding" && !l.inputs.empty() && l.inputs.front() == 0)
      vocabulary = vocabulary == 0 ? l.attrs.i("num") : std::min(vocabulary, l.attrs.i("num"));
  if (vocabulary > 0)
    return at::randint(vocabulary, shape, at::TensorOptions().dtype(at::kLong).device(options_.device));
  const at::Tensor input = at::randn(shape, at::TensorOptions().dtype(options_.dtype).device(options_.device));
  return options_.device.is_cuda() ? channels_last(input) : input;
}

bool TorchProgram::is_tied(std::size_t id) const { return std::find(tied_.begin(), tied_.end(), id) != tied_.end(); }

std::vector<at::Tensor> TorchProgram::parameters() const {
  std::vector<at::Tensor> all;
  for (std::size_t id = 0; id < params_.size(); ++id)
    if (!is_tied(id)) all.insert(all.end(), params_[id].begin(), params_[id].end());   // each tensor once
  return all;
}

std::int64_t TorchProgram::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& t : parameters()) n += t.numel();
  return n;
}

void TorchProgram::set_requires_grad(bool on) {
  for (auto& p : params_)
    for (auto& t : p) t.requires_grad_(on);
}

}  // namespace ridge::validate
