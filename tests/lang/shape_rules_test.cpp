// Output shapes of every op whose shape rule (lang/ir/ops/*.cpp) is not the identity, from .net text,
// each derived in a comment from PyTorch's documented formula; and the attribute combinations PyTorch
// refuses, refused here with lang::Error. Shapes are per sample: PyTorch's batch axis is left out, so
// axis 0 is torch's dim 1 (the channel axis of a [C, H, W] value).
#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ridge;

namespace {

// The shape a network returns; `body` holds its statements after `input x: <input>`.
ir::Shape returned(const std::string& body, const std::string& input) {
  const ir::Network net =
      lang::parse_network("network n {\n  input x: " + input + "\n" + body + "\n}\n", "shapes.net");
  return net.layers[net.output].output;
}

// The output shape of `x -> call`.
ir::Shape output_of(const std::string& call, const std::string& input) {
  return returned("  return x -> " + call, input);
}

}  // namespace

// ---- convolution -------------------------------------------------------------------------------

TEST_CASE("conv's output follows torch.nn.Conv2d's formula for stride, pad, dilation and rectangular kernels") {
  // torch.nn.Conv2d docs: H_out = floor((H_in + 2·pad − dilation·(k − 1) − 1) / stride + 1), the same for
  // W; C_out = out_channels.
  // 32, k 3, stride 2, pad 1: floor((32 + 2 − 2 − 1) / 2 + 1) = floor(31 / 2) + 1 = 16.
  CHECK(output_of("conv(16, 3, stride: 2, pad: 1)", "[3, 32, 32]") == ir::Shape{16, 16, 16});
  // Rectangular: H 10, k 3, stride 1, pad 1: (10 + 2 − 2 − 1) / 1 + 1 = 10;
  //              W 11, k 5, stride 2, pad 2: floor((11 + 4 − 4 − 1) / 2) + 1 = 5 + 1 = 6.
  CHECK(output_of("conv(8, [3, 5], stride: [1, 2], pad: [1, 2])", "[4, 10, 11]") == ir::Shape{8, 10, 6});
  // Dilation 2, k 3 (span 5): (9 − 2·2 − 1) / 1 + 1 = 5; with pad 2: (9 + 4 − 4 − 1) + 1 = 9.
  CHECK(output_of("conv(4, 3, dilation: 2)", "[2, 9, 9]") == ir::Shape{4, 5, 5});
  CHECK(output_of("conv(4, 3, dilation: 2, pad: 2)", "[2, 9, 9]") == ir::Shape{4, 9, 9});
  // A 1x1 conv with stride 2 (ResNet's downsample): floor((56 − 0 − 1) / 2) + 1 = 27 + 1 = 28.
  CHECK(output_of("conv(128, 1, stride: 2, bias: false)", "[64, 56, 56]") == ir::Shape{128, 28, 28});
}

TEST_CASE("conv's groups keep the spatial formula and set the channels to out, as torch.nn.Conv2d") {
  // torch.nn.Conv2d docs: groups splits in and out channels; in_channels and out_channels must both be
  // divisible by groups; the output has out_channels channels and the usual spatial size:
  // (8 + 2 − 2 − 1) / 1 + 1 = 8.
  CHECK(output_of("conv(6, 3, pad: 1, groups: 3)", "[3, 8, 8]") == ir::Shape{6, 8, 8});
  // Depthwise (groups = in = out), stride 2: floor((8 + 2 − 2 − 1) / 2) + 1 = 3 + 1 = 4.
  CHECK(output_of("conv(3, 3, stride: 2, pad: 1, groups: 3)", "[3, 8, 8]") == ir::Shape{3, 4, 4});
}

TEST_CASE("conv on [C, L] is torch.nn.Conv1d and on [C, D, H, W] torch.nn.Conv3d") {
  // torch.nn.Conv1d docs: L_out = floor((L_in + 2·pad − dilation·(k − 1) − 1) / stride + 1):
  // 20, k 4, stride 3: floor((20 − 3 − 1) / 3) + 1 = 5 + 1 = 6.
  CHECK(output_of("conv(5, 4, stride: 3)", "[2, 20]") == ir::Shape{5, 6});
  // torch.nn.Conv3d docs, the same formula per axis, kernel [3, 3, 1], stride [1, 2, 1], pad [1, 1, 0]:
  //   D 8: (8 + 2 − 2 − 1) / 1 + 1 = 8;  H 9: floor((9 + 2 − 2 − 1) / 2) + 1 = 5;  W 7: (7 − 0 − 1) + 1 = 7.
  CHECK(output_of("conv(4, [3, 3, 1], stride: [1, 2, 1], pad: [1, 1, 0])", "[2, 8, 9, 7]") == ir::Shape{4, 8, 5, 7});
}

TEST_CASE("conv refuses what torch.nn.Conv2d refuses") {
  // "in_channels must be divisible by groups": 6 % 4 != 0.
  CHECK_THROWS_AS(output_of("conv(8, 3, groups: 4)", "[6, 8, 8]"), lang::Error);
  // "out_channels must be divisible by groups": 5 % 2 != 0.
  CHECK_THROWS_AS(output_of("conv(5, 3, groups: 2)", "[4, 8, 8]"), lang::Error);
  // "Kernel size can't be greater than actual input size": a 5-wide kernel over 4 unpadded.
  CHECK_THROWS_AS(output_of("conv(1, 5)", "[1, 4, 4]"), lang::Error);
  // "non-positive stride is not supported".
  CHECK_THROWS_AS(output_of("conv(1, 3, stride: 0)", "[1, 8, 8]"), lang::Error);
  // A 2-d kernel for a 1-d input (Conv1d takes one kernel size).
  CHECK_THROWS_AS(output_of("conv(4, [3, 3])", "[2, 10]"), lang::Error);
}

TEST_CASE("conv_transpose's output follows torch.nn.ConvTranspose2d's formula") {
  // torch.nn.ConvTranspose2d docs:
  //   H_out = (H_in − 1)·stride − 2·pad + dilation·(k − 1) + output_padding + 1.
  // 7, k 4, stride 2, pad 1 (DCGAN's upsampling): 6·2 − 2 + 3 + 0 + 1 = 14.
  CHECK(output_of("conv_transpose(8, 4, stride: 2, pad: 1)", "[16, 7, 7]") == ir::Shape{8, 14, 14});
  // 7, k 3, stride 2, pad 1, output_padding 1: 12 − 2 + 2 + 1 + 1 = 14 (without it: 13).
  CHECK(output_of("conv_transpose(8, 3, stride: 2, pad: 1, output_pad: 1)", "[16, 7, 7]") == ir::Shape{8, 14, 14});
  CHECK(output_of("conv_transpose(8, 3, stride: 2, pad: 1)", "[16, 7, 7]") == ir::Shape{8, 13, 13});
  // Dilation 2, k 3, stride 1: 4·1 − 0 + 2·2 + 0 + 1 = 9.
  CHECK(output_of("conv_transpose(4, 3, dilation: 2)", "[2, 5, 5]") == ir::Shape{4, 9, 9});
  // output_padding 1 with stride 1 is allowed when dilation (2) exceeds it ("smaller than either stride
  // or dilation"): 4 + 4 + 1 + 1 = 10.
  CHECK(output_of("conv_transpose(4, 3, dilation: 2, output_pad: 1)", "[2, 5, 5]") == ir::Shape{4, 10, 10});
  // Rectangular: H 5, k 2, stride 2, pad 0, output_padding 1: 4·2 − 0 + 1 + 1 + 1 = 11;
  //              W 6, k 3, stride 1, pad 1, output_padding 0: 5·1 − 2 + 2 + 0 + 1 = 6.
  CHECK(output_of("conv_transpose(4, [2, 3], stride: [2, 1], pad: [0, 1], output_pad: [1, 0])", "[2, 5, 6]") ==
        ir::Shape{4, 11, 6});
  // Groups 2 (4 and 6 both divisible): 4·1 + 2 + 1 = 7.
  CHECK(output_of("conv_transpose(6, 3, groups: 2)", "[4, 5, 5]") == ir::Shape{6, 7, 7});
}

TEST_CASE("conv_transpose on [C, L] is ConvTranspose1d and on [C, D, H, W] ConvTranspose3d") {
  // torch.nn.ConvTranspose1d docs, the same formula: 4, k 5, stride 3: 3·3 + 4 + 1 = 14.
  CHECK(output_of("conv_transpose(3, 5, stride: 3)", "[2, 4]") == ir::Shape{3, 14});
  // torch.nn.ConvTranspose3d, k 2, stride 2: (n − 1)·2 + 1 + 1 = 2n: 3, 4, 5 -> 6, 8, 10.
  CHECK(output_of("conv_transpose(2, 2, stride: 2)", "[4, 3, 4, 5]") == ir::Shape{2, 6, 8, 10});
}

TEST_CASE("conv_transpose refuses what torch.nn.ConvTranspose2d refuses") {
  // "output padding must be smaller than either stride or dilation": 2 >= stride 2 and >= dilation 1.
  CHECK_THROWS_AS(output_of("conv_transpose(4, 3, stride: 2, output_pad: 2)", "[2, 5, 5]"), lang::Error);
  // 1 >= stride 1 and >= dilation 1.
  CHECK_THROWS_AS(output_of("conv_transpose(4, 3, output_pad: 1)", "[2, 5, 5]"), lang::Error);
  // in_channels (4) not divisible by groups (3).
  CHECK_THROWS_AS(output_of("conv_transpose(6, 3, groups: 3)", "[4, 5, 5]"), lang::Error);
  // An empty output: 1, k 1, pad 1: 0 − 2 + 0 + 0 + 1 = −1 ("Output size is too small").
  CHECK_THROWS_AS(output_of("conv_transpose(1, 1, pad: 1)", "[1, 1, 1]"), lang::Error);
}

// ---- pooling and resampling ---------------------------------------------------------------------

TEST_CASE("maxpool's output follows torch.nn.MaxPool2d's formula for stride, pad, dilation and ceil") {
  // torch.nn.MaxPool2d docs: H_out = floor((H_in + 2·pad − dilation·(k − 1) − 1) / stride + 1)
  // (ceil instead of floor with ceil_mode); stride defaults to kernel_size.
  // ResNet's stem pool: 112, k 3, stride 2, pad 1: floor(111 / 2) + 1 = 56.
  CHECK(output_of("maxpool(3, stride: 2, pad: 1)", "[64, 112, 112]") == ir::Shape{64, 56, 56});
  // Default stride = kernel 2: floor((7 − 1 − 1) / 2) + 1 = 2 + 1 = 3.
  CHECK(output_of("maxpool(2)", "[3, 7, 7]") == ir::Shape{3, 3, 3});
  // Dilation 2, k 3, stride 1: (9 − 4 − 1) / 1 + 1 = 5.
  CHECK(output_of("maxpool(3, stride: 1, dilation: 2)", "[1, 9, 9]") == ir::Shape{1, 5, 5});
  // Rectangular: H 6, k 2, stride 2, pad 1: (6 + 2 − 1 − 1) / 2 + 1 = 4;
  //              W 6, k 3, stride 1, pad 1: (6 + 2 − 2 − 1) / 1 + 1 = 6.
  CHECK(output_of("maxpool([2, 3], stride: [2, 1], pad: [1, 1])", "[1, 6, 6]") == ir::Shape{1, 4, 6});
  // ceil_mode: 8, k 3, stride 2: ceil(5 / 2) + 1 = 4; the last window starts at (4 − 1)·2 = 6 < 8, so
  // it stays (torch drops a last window only if it starts in the right padding). floor mode: 2 + 1 = 3.
  CHECK(output_of("maxpool(3, stride: 2, ceil: true)", "[1, 8, 8]") == ir::Shape{1, 4, 4});
  CHECK(output_of("maxpool(3, stride: 2)", "[1, 8, 8]") == ir::Shape{1, 3, 3});
}

TEST_CASE("avgpool's output follows torch.nn.AvgPool2d's formula, with ceil mode") {
  // torch.nn.AvgPool2d docs: H_out = floor((H_in + 2·pad − k) / stride + 1) (ceil with ceil_mode).
  // 10, k 3, stride 2, pad 1: floor(9 / 2) + 1 = 5; ceil: ceil(9 / 2) + 1 = 6, the last window starting
  // at (6 − 1)·2 − 1 = 9, inside the input, so it stays.
  CHECK(output_of("avgpool(3, stride: 2, pad: 1)", "[2, 10, 10]") == ir::Shape{2, 5, 5});
  CHECK(output_of("avgpool(3, stride: 2, pad: 1, ceil: true)", "[2, 10, 10]") == ir::Shape{2, 6, 6});
  // Default stride = kernel 2: floor((9 − 2) / 2) + 1 = 4.
  CHECK(output_of("avgpool(2)", "[5, 9, 9]") == ir::Shape{5, 4, 4});
}

TEST_CASE("pooling on [C, L] is torch's 1-d pooling and on [C, D, H, W] its 3-d pooling") {
  // torch.nn.AvgPool1d docs: L_out = floor((L_in + 2·pad − k) / stride + 1): 11, k 4, stride 2:
  // floor(7 / 2) + 1 = 4.
  CHECK(output_of("avgpool(4, stride: 2)", "[3, 11]") == ir::Shape{3, 4});
  // torch.nn.MaxPool3d, k 2 (stride 2): floor((n − 2) / 2) + 1 = n / 2 for even n: 4, 6, 8 -> 2, 3, 4.
  CHECK(output_of("maxpool(2)", "[2, 4, 6, 8]") == ir::Shape{2, 2, 3, 4});
  // torch.nn.MaxPool1d, k 3, stride 1, pad 1: (10 + 2 − 2 − 1) + 1 = 10.
  CHECK(output_of("maxpool(3, stride: 1, pad: 1)", "[4, 10]") == ir::Shape{4, 10});
}

TEST_CASE("pooling refuses what torch's pooling refuses") {
  // "pad should be at most half of kernel size": pad 2 > 3 / 2 = 1; pad 2 > 2 / 2 = 1.
  CHECK_THROWS_AS(output_of("maxpool(3, pad: 2)", "[1, 8, 8]"), lang::Error);
  CHECK_THROWS_AS(output_of("avgpool(2, pad: 2)", "[1, 8, 8]"), lang::Error);
  // "Output size is too small": a 5-wide window over 3 values, floor((3 − 4 − 1) / 5) + 1 = 0.
  CHECK_THROWS_AS(output_of("maxpool(5)", "[1, 3, 3]"), lang::Error);
  CHECK_THROWS_AS(output_of("avgpool(5)", "[1, 3, 3]"), lang::Error);
}

TEST_CASE("adaptive pooling outputs the size it is given, per spatial axis, as torch.nn.AdaptiveAvgPool2d") {
  // torch.nn.AdaptiveAvgPool2d/AdaptiveMaxPool2d docs: output [C, H_out, W_out] = output_size; an int
  // is the same for every axis; channels unchanged.
  CHECK(output_of("adaptive_avgpool(1)", "[512, 7, 7]") == ir::Shape{512, 1, 1});
  CHECK(output_of("adaptive_avgpool([2, 3])", "[4, 9, 10]") == ir::Shape{4, 2, 3});
  // Larger than the input is allowed (windows overlap): 5 -> 7.
  CHECK(output_of("adaptive_maxpool(7)", "[8, 5, 5]") == ir::Shape{8, 7, 7});
  // AdaptiveAvgPool1d: [C, L] -> [C, output_size]; AdaptiveMaxPool3d: [C, D, H, W] -> [C, *output_size].
  CHECK(output_of("adaptive_avgpool(5)", "[3, 20]") == ir::Shape{3, 5});
  CHECK(output_of("adaptive_maxpool([1, 2, 3])", "[2, 4, 4, 4]") == ir::Shape{2, 1, 2, 3});
  // adaptive_avg_pool2d: "output_size must be 2": three sizes for two spatial axes.
  CHECK_THROWS_AS(output_of("adaptive_avgpool([2, 2, 2])", "[4, 8, 8]"), lang::Error);
}

TEST_CASE("upsample scales or sets each spatial axis, as torch.nn.functional.interpolate") {
  // torch.nn.Upsample / F.interpolate docs: D_out = floor(D_in × scale_factor), or D_out = size when a
  // size is given; an int applies to every spatial axis; channels unchanged.
  CHECK(output_of("upsample(scale: 2)", "[3, 5, 7]") == ir::Shape{3, 10, 14});
  CHECK(output_of("upsample(scale: [2, 3])", "[3, 5, 7]") == ir::Shape{3, 10, 21});
  CHECK(output_of("upsample(size: [8, 9], mode: \"bilinear\")", "[3, 5, 7]") == ir::Shape{3, 8, 9});
  CHECK(output_of("upsample(size: 12)", "[3, 5, 7]") == ir::Shape{3, 12, 12});
  // linear mode on [C, L] (3-d batched input): 6 × 4 = 24; trilinear on [C, D, H, W]: ×2 each.
  CHECK(output_of("upsample(scale: 4, mode: \"linear\")", "[2, 6]") == ir::Shape{2, 24});
  CHECK(output_of("upsample(scale: 2, mode: \"trilinear\")", "[2, 3, 4, 5]") == ir::Shape{2, 6, 8, 10});
}

TEST_CASE("upsample refuses a mode that does not fit the input's rank, or neither scale nor size") {
  // F.interpolate: "Got 3D input, but bilinear mode needs 4D input" (batched [N, C, L] is 3-d).
  CHECK_THROWS_AS(output_of("upsample(scale: 2, mode: \"bilinear\")", "[2, 6]"), lang::Error);
  // "Got 4D input, but trilinear mode needs 5D input".
  CHECK_THROWS_AS(output_of("upsample(scale: 2, mode: \"trilinear\")", "[2, 6, 6]"), lang::Error);
  // "Got 4D input, but linear mode needs 3D input".
  CHECK_THROWS_AS(output_of("upsample(scale: 2, mode: \"linear\")", "[2, 6, 6]"), lang::Error);
  // "either size or scale_factor should be defined".
  CHECK_THROWS_AS(output_of("upsample", "[2, 6, 6]"), lang::Error);
}

TEST_CASE("pixel_shuffle moves factor² channels into a factor× larger plane, as torch.nn.PixelShuffle") {
  // torch.nn.PixelShuffle docs: (C × r², H, W) -> (C, H × r, W × r).
  // r 2: 12 / 4 = 3 channels, 5·2 = 10, 6·2 = 12.
  CHECK(output_of("pixel_shuffle(2)", "[12, 5, 6]") == ir::Shape{3, 10, 12});
  // r 3: 18 / 9 = 2 channels, 2·3 = 6.
  CHECK(output_of("pixel_shuffle(3)", "[18, 2, 2]") == ir::Shape{2, 6, 6});
  // "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of
  // upscale_factor": 6 % 4 != 0; 12 % 9 != 0.
  CHECK_THROWS_AS(output_of("pixel_shuffle(2)", "[6, 4, 4]"), lang::Error);
  CHECK_THROWS_AS(output_of("pixel_shuffle(3)", "[12, 4, 4]"), lang::Error);
}

// ---- views, copies and reductions -------------------------------------------------------------

TEST_CASE("pad adds (before, after) pairs from the last axis backwards, as torch.nn.functional.pad") {
  // F.pad docs: pad = (left, right) pads the last dimension, (left, right, top, bottom) the last two,
  // and so on; a padded dimension's size is in + before + after; negative pads remove (constant mode).
  CHECK(output_of("pad([1, 2])", "[3, 4, 5]") == ir::Shape{3, 4, 8});               // W 5 + 1 + 2
  CHECK(output_of("pad([1, 1, 2, 0])", "[3, 4, 5]") == ir::Shape{3, 6, 7});         // W 5 + 2, H 4 + 2
  CHECK(output_of("pad([0, 0, 0, 0, 1, 1])", "[3, 4, 5]") == ir::Shape{5, 4, 5});   // C 3 + 2
  CHECK(output_of("pad([-1, -1])", "[3, 4, 5]") == ir::Shape{3, 4, 3});             // W 5 − 2
  // reflect / replicate / circular pad the spatial axes of a batched [N, C, H, W] (4 values).
  CHECK(output_of("pad([1, 1, 2, 2], mode: \"reflect\")", "[3, 4, 5]") == ir::Shape{3, 8, 7});
  CHECK(output_of("pad([0, 3, 1, 0], mode: \"replicate\")", "[3, 4, 5]") == ir::Shape{3, 5, 8});
  CHECK(output_of("pad([2, 2, 1, 1], mode: \"circular\")", "[3, 4, 5]") == ir::Shape{3, 6, 9});
}

TEST_CASE("pad refuses what torch.nn.functional.pad refuses") {
  // "Padding length must be divisible by 2".
  CHECK_THROWS_AS(output_of("pad([1])", "[3, 4, 5]"), lang::Error);
  // Non-constant modes on a batched 4-d input take 4 values (reflection_pad2d): 2 values is
  // "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now".
  CHECK_THROWS_AS(output_of("pad([1, 1], mode: \"reflect\")", "[3, 4, 5]"), lang::Error);
  // constant_pad_nd: negative padding that leaves a negative size: 5 − 3 − 3.
  CHECK_THROWS_AS(output_of("pad([-3, -3])", "[3, 4, 5]"), lang::Error);
}

TEST_CASE("slice keeps size entries of one axis, as torch.narrow") {
  // torch.narrow(input, dim, start, length): dim becomes length, the others stay.
  CHECK(output_of("slice(1, 3)", "[6, 4]") == ir::Shape{3, 4});
  CHECK(output_of("slice(0, 2, axis: -1)", "[6, 4]") == ir::Shape{6, 2});
  // "start (4) + length (3) exceeds dimension size (6)".
  CHECK_THROWS_AS(output_of("slice(4, 3)", "[6, 4]"), lang::Error);
}

TEST_CASE("split follows torch.chunk and torch.split") {
  // torch.chunk docs: chunks of ceil(n / chunks), the last smaller, fewer chunks if need be:
  // 10 in 3: 4, 4, 2; 6 in 4: pieces of ceil(6 / 4) = 2, so only 3 chunks.
  CHECK(returned("  a, b, c = split(x, 3)\n  return c", "[10, 2]") == ir::Shape{2, 2});
  CHECK(returned("  a, b, c = split(x, 3)\n  return a", "[10, 2]") == ir::Shape{4, 2});
  CHECK(returned("  return x -> linear(len(split(x, 4)))", "[6]") == ir::Shape{3});
  // torch.split with sizes [1, 5] along axis 1.
  CHECK(returned("  a, b = split(x, [1, 5], axis: 1)\n  return b", "[2, 6]") == ir::Shape{2, 5});
  // "split_with_sizes expects split_sizes to sum exactly to 6".
  CHECK_THROWS_AS(returned("  a, b = split(x, [3, 2])\n  return a", "[6]"), lang::Error);
}

TEST_CASE("concat adds the sizes along its axis and requires the others to match, as torch.cat") {
  // torch.cat docs: tensors must have the same shape except in the concatenating dimension, whose
  // sizes add: 3 + 8 = 11 along axis 0; 4 + 2 = 6 along axis 2 (and -1).
  CHECK(returned("  return concat(slice(x, 0, 3), x)", "[8, 4, 4]") == ir::Shape{11, 4, 4});
  CHECK(returned("  return concat(x, slice(x, 0, 2, axis: 2), axis: 2)", "[8, 4, 4]") == ir::Shape{8, 4, 6});
  CHECK(returned("  return concat(x, x, x, axis: -1)", "[8, 4, 4]") == ir::Shape{8, 4, 12});
  // "Sizes of tensors must match except in dimension 0": 4 vs 2 along axis 1.
  CHECK_THROWS_AS(returned("  return concat(x, slice(x, 0, 2, axis: 1))", "[8, 4, 4]"), lang::Error);
  // "Tensors must have same number of dimensions".
  CHECK_THROWS_AS(returned("  return concat(x, flatten(x))", "[8, 4, 4]"), lang::Error);
}

TEST_CASE("flatten merges axes axis..end, as torch.flatten") {
  // torch.flatten(input, start_dim, end_dim) merges dims start..end into their product; the per-sample
  // default (0, -1) is torch.flatten(x, 1) on a batched tensor: 64·7·7 = 3136.
  CHECK(output_of("flatten", "[64, 7, 7]") == ir::Shape{3136});
  CHECK(output_of("flatten(axis: 1)", "[2, 3, 4, 5]") == ir::Shape{2, 60});          // 3·4·5
  CHECK(output_of("flatten(axis: 0, end: 1)", "[2, 3, 4, 5]") == ir::Shape{6, 4, 5});  // 2·3
  CHECK(output_of("flatten(axis: 1, end: -2)", "[2, 3, 4, 5]") == ir::Shape{2, 12, 5});
  // "flatten() has invalid args: start_dim cannot come after end_dim".
  CHECK_THROWS_AS(output_of("flatten(axis: 2, end: 1)", "[2, 3, 4, 5]"), lang::Error);
}

TEST_CASE("reshape keeps the element count and infers one -1, as torch.reshape") {
  // torch.reshape docs: "A single dimension may be -1, in which case it's inferred from the remaining
  // dimensions and the number of elements in input": 24 / 4 = 6.
  CHECK(output_of("reshape([4, -1])", "[2, 3, 4]") == ir::Shape{4, 6});
  CHECK(output_of("reshape([2, 12])", "[2, 3, 4]") == ir::Shape{2, 12});
  CHECK(output_of("reshape([-1])", "[2, 3, 4]") == ir::Shape{24});
  // "shape '[5, 5]' is invalid for input of size 24".
  CHECK_THROWS_AS(output_of("reshape([5, 5])", "[2, 3, 4]"), lang::Error);
  // 24 is not a multiple of 5: "shape '[5, -1]' is invalid for input of size 24".
  CHECK_THROWS_AS(output_of("reshape([5, -1])", "[2, 3, 4]"), lang::Error);
  // "only one dimension can be inferred".
  CHECK_THROWS_AS(output_of("reshape([-1, -1])", "[2, 3, 4]"), lang::Error);
}

TEST_CASE("transpose swaps two axes and permute reorders them, as torch.transpose and torch.permute") {
  // torch.transpose(input, dim0, dim1): dims dim0 and dim1 swapped; negative dims count from the end.
  CHECK(output_of("transpose(0, 2)", "[2, 3, 4]") == ir::Shape{4, 3, 2});
  CHECK(output_of("transpose(-1, -2)", "[2, 3, 4]") == ir::Shape{2, 4, 3});
  // torch.permute(input, dims): out[i] = in[dims[i]]: [in[2], in[0], in[1]] = [4, 2, 3].
  CHECK(output_of("permute([2, 0, 1])", "[2, 3, 4]") == ir::Shape{4, 2, 3});
  CHECK(output_of("permute([0, -1, 1])", "[2, 3, 4]") == ir::Shape{2, 4, 3});
  // "Dimension out of range"; "repeated dim in permute"; "number of dims don't match in permute".
  CHECK_THROWS_AS(output_of("transpose(0, 3)", "[2, 3, 4]"), lang::Error);
  CHECK_THROWS_AS(output_of("permute([0, 0, 1])", "[2, 3, 4]"), lang::Error);
  CHECK_THROWS_AS(output_of("permute([1, 0])", "[2, 3, 4]"), lang::Error);
}

TEST_CASE("expand grows size-1 axes and adds leading ones, as torch.Tensor.expand") {
  // torch.Tensor.expand docs: -1 keeps a size; singleton dimensions expand to any size; "the tensor can
  // also be expanded to a larger number of dimensions, and the new ones will be appended at the front".
  CHECK(output_of("expand([3, 4, 5])", "[3, 1, 5]") == ir::Shape{3, 4, 5});
  // New leading 2; -1 keeps 3; 1 -> 4; 5 stays.
  CHECK(output_of("expand([2, -1, 4, 5])", "[3, 1, 5]") == ir::Shape{2, 3, 4, 5});
  // "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0".
  CHECK_THROWS_AS(output_of("expand([4, 4, 5])", "[3, 1, 5]"), lang::Error);
  // "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0".
  CHECK_THROWS_AS(output_of("expand([-1, 3, 1, 5])", "[3, 1, 5]"), lang::Error);
  // "the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)".
  CHECK_THROWS_AS(output_of("expand([1, 5])", "[3, 1, 5]"), lang::Error);
}

TEST_CASE("gather picks count entries along its axis, as torch.index_select") {
  // torch.index_select(input, dim, index): dim has len(index) entries, the others stay.
  CHECK(output_of("gather(5)", "[7, 3]") == ir::Shape{5, 3});
  CHECK(output_of("gather(10, axis: 1)", "[7, 3]") == ir::Shape{7, 10});
  CHECK(output_of("gather(4, axis: -1)", "[7, 3]") == ir::Shape{7, 4});
  // "Dimension out of range".
  CHECK_THROWS_AS(output_of("gather(2, axis: 2)", "[7, 3]"), lang::Error);
}

TEST_CASE("mean, sum and amax drop their axes, or keep them as 1 with keepdim, as torch.mean") {
  // torch.mean/sum/amax(input, dim, keepdim) docs: the dims in `dim` are removed, or kept with size 1
  // when keepdim is true.
  CHECK(output_of("mean(axes: [1, 2])", "[8, 5, 6]") == ir::Shape{8});
  CHECK(output_of("mean(axes: [1, 2], keepdim: true)", "[8, 5, 6]") == ir::Shape{8, 1, 1});
  CHECK(output_of("sum(axes: 0)", "[8, 5, 6]") == ir::Shape{5, 6});
  CHECK(output_of("sum(axes: -1, keepdim: true)", "[8, 5, 6]") == ir::Shape{8, 5, 1});
  CHECK(output_of("amax(axes: [0, 2])", "[8, 5, 6]") == ir::Shape{5});
  CHECK(output_of("amax(axes: [0, 2], keepdim: true)", "[8, 5, 6]") == ir::Shape{1, 5, 1});
  // No axes: every per-sample axis (torch.amax with dim=()); with keepdim, all ones. (Without keepdim
  // torch leaves a per-sample scalar, shape []; Ridge keeps it as [1], so that case is left out.)
  CHECK(output_of("mean(keepdim: true)", "[8, 5, 6]") == ir::Shape{1, 1, 1});
  // "Dimension out of range".
  CHECK_THROWS_AS(output_of("sum(axes: 3)", "[8, 5, 6]"), lang::Error);
}

TEST_CASE("ops along an axis keep the shape and refuse an axis out of range") {
  // torch.softmax/log_softmax(input, dim) docs: the output has the input's shape; torch.roll too.
  CHECK(output_of("softmax", "[8, 5, 6]") == ir::Shape{8, 5, 6});
  CHECK(output_of("softmax(axis: 0)", "[8, 5, 6]") == ir::Shape{8, 5, 6});
  CHECK(output_of("log_softmax(axis: 1)", "[8, 5, 6]") == ir::Shape{8, 5, 6});
  CHECK(output_of("roll([1, -2], [1, 2])", "[8, 5, 6]") == ir::Shape{8, 5, 6});
  // "Dimension out of range (expected to be in range of [-3, 2], but got 3)".
  CHECK_THROWS_AS(output_of("softmax(axis: 3)", "[8, 5, 6]"), lang::Error);
  CHECK_THROWS_AS(output_of("log_softmax(axis: -4)", "[8, 5, 6]"), lang::Error);
  // torch.roll: "shifts and dimensions must align. shifts: 1, dims:2".
  CHECK_THROWS_AS(output_of("roll([1], [1, 2])", "[8, 5, 6]"), lang::Error);
}

TEST_CASE("channel_shuffle keeps the shape and refuses channels not divisible by groups") {
  // torch.nn.ChannelShuffle: output shape = input shape; "Number of channels must be divisible by groups".
  CHECK(output_of("channel_shuffle(2)", "[6, 4, 4]") == ir::Shape{6, 4, 4});
  CHECK_THROWS_AS(output_of("channel_shuffle(4)", "[6, 4, 4]"), lang::Error);
}

// ---- ops with weights --------------------------------------------------------------------------

TEST_CASE("linear replaces the last axis with out, as torch.nn.Linear") {
  // torch.nn.Linear docs: input (*, H_in) -> output (*, H_out), H_out = out_features.
  CHECK(output_of("linear(10)", "[4]") == ir::Shape{10});
  CHECK(output_of("linear(10)", "[7, 3, 16]") == ir::Shape{7, 3, 10});
}

TEST_CASE("matmul multiplies the last two axes and broadcasts the rest, as torch.matmul") {
  // torch.matmul docs: (..., M, K) @ (..., K, N) -> (..., M, N), batch dimensions broadcast.
  // [3, 4, 5] @ [3, 5, 4] -> [3, 4, 4].
  CHECK(returned("  return matmul(x, transpose(x, -1, -2))", "[3, 4, 5]") == ir::Shape{3, 4, 4});
  // [2, 1, 3, 4] @ [5, 4, 6]: batch [2, 1] with [5] broadcasts to [2, 5]; -> [2, 5, 3, 6].
  CHECK(returned("  return matmul(x, parameter([5, 4, 6]))", "[2, 1, 3, 4]") == ir::Shape{2, 5, 3, 6});
  // [3, 4] @ [4, 7] -> [3, 7].
  CHECK(returned("  return matmul(x, parameter([4, 7]))", "[3, 4]") == ir::Shape{3, 7});
  // Inner sizes differ (5 vs 4): "Expected size for first two dimensions of batch2 tensor to be ...".
  CHECK_THROWS_AS(returned("  return matmul(x, x)", "[3, 4, 5]"), lang::Error);
  // Batch sizes 3 and 2 do not broadcast.
  CHECK_THROWS_AS(returned("  return matmul(x, parameter([2, 5, 6]))", "[3, 4, 5]"), lang::Error);
}

TEST_CASE("attention's output is [queries, heads × value head width], as scaled_dot_product_attention") {
  // F.scaled_dot_product_attention docs: query (N, ..., Hq, L, E), key (N, ..., H, S, E), value
  // (N, ..., H, S, Ev) -> (N, ..., Hq, L, Ev); with enable_gqa, Hq a multiple of H. Heads merged
  // back: [L, Hq·Ev].
  // q [4, 16], 4 heads: E = 4; k [10, 8], 2 KV heads: E = 4; v [10, 12]: Ev = 6 -> [4, 4·6] = [4, 24].
  const std::string qkv = "  q = slice(x, 0, 4) -> linear(16)\n  k = x -> linear(8)\n  v = x -> linear(12)\n";
  CHECK(returned(qkv + "  return attention(q, k, v, 4, kv_heads: 2)", "[10, 32]") == ir::Shape{4, 24});
  // Self-attention, 2 heads of 16: [10, 32].
  CHECK(returned("  return attention(x, x, x, 2)", "[10, 32]") == ir::Shape{10, 32});
  // Hq (3) not a multiple of H (2): "number of heads in key/value must divide number of heads in query".
  CHECK_THROWS_AS(returned(qkv + "  return attention(q, k, v, 3, kv_heads: 2)", "[10, 32]"), lang::Error);
  // Query width 16 in 3 heads does not split (view fails).
  CHECK_THROWS_AS(returned(qkv + "  return attention(q, q, q, 3)", "[10, 32]"), lang::Error);
  // Key head width 8 / 1 = 8 vs the queries' 16 / 4 = 4: q @ kᵀ cannot multiply.
  CHECK_THROWS_AS(returned(qkv + "  return attention(q, k, v, 4, kv_heads: 1)", "[10, 32]"), lang::Error);
  // Keys (S = 10) and values (S = 5) differ in length: probabilities [L, 10] @ v [5, Ev] cannot multiply.
  CHECK_THROWS_AS(returned(qkv + "  w = slice(v, 0, 5)\n  return attention(q, k, w, 4, kv_heads: 2)", "[10, 32]"),
                  lang::Error);
}

TEST_CASE("embedding appends its dimension to the ids' shape, as torch.nn.Embedding") {
  // torch.nn.Embedding docs: input (*) -> output (*, H), H = embedding_dim.
  CHECK(output_of("embedding(1000, 64)", "[12]") == ir::Shape{12, 64});
  CHECK(output_of("embedding(1000, 64)", "[3, 5]") == ir::Shape{3, 5, 64});
}

TEST_CASE("lstm and gru output [T, directions × hidden], as torch.nn.LSTM and torch.nn.GRU") {
  // torch.nn.LSTM / GRU docs: output (L, N, D·H_out), D = 2 if bidirectional else 1; num_layers does
  // not change it.
  CHECK(output_of("lstm(32)", "[20, 8]") == ir::Shape{20, 32});
  CHECK(output_of("lstm(32, layers: 2, bidirectional: true)", "[20, 8]") == ir::Shape{20, 64});
  CHECK(output_of("gru(16, bidirectional: true)", "[20, 8]") == ir::Shape{20, 32});
  CHECK(output_of("gru(16, layers: 3)", "[20, 8]") == ir::Shape{20, 16});
  // "hidden_size must be greater than zero".
  CHECK_THROWS_AS(output_of("lstm(0)", "[20, 8]"), lang::Error);
}

TEST_CASE("moe keeps the token shape and refuses top_k above the expert count") {
  // Mixtral's sparse MoE block returns hidden states of the input's shape; its router's
  // torch.topk(k = top_k) over `experts` logits refuses k > experts ("selected index k out of range").
  CHECK(output_of("moe(8, 2, 64)", "[10, 16]") == ir::Shape{10, 16});
  CHECK_THROWS_AS(output_of("moe(2, 3, 64)", "[10, 16]"), lang::Error);
}

TEST_CASE("parameter has the shape it is given, the same for every sample") {
  // nn.Parameter(torch.zeros(1, 4, 6)) has shape [1, 4, 6]; added to x [4, 6] it broadcasts to [1, 4, 6].
  CHECK(returned("  return add(x, parameter([1, 4, 6]))", "[4, 6]") == ir::Shape{1, 4, 6});
}

// ---- pointwise and normalisation ---------------------------------------------------------------

TEST_CASE("pointwise ops broadcast their tensors, as PyTorch's broadcasting semantics") {
  // PyTorch's broadcasting semantics docs: align trailing dimensions; each pair must be equal or one of
  // them 1 (or missing); the result takes the larger.
  CHECK(returned("  return add(x, mean(x, axes: [1, 2], keepdim: true))", "[4, 5, 6]") == ir::Shape{4, 5, 6});
  CHECK(returned("  return mul(x, slice(x, 0, 1))", "[4, 5, 6]") == ir::Shape{4, 5, 6});   // [1, 5, 6]
  CHECK(returned("  return sub(x, parameter([2, 1, 1, 6]))", "[4, 5, 6]") == ir::Shape{2, 4, 5, 6});
  CHECK(returned("  return div(x, parameter([6]))", "[4, 5, 6]") == ir::Shape{4, 5, 6});
  CHECK(returned("  return pow(x, 2)", "[4, 5, 6]") == ir::Shape{4, 5, 6});
  // [4, 5, 6] and [4, 2, 6]: 5 vs 2, neither 1.
  CHECK_THROWS_AS(returned("  return add(x, slice(x, 0, 2, axis: 1))", "[4, 5, 6]"), lang::Error);
}

TEST_CASE("normalisation keeps the shape and refuses what torch's norms refuse") {
  // torch.nn.LayerNorm / RMSNorm / GroupNorm / BatchNorm2d / InstanceNorm2d docs: output same shape as input.
  CHECK(output_of("layernorm(dims: 2)", "[4, 5, 6]") == ir::Shape{4, 5, 6});
  CHECK(output_of("rmsnorm", "[4, 5, 6]") == ir::Shape{4, 5, 6});
  CHECK(output_of("groupnorm(3)", "[6, 4, 4]") == ir::Shape{6, 4, 4});
  CHECK(output_of("batchnorm", "[6, 4, 4]") == ir::Shape{6, 4, 4});
  CHECK(output_of("instancenorm", "[6, 4, 4]") == ir::Shape{6, 4, 4});
  // LayerNorm: normalized_shape of 4 axes for a 3-d input ("Given normalized_shape=..., expected input
  // with shape [*, ...]").
  CHECK_THROWS_AS(output_of("layernorm(dims: 4)", "[4, 5, 6]"), lang::Error);
  // GroupNorm: "num_channels must be divisible by num_groups": 6 % 4 != 0.
  CHECK_THROWS_AS(output_of("groupnorm(4)", "[6, 4, 4]"), lang::Error);
}

TEST_CASE("dropout keeps the shape and refuses a probability above 1") {
  // torch.nn.Dropout docs: output same shape as input; "dropout probability has to be between 0 and 1".
  CHECK(output_of("dropout(0.2)", "[6, 4, 4]") == ir::Shape{6, 4, 4});
  CHECK_THROWS_AS(output_of("dropout(1.5)", "[6, 4, 4]"), lang::Error);
}

TEST_CASE("what PyTorch refuses in reductions, padding, interpolation and prelu is refused at the call") {
  // torch.mean(x, dim=(0, 0)): "dim 0 appears multiple times in the list of dims".
  CHECK_THROWS_AS(output_of("mean(axes: [0, 0])", "[3, 4, 5]"), lang::Error);
  CHECK_THROWS_AS(output_of("sum(axes: [1, -2])", "[3, 4, 5]"), lang::Error);   // -2 is axis 1 again
  // F.pad(mode="reflect"): "Padding size should be less than the corresponding input dimension"
  // (5 on a width of 5 is refused, 4 accepted: 5 + 2 x 4 = 13).
  CHECK_THROWS_AS(output_of("pad([5, 5, 0, 0], mode: \"reflect\")", "[2, 5, 5]"), lang::Error);
  CHECK(output_of("pad([4, 4, 0, 0], mode: \"reflect\")", "[2, 5, 5]") == ir::Shape{2, 5, 13});
  // mode="circular": "Padding value causes wrapping around more than once" past the axis' length.
  CHECK_THROWS_AS(output_of("pad([6, 0, 0, 0], mode: \"circular\")", "[2, 5, 5]"), lang::Error);
  CHECK(output_of("pad([5, 0, 0, 0], mode: \"circular\")", "[2, 5, 5]") == ir::Shape{2, 5, 10});
  // A fill value with a non-constant mode: "Padding mode \"reflect\" doesn't take in value argument".
  CHECK_THROWS_AS(output_of("pad([1, 1, 1, 1], mode: \"reflect\", value: 1)", "[2, 5, 5]"), lang::Error);
  // F.interpolate: "only one of size or scale_factor should be defined"; align_corners only with the
  // interpolating modes.
  CHECK_THROWS_AS(output_of("upsample(scale: 2, size: 8)", "[2, 4, 4]"), lang::Error);
  CHECK_THROWS_AS(output_of("upsample(scale: 2, align_corners: true)", "[2, 4, 4]"), lang::Error);
  CHECK(output_of("upsample(scale: 2, mode: \"bilinear\", align_corners: true)", "[2, 4, 4]") == ir::Shape{2, 8, 8});
  // nn.PReLU(num_parameters=3) on 4 channels fails in torch; here at the call, as a diagnostic.
  CHECK_THROWS_AS(output_of("prelu(num: 3)", "[4, 5, 5]"), lang::Error);
  CHECK(output_of("prelu(num: 4)", "[4, 5, 5]") == ir::Shape{4, 5, 5});
}

TEST_CASE("the norms' parameters are torch's: layernorm with and without its bias, rmsnorm's weight alone") {
  // nn.LayerNorm(8): weight and bias, 16; nn.LayerNorm(8, bias=False): the weight alone, 8;
  // nn.LayerNorm([4, 8]): 2 x 32 = 64; nn.RMSNorm(8): 8.
  const auto params = [](const std::string& call) {
    const ir::Network net = lang::parse_network("network n {\n  input x: [4, 8]\n  return x -> " + call + "\n}\n", "norm.net");
    const ir::Layer& layer = net.layers[net.output];
    return ir::parameter_count(layer, ir::input_shapes(net, layer));
  };
  CHECK(params("layernorm") == 16);
  CHECK(params("layernorm(bias: false)") == 8);
  CHECK(params("layernorm(dims: 2)") == 64);
  CHECK(params("rmsnorm") == 8);
}
