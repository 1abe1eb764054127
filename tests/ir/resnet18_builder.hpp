// ResNet-18 (torchvision.models.resnet18) written with the embedded C++ form. Shared by the IR tests
// and the text/builder parity test, which elaborates models/resnet18.net and compares layer by layer.
#pragma once

#include "lang/builder.hpp"

#include <string>

namespace ridge::testing {

inline ir::Network resnet18_from_builder(std::int64_t classes = 1000) {
  lang::NetworkBuilder b("resnet18", {3, 224, 224});
  using V = lang::NetworkBuilder::Value;
  const lang::ConvOptions no_bias{.bias = false};

  // torchvision's BasicBlock: conv3x3-bn-relu-conv3x3-bn, plus a 1x1 projection when the shape changes.
  auto basic = [&](V x, std::int64_t planes, std::int64_t stride) {
    auto s = b.scope("basic");
    V y = b.conv(x, planes, 3, {.stride = stride, .padding = 1, .bias = false});
    y = b.relu(b.batchnorm(y));
    y = b.batchnorm(b.conv(y, planes, 3, {.padding = 1, .bias = false}));
    V skip = x;
    if (stride != 1 || b.shape(x)[0] != planes) skip = b.batchnorm(b.conv(x, planes, 1, {.stride = stride, .bias = false}));
    return b.relu(b.add(y, skip));
  };

  V x = b.conv(b.input(), 64, 7, {.stride = 2, .padding = 3, .bias = false});
  x = b.relu(b.batchnorm(x));
  x = b.maxpool(x, 3, {.stride = 2, .padding = 1});
  const std::int64_t planes[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < 2; ++i) x = basic(x, planes[stage], stage > 0 && i == 0 ? 2 : 1);
  x = b.flatten(b.adaptive_avgpool(x, 1, 1));
  x = b.linear(x, classes);
  (void)no_bias;
  return b.finish(x);
}

}  // namespace ridge::testing
