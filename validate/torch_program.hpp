// The IR as a LibTorch program: one callable per layer, with its parameters allocated, so any `.net`
// runs. Each op's LibTorch form is its row under validate/lower/ (conv -> at::convolution,
// batchnorm -> at::batch_norm, ...). Shapes in the IR are per sample; here every tensor carries the batch as
// dimension 0, so per-sample axis a is tensor dimension a + 1.
#pragma once

#include "lang/ir/network.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ridge::validate {

struct ProgramError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ProgramOptions {
  at::Device device = at::kCPU;
  at::ScalarType dtype = at::kFloat;
  std::uint64_t seed = 0;
};

class TorchProgram {
 public:
  TorchProgram(const ir::Network& network, ProgramOptions options = {});

  const ir::Network& network() const { return network_; }
  const ProgramOptions& options() const { return options_; }

  // Training mode: batchnorm uses batch statistics and dropout drops, as in torch's `model.train()`.
  void set_training(bool training) { training_ = training; }
  bool training() const { return training_; }

  // Run one layer on its inputs (in the IR's argument order).
  at::Tensor run_layer(ir::LayerId id, const std::vector<at::Tensor>& inputs) const;

  // Run the whole network; returns every layer's value (index = layer id; [0] is the input).
  std::vector<at::Tensor> run_all(const at::Tensor& input) const;
  at::Tensor run(const at::Tensor& input) const;

  // A random input of the network's shape with `batch` samples.
  at::Tensor make_input(std::int64_t batch) const;

  // Learnable parameters of one layer (weight first, then bias), and of the whole network.
  const std::vector<at::Tensor>& layer_parameters(ir::LayerId id) const { return params_.at(id); }
  std::vector<at::Tensor> parameters() const;
  std::int64_t parameter_count() const;

  // Turn gradient tracking of every parameter on or off (off for inference timing).
  void set_requires_grad(bool on);

 private:
  ir::Network network_;
  ProgramOptions options_;
  bool training_ = false;
  std::vector<std::vector<at::Tensor>> params_;   // per layer
  std::vector<std::vector<at::Tensor>> buffers_;  // per layer: batchnorm running mean and variance
  std::vector<std::size_t> tied_;                 // layers whose parameters are another layer's
  mutable std::int64_t batch_ = 1;                // of the last run: for layers with no input
  bool is_tied(std::size_t id) const;
};

}  // namespace ridge::validate
