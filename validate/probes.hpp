// Probes: small networks calibrate measures beside the user's, so that an op class or op the engine
// times by its own PPP has layers to fit even when the user's networks have none. The classic CNNs
// one calibrates on (alexnet, vgg11, resnet18) have no depthwise convolution, three 1x1 ones and one
// global pool:
// without probes the depthwise classes took the dense conv's PPP (MobileNetV3's and EfficientNet's
// training steps came out 15-30 % fast, their 5x5 depthwise backward running at a twentieth of its
// roofline bound) and the squeeze-excite pools took the max pools' and were predicted 30-60x slow
// (issue #16). (Probing SiLU, hardswish, GELU and sigmoid as well left the elementwise fit where it
// was: its PPP stay at 1, the small ReLUs and adds running from cache faster than the copy ceiling.)
#pragma once

#include "lang/ir/network.hpp"

#include <string>
#include <vector>

namespace ridge::validate {

// Over the shapes of mobile networks, not copied from any one of them: channels doubling as the map
// halves (32 x 112^2 to 768 x 7^2), with 3x3 and 5x5 kernels. Each probe is an input, three depthwise
// convs (stride 1, 2, 1: the depthwise and depthwise_large classes) and a global average pool (the
// reduction class). The first conv's backward computes the weight gradient only, as a network's first
// layer does, and the engine counts it so; every later layer gets a gradient through the convs' weights.
// Then pointwise probes (the pointwise class: dense 1x1 convolutions), which the classic CNNs hold
// almost none of: an input, a 1x1 conv to four times the channels, one back, and a global average pool.
std::vector<ir::Network> kernel_probes();
// The pointwise probes alone, each network's name ending in `suffix`: calibrate measures them again
// at batch 16 where LibTorch runs them outside oneDNN at the user's batch (engine/cpu_dispatch.hpp),
// so that the pointwise class is fitted on the kernel larger batches run.
std::vector<ir::Network> pointwise_probes(const std::string& suffix = "");

}  // namespace ridge::validate
