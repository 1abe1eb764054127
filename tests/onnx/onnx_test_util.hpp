// Shared by the ONNX tests: fixture paths and the counts compared.
#pragma once

#include "engine/op_costs.hpp"
#include "lang/ir/network.hpp"
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

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

// Forward and backward FLOPs and bytes of every layer together, at a batch and precision.
struct PassTotals {
  double forward_flops = 0, forward_bytes = 0, backward_flops = 0, backward_bytes = 0;
};
inline PassTotals pass_totals(const ir::Network& net, std::int64_t batch, ir::Precision precision) {
  const auto grads = engine::grad_flags(net);
  PassTotals t;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto c = engine::op_cost(net, net.layers[i], batch, precision, grads[i]);
    t.forward_flops += c.forward.flops;
    t.forward_bytes += c.forward.bytes();
    t.backward_flops += c.backward.flops;
    t.backward_bytes += c.backward.bytes();
  }
  return t;
}

}  // namespace ridge::onnx_test
