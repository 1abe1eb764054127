#include "validate/probes.hpp"

#include "lang/builder.hpp"

#include <string>

namespace ridge::validate {

std::vector<ir::Network> kernel_probes() {
  struct Shape {
    std::int64_t channels, size;
  };
  constexpr Shape kShapes[] = {{32, 112}, {96, 56}, {192, 28}, {384, 14}, {768, 7}};
  std::vector<ir::Network> probes;
  for (const std::int64_t kernel : {3, 5})
    for (const Shape& shape : kShapes) {
      // Named copies: clang 14 cannot capture a structured binding in the lambda below.
      const std::int64_t c = shape.channels, size = shape.size;
      lang::NetworkBuilder b("probe_dw" + std::to_string(kernel) + "_c" + std::to_string(c) + "_s" + std::to_string(size),
                             {c, size, size});
      const auto depthwise = [&](lang::NetworkBuilder::Value x, std::int64_t stride) {
        return b.conv(x, c, kernel, {.stride = stride, .padding = kernel / 2, .groups = c, .bias = false});
      };
      probes.push_back(b.finish(b.adaptive_avgpool(depthwise(depthwise(depthwise(b.input(), 1), 2), 1), 1, 1)));
    }
  for (ir::Network& probe : pointwise_probes()) probes.push_back(std::move(probe));
  return probes;
}

std::vector<ir::Network> pointwise_probes(const std::string& suffix) {
  // A 1x1 convolution expanding the channels four times and one projecting them back, as a bottleneck
  // or an inverted residual does, over maps from 112x112 to 7x7.
  struct Shape {
    std::int64_t channels, size;
  };
  constexpr Shape kPointwise[] = {{16, 112}, {32, 56}, {64, 56}, {128, 28}, {256, 14}, {512, 7}};
  std::vector<ir::Network> probes;
  for (const Shape& shape : kPointwise) {
    const std::int64_t c = shape.channels, size = shape.size;
    lang::NetworkBuilder b("probe_pw_c" + std::to_string(c) + "_s" + std::to_string(size) + suffix, {c, size, size});
    const auto expanded = b.conv(b.input(), 4 * c, 1, {.bias = false});
    probes.push_back(b.finish(b.adaptive_avgpool(b.conv(expanded, c, 1, {.bias = false}), 1, 1)));
  }
  return probes;
}

}  // namespace ridge::validate
