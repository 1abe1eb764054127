// Pooling output shapes in ceil mode, from .net text: PyTorch's last-window rule (lang/ir/ops.cpp,
// window_output), which a ceil-mode shape reaches only when the last window would start in the
// right padding.
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ridge;

namespace {

ir::Shape output_of(const std::string& call, const std::string& input = "[1, 5, 5]") {
  const ir::Network net =
      lang::parse_network("network n {\n  input x: " + input + "\n  return x -> " + call + "\n}\n", "test.net");
  return net.layers.back().output;
}

}  // namespace

TEST_CASE("ceil mode drops a last window that would start in the right padding (PyTorch's rule)") {
  // PyTorch (aten/src/ATen/native/Pool.h, pooling_output_shape), for in = 5, kernel 3, stride 3, pad 1:
  //   out = ceil((in + 2·pad − dilation·(kernel − 1) − 1) / stride) + 1 = ceil((5 + 2 − 2 − 1) / 3) + 1
  //       = ceil(4 / 3) + 1 = 3
  //   last window starts at (out − 1)·stride − pad = 2·3 − 1 = 5, i.e. at index 5 = past the 5 inputs
  //   (0..4), entirely in the right padding; PyTorch's rule: if (out − 1)·stride >= in + pad, out −= 1.
  //   (3 − 1)·3 = 6 >= 5 + 1 = 6, so out = 2, and torch.nn.MaxPool2d(3, 3, 1, ceil_mode=True) maps
  //   [1, 5, 5] to [1, 2, 2].
  CHECK(output_of("maxpool(3, stride: 3, pad: 1, ceil: true)") == ir::Shape{1, 2, 2});
  CHECK(output_of("avgpool(3, stride: 3, pad: 1, ceil: true)") == ir::Shape{1, 2, 2});
  // The same without ceil mode: floor(4 / 3) + 1 = 2 (no rule needed).
  CHECK(output_of("maxpool(3, stride: 3, pad: 1)") == ir::Shape{1, 2, 2});
  // in = 6: ceil((6 + 2 − 2 − 1) / 3) + 1 = ceil(5 / 3) + 1 = 3; (3 − 1)·3 = 6 < 6 + 1 = 7: the last
  // window starts at 6 − 1 = 5, inside the input, so it stays: [1, 3, 3] (floor mode: 5 // 3 + 1 = 2).
  CHECK(output_of("maxpool(3, stride: 3, pad: 1, ceil: true)", "[1, 6, 6]") == ir::Shape{1, 3, 3});
  CHECK(output_of("maxpool(3, stride: 3, pad: 1)", "[1, 6, 6]") == ir::Shape{1, 2, 2});
  // No padding, in = 5, kernel 2, stride 2: ceil(3 / 2) + 1 = 3; (3 − 1)·2 = 4 < 5: kept (torchvision's
  // SqueezeNet pools rely on this), while floor mode gives 2.
  CHECK(output_of("maxpool(2, stride: 2, ceil: true)") == ir::Shape{1, 3, 3});
  CHECK(output_of("maxpool(2, stride: 2)") == ir::Shape{1, 2, 2});
}
