// Probes: small networks calibrate measures beside the user's, so that an op class the engine times
// by its own PPP has layers to fit even when the user's networks have none. The classic CNNs one
// calibrates on (alexnet, vgg11, resnet18) have no depthwise convolution, and without probes the
// depthwise classes took the dense conv's PPP: MobileNetV3's and EfficientNet's training steps came out
// 15-30 % fast, their 5x5 depthwise backward running at a twentieth of its roofline bound (issue #16).
#pragma once

#include "lang/ir/network.hpp"

#include <vector>

namespace ridge::validate {

// Depthwise convolutions over the shapes of mobile networks, not copied from any one of them: channels
// doubling as the map halves (32 x 112^2 to 768 x 7^2), 3x3 and 5x5 kernels (the depthwise and
// depthwise_large classes), strides 1 and 2. Each
// probe is an input and three depthwise convs (stride 1, 2, 1); the first one's backward computes the
// weight gradient only, as a network's first layer does, and the engine counts it so.
std::vector<ir::Network> depthwise_probes();

}  // namespace ridge::validate
