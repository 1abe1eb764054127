// Shared by the ONNX tests: fixture paths and the counts compared.
#pragma once

#include "engine/op_costs.hpp"
#include "ir/network.hpp"
#include "ir/ops.hpp"
#include "parse.hpp"

#include <string>

namespace ridge::onnx_test {

inline std::string fixture(const std::string& name) { return std::string(RIDGE_ONNX_FIXTURES) + "/" + name + ".onnx"; }
inline std::string zoo(const std::string& name) { return std::string(RIDGE_MODELS_DIR) + "/" + name + ".net"; }

inline std::int64_t total_parameters(const ir::Network& net) {
  std::int64_t n = 0;
  for (const auto& layer : net.layers) n += ir::parameter_count(layer, ir::input_shapes(net, layer));
  return n;
}

// Forward MACs of one sample, from the engine's op-cost table (what torchvision's "GFLOPS" count).
inline double engine_macs(const ir::Network& net) {
  const auto grads = engine::grad_flags(net);
  double macs = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    macs += engine::op_cost(net, net.layers[i], 1, ir::Precision::FP32, grads[i]).macs;
  return macs;
}

}  // namespace ridge::onnx_test
