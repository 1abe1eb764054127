// A convolution with under 16 bytes of input channels (an RGB stem) runs on a GPU's CUDA cores, not
// its tensor cores, unless the runtime pads the channels (ir::OpClass::NarrowConv). Checked against
// what the H100s measured of ResNet-50's conv1 (validate/measured/), by hand against the fp32 peak,
// and at each precision's threshold.
#include "engine/explain.hpp"
#include "engine/render/render.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/reports.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace engine = ridge::engine;
namespace ir = ridge::ir;
using ridge::testing::catalogue_device;
using ridge::testing::layer_named;

namespace {

// ResNet-50's stem and a 64-channel 3x3 convolution after it.
ir::Network stem(int channels) {
  return ridge::lang::parse_network("network stem {\n  input x: [" + std::to_string(channels) +
                                        ", 224, 224]\n"
                                        "  return x -> conv(64, kernel: 7, stride: 2, pad: 3, bias: false) as conv1\n"
                                        "           -> conv(64, kernel: 3, pad: 1, bias: false) as body\n"
                                        "}\n",
                                    "stem.net");
}

ir::OpClass stem_class(int channels, ir::Precision precision, const ir::Device& device) {
  return layer_named(engine::simulate(stem(channels), device, {.batch = 8, .precision = precision}), "conv1").op_class;
}

}  // namespace

TEST_CASE("an RGB stem runs on a GPU's CUDA cores, at about half their fp32 peak as the H100s measured it") {
  const ir::Device h100 = catalogue_device("h100-sxm5");
  const engine::Report r = engine::simulate(stem(3), h100, {.batch = 32, .precision = ir::Precision::BF16});
  const engine::LayerRow& conv1 = layer_named(r, "conv1");
  const engine::LayerRow& body = layer_named(r, "body");
  CHECK(conv1.op_class == ir::OpClass::NarrowConv);
  CHECK_FALSE(conv1.peak.matrix);
  CHECK(conv1.peak.precision == ir::Precision::FP32);   // the H100 gives no bf16 vector rate: fp32 FMAs
  CHECK(body.op_class == ir::OpClass::MatMul);
  CHECK(body.peak.matrix);
  // 32 x 112 x 112 outputs x 64 channels x 147 MACs, two FLOPs each: 7.55 GFLOP. No faster than the
  // CUDA cores' 66.9 TFLOP/s allow, and no faster than the tensor cores would run a 64-channel layer.
  const double flops = 2.0 * 32 * 112 * 112 * 64 * 147;
  CHECK(conv1.fwd.flops == Approx(flops));
  CHECK(conv1.time_fwd_train.paleo_s > flops / 66.9e12);
  CHECK(conv1.time_fwd_train.paleo_s / conv1.fwd.flops > 5 * body.time_fwd_train.paleo_s / body.fwd.flops);
  // Measured: ResNet-50's conv1 forward at batch 32 in bf16, 223 us on the H100 of 2026-11-27 (224 us on
  // the one of 2026-11-26), CUPTI's kernel times (validate/measured/h100-sxm5-2026-11-27/layers/
  // bf16-resnet50.csv). On the tensor cores the model said 30 us.
  CHECK(conv1.time_fwd_train.paleo_s == Approx(223e-6).epsilon(0.25));
}

TEST_CASE("a convolution is narrow below one 16-byte vector of input channels, at every precision") {
  const ir::Device h100 = catalogue_device("h100-sxm5");
  // 8 bf16 channels fill 16 bytes; 4 tf32 (stored as fp32) channels; 16 int8 channels.
  CHECK(stem_class(7, ir::Precision::BF16, h100) == ir::OpClass::NarrowConv);
  CHECK(stem_class(8, ir::Precision::BF16, h100) == ir::OpClass::MatMul);
  CHECK(stem_class(3, ir::Precision::TF32, h100) == ir::OpClass::NarrowConv);
  CHECK(stem_class(4, ir::Precision::TF32, h100) == ir::OpClass::MatMul);
  CHECK(stem_class(8, ir::Precision::INT8, h100) == ir::OpClass::NarrowConv);
  CHECK(stem_class(16, ir::Precision::INT8, h100) == ir::OpClass::MatMul);
}

TEST_CASE("a narrow convolution stays a matmul where TensorRT pads its channels, and off a GPU") {
  const ir::Device h100 = catalogue_device("h100-sxm5");
  engine::Options padded{.batch = 8, .precision = ir::Precision::INT8};
  padded.runtime = std::make_shared<const ir::Runtime>(ridge::lang::load_runtime(std::string(RIDGE_RUNTIMES_DIR) + "/tensorrt.rt"));
  const engine::Report report = engine::simulate(stem(3), h100, padded);
  const engine::LayerRow& trt = layer_named(report, "conv1");
  CHECK(trt.op_class == ir::OpClass::MatMul);
  CHECK(trt.peak.matrix);
  // A CPU's oneDNN and a TPU's XLA have kernels of their own for a first convolution: not this class.
  CHECK(stem_class(3, ir::Precision::FP32, catalogue_device("xeon-8480")) == ir::OpClass::MatMul);
  CHECK(stem_class(3, ir::Precision::BF16, catalogue_device("tpu-v4")) == ir::OpClass::MatMul);
}

TEST_CASE("simulate --explain says why a narrow convolution is PALEO's") {
  const ir::Device h100 = catalogue_device("h100-sxm5");
  const std::string text = engine::render::explain(
      engine::explain_layer(stem(3), h100, {.batch = 8, .precision = ir::Precision::BF16}, "conv1"));
  CHECK_THAT(text, Catch::Matchers::Contains("(conv, narrow_conv class)"));
  CHECK_THAT(text, Catch::Matchers::Contains("under 16 bytes of input channels: cuDNN runs it on the CUDA cores"));
  CHECK_THAT(text, Catch::Matchers::Contains("(vector fp32)"));
}
