// Hand-built devices and small networks for the engine tests (independent of the .hw/.net parsers).
#pragma once

#include "lang/builder.hpp"
#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <vector>

namespace ridge::testing {

// NVIDIA A100 SXM4 40 GB, dense figures from the NVIDIA A100 datasheet (as hw/a100-sxm4-40gb.hw cites).
inline ir::Device a100() {
  ir::Device d;
  d.id = "a100-sxm4-40gb";
  d.name = "NVIDIA A100-SXM4-40GB";
  d.kind = ir::DeviceKind::GPU;
  const std::string src = "NVIDIA A100 datasheet";
  d.vector_peak[ir::Precision::FP64] = {9.7e12, src};
  d.vector_peak[ir::Precision::FP32] = {19.5e12, src};
  d.matrix_peak[ir::Precision::FP64] = {19.5e12, src};
  d.matrix_peak[ir::Precision::TF32] = {156e12, src};
  d.matrix_peak[ir::Precision::FP16] = {312e12, src};
  d.matrix_peak[ir::Precision::BF16] = {312e12, src};
  d.matrix_peak[ir::Precision::INT8] = {624e12, src};
  d.memory_size = ir::Figure{40.0 * 1024 * 1024 * 1024, src};
  d.memory_bandwidth = ir::Figure{1555e9, src};
  d.launch_overhead = ir::Figure{5e-6, "assumption"};
  return d;
}

// A vector-only CPU (Xeon E5-2699 v4, 2 sockets, Intel ARK 91317): no matrix units, no memory size.
inline ir::Device xeon() {
  ir::Device d;
  d.id = "xeon-e5-2699v4-2s";
  d.name = "2x Intel Xeon E5-2699 v4";
  d.kind = ir::DeviceKind::CPU;
  d.vector_peak[ir::Precision::FP64] = {1.5488e12, "ARK"};
  d.vector_peak[ir::Precision::FP32] = {3.0976e12, "ARK"};
  d.memory_bandwidth = ir::Figure{153.6e9, "ARK"};
  return d;
}

// conv(3->8, 3x3, pad 1, no bias) -> relu -> flatten -> linear(8*8*8 -> 10) on [3, 8, 8].
inline ir::Network tiny() {
  lang::NetworkBuilder b("tiny", {3, 8, 8});
  auto x = b.conv(b.input(), 8, 3, {.padding = 1, .bias = false});
  x = b.relu(x);
  x = b.flatten(x);
  x = b.linear(x, 10);
  return b.finish(x);
}

// A MobileNetV3-flavoured block: depthwise conv, hardswish, squeeze-excite (mul), batchnorm,
// dropout, avgpool.
inline ir::Network mobile_block() {
  lang::NetworkBuilder b("mobile_block", {16, 32, 32});
  auto x = b.batchnorm(b.conv(b.input(), 32, 1, {.bias = false}));
  x = b.activation("hardswish", x);
  x = b.conv(x, 32, 3, {.padding = 1, .groups = 32, .bias = false});
  auto s = b.adaptive_avgpool(x, 1, 1);
  s = b.activation("relu", b.conv(s, 8, 1));
  s = b.activation("hardsigmoid", b.conv(s, 32, 1));
  x = b.mul(x, s);
  x = b.avgpool(x, 2);
  x = b.activation("silu", x);
  x = b.dropout(b.flatten(x), 0.2);
  return b.finish(b.linear(x, 10));
}

// ShuffleNet-flavoured: slices, concat, channel shuffle, maxpool.
inline ir::Network shuffle_block() {
  lang::NetworkBuilder b("shuffle_block", {24, 16, 16});
  auto x = b.maxpool(b.input(), 3, {.stride = 1, .padding = 1});
  auto l = b.call("slice", {x}, {{"axis", 0}, {"start", 0}, {"size", 12}});
  auto r = b.call("slice", {x}, {{"axis", 0}, {"start", 12}, {"size", 12}});
  r = b.relu(b.conv(r, 12, 1));
  x = b.concat({l, r}, 0);
  x = b.call("channel_shuffle", {x}, {{"groups", 2}});
  return b.finish(x);
}

// Transformer-flavoured: linear projections, matmul, softmax, layernorm, gelu, tanh, sigmoid, relu6.
inline ir::Network attention_block() {
  lang::NetworkBuilder b("attention_block", {16, 64});
  auto x = b.layernorm(b.input());
  auto q = b.linear(x, 64);
  auto k = b.linear(x, 64);
  auto kt = b.call("reshape", {k}, {{"shape", std::vector<std::int64_t>{64, 16}}});
  auto a = b.call("softmax", {b.matmul(q, kt)}, {{"axis", 1}});
  auto y = b.matmul(a, x);
  y = b.activation("gelu", b.linear(y, 128));
  y = b.activation("tanh", y);
  y = b.activation("sigmoid", y);
  y = b.activation("relu6", y);
  y = b.add(b.linear(y, 64), x);
  return b.finish(y);
}

}  // namespace ridge::testing
