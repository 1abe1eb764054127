#include "engine/op_costs.hpp"

#include "engine/simulate.hpp"
#include "tests/engine/fixtures.hpp"
#include "tests/ir/resnet18_builder.hpp"

#include "lang/ir/ops.hpp"
#include "lang/parse.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

namespace {

const ir::Layer& find(const ir::Network& n, const std::string& name) {
  for (const auto& l : n.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

engine::OpCost cost_of(const ir::Network& n, const std::string& name, std::int64_t batch = 1,
                       ir::Precision p = ir::Precision::FP32) {
  const auto flags = engine::grad_flags(n);
  for (std::size_t i = 0; i < n.layers.size(); ++i)
    if (n.layers[i].name == name) return engine::op_cost(n, n.layers[i], batch, p, flags[i]);
  throw std::runtime_error("no layer " + name);
}

}  // namespace

TEST_CASE("every IR op has a row in the engine's cost table") {
  REQUIRE(ir::all_ops().size() >= 59);   // the input and the 58 ops of docs/language.md
  for (const auto& spec : ir::all_ops()) {
    INFO("op " << spec.name);
    CHECK(engine::has_cost(ir::op(spec.name)));
  }
}

TEST_CASE("docs/language.md's op table names every op of the spec table") {
  const std::string doc = lang::read_source(std::string(RIDGE_SOURCE_DIR) + "/docs/language.md");
  const auto table = doc.find("### Ops");
  REQUIRE(table != std::string::npos);
  const std::string ops = doc.substr(table, doc.find("\n### ", table + 1) - table);
  for (const auto& spec : ir::all_ops()) {
    if (spec.name == "input") continue;
    INFO("op " << spec.name);
    CHECK(ops.find("`" + std::string(spec.name) + "`") != std::string::npos);
  }
}

TEST_CASE("a conv layer's MACs follow the hand formula C_out*H_out*W_out*(C_in/groups)*k*k") {
  const ir::Network net = testing::resnet18_from_builder();
  // ResNet-18's stem: 3 -> 64 channels, 7x7, stride 2, on 224x224 -> 112x112.
  const double macs = 64.0 * 112 * 112 * 3 * 7 * 7;   // 118,013,952
  const auto c = cost_of(net, find(net, "conv1").name, 2);
  CHECK(c.macs == 2 * macs);
  CHECK(c.forward.flops == 4 * macs);                  // 2 FLOPs per MAC
  CHECK(c.params == 64 * 3 * 7 * 7);
  // Forward bytes: input + weights read, output written, 4 B each in fp32.
  CHECK(c.forward.bytes_read == (2.0 * 3 * 224 * 224 + 9408) * 4);
  CHECK(c.forward.bytes_written == 2.0 * 64 * 112 * 112 * 4);
  CHECK(c.op_class == ir::OpClass::MatMul);
}

TEST_CASE("a depthwise conv's MACs divide the input channels by the groups") {
  const ir::Network net = testing::mobile_block();
  const auto c = cost_of(net, "conv2");
  CHECK(c.macs == 32.0 * 32 * 32 * 1 * 3 * 3);
  CHECK(c.op_class == ir::OpClass::Depthwise);
  CHECK_FALSE(c.matrix_unit);   // per-channel dot products of 9: no tensor-core tile to fill
}

TEST_CASE("a pool over the whole map is a reduction, as mean is, a windowed pool is pooling") {
  const ir::Network net = lang::parse_network(
      "network p {\n  input x: [64, 14, 14]\n  y = x -> maxpool(3, stride: 2, pad: 1)\n"
      "  a = y -> adaptive_avgpool(1)\n  b = y -> avgpool(7)\n  c = y -> adaptive_avgpool(2)\n"
      "  d = y -> mean([1, 2])\n  return concat([flatten(a), flatten(b), flatten(c), flatten(d)])\n}\n", "p.net");
  CHECK(cost_of(net, "maxpool1").op_class == ir::OpClass::Pooling);
  CHECK(cost_of(net, "adaptive_avgpool1").op_class == ir::OpClass::Reduction);   // squeeze-excite's pool
  CHECK(cost_of(net, "avgpool1").op_class == ir::OpClass::Reduction);            // 7x7 on a 7x7 map
  CHECK(cost_of(net, "adaptive_avgpool2").op_class == ir::OpClass::Pooling);     // 2x2 windows
  CHECK(cost_of(net, "mean1").op_class == ir::OpClass::Reduction);
}

TEST_CASE("a dense 1x1 conv is pointwise, on the matrix units, a grouped 1x1 stays a matmul") {
  const ir::Network net = lang::parse_network(
      "network q {\n  input x: [64, 56, 56]\n  y = x -> conv(256, 1)\n  z = y -> conv(128, 1, stride: 2)\n"
      "  return z -> conv(128, 1, groups: 4)\n}\n", "q.net");
  const auto expand = cost_of(net, "conv1");
  CHECK(expand.op_class == ir::OpClass::Pointwise);
  CHECK(expand.matrix_unit);   // the same GEMM as before the class was split off
  CHECK(expand.macs == 256.0 * 56 * 56 * 64);
  CHECK(cost_of(net, "conv2").op_class == ir::OpClass::Pointwise);   // strided, still 1x1
  CHECK(cost_of(net, "conv3").op_class == ir::OpClass::MatMul);      // ShuffleNet-style grouped 1x1
}

TEST_CASE("a grouped conv with several input channels per group stays a matmul") {
  // ResNeXt-style grouping (32 groups of 4 channels) runs the dense kernels group by group.
  const ir::Network net = lang::parse_network(
      "network g {\n  input x: [128, 8, 8]\n  return x -> conv(128, 3, pad: 1, groups: 32)\n}\n", "g.net");
  const auto c = cost_of(net, "conv1");
  CHECK(c.op_class == ir::OpClass::MatMul);
  CHECK(c.matrix_unit);
}

TEST_CASE("a linear layer's MACs are in_features * out_features per sample") {
  const ir::Network net = testing::resnet18_from_builder();
  const auto c = cost_of(net, "linear1", 8);
  CHECK(c.macs == 8.0 * 512 * 1000);
  CHECK(c.params == 512 * 1000 + 1000);
}

TEST_CASE("ResNet-18 has torchvision's 1.81 GMACs and 11,689,512 parameters") {
  // torchvision ResNet18_Weights.IMAGENET1K_V1: num_params 11,689,512; _ops (GFLOPS, which are MACs) 1.81.
  const ir::Network net = testing::resnet18_from_builder();
  const auto r = engine::simulate(net, testing::a100(), {});
  CHECK(r.totals.params == 11689512);
  // 1.81 is rounded to 3 digits: within half a unit of the last digit.
  CHECK(r.totals.macs == Approx(1.81e9).epsilon(0.003));
}

TEST_CASE("the first conv computes no input gradient: the network input needs none") {
  const ir::Network net = testing::resnet18_from_builder();
  const auto stem = cost_of(net, "conv1");
  CHECK(stem.backward.flops == 2 * stem.macs);          // weight gradient only
  CHECK(stem.backward.bytes_written == stem.params * 4);
  const auto later = cost_of(net, "basic1.conv1");
  CHECK(later.backward.flops == 4 * later.macs);        // input and weight gradients
}

TEST_CASE("layers before any parameter have no backward pass") {
  const ir::Network net = testing::shuffle_block();
  CHECK(cost_of(net, "maxpool1").backward == engine::PassCost{});
  CHECK(cost_of(net, "slice1").backward == engine::PassCost{});
  const auto flags = engine::grad_flags(net);
  CHECK_FALSE(flags[0].output);
}

TEST_CASE("views cost nothing in the forward pass") {
  const ir::Network net = testing::tiny();
  const auto f = cost_of(net, "flatten1");
  CHECK(f.view);
  CHECK(f.forward == engine::PassCost{});
  CHECK(f.backward == engine::PassCost{});
}

TEST_CASE("dropout is free at inference and a masked multiply in training") {
  const ir::Network net = testing::mobile_block();
  const auto d = cost_of(net, "dropout1");
  CHECK(d.forward == engine::PassCost{});
  CHECK(d.forward_train.flops == 32.0 * 16 * 16);
  CHECK(d.backward.flops == 32.0 * 16 * 16);
}

TEST_CASE("adaptive average pooling to 1x1 sums each channel's whole plane") {
  const ir::Network net = testing::resnet18_from_builder();
  const auto c = cost_of(net, "adaptive_avgpool1");
  CHECK(c.forward.flops == 512.0 * 7 * 7);
  CHECK(c.macs == 0);
  CHECK(c.op_class == ir::OpClass::Reduction);   // a global pool
}

TEST_CASE("elementwise costs follow the documented per-element counts") {
  const ir::Network net = testing::tiny();
  const auto relu = cost_of(net, "relu1", 4);
  const double n = 4.0 * 8 * 8 * 8;
  CHECK(relu.forward.flops == n);
  CHECK(relu.forward.bytes_read == n * 4);
  CHECK(relu.forward.bytes_written == n * 4);
  CHECK(relu.backward.bytes_read == 2 * n * 4);   // output gradient and saved input
}

TEST_CASE("bytes scale with the precision's width") {
  const ir::Network net = testing::tiny();
  const auto fp32 = cost_of(net, "conv1", 1, ir::Precision::FP32);
  const auto fp16 = cost_of(net, "conv1", 1, ir::Precision::FP16);
  const auto i8 = cost_of(net, "conv1", 1, ir::Precision::INT8);
  CHECK(fp32.forward.bytes() == 2 * fp16.forward.bytes());
  CHECK(fp32.forward.bytes() == 4 * i8.forward.bytes());
  CHECK(fp32.forward.flops == i8.forward.flops);
}

TEST_CASE("batch norm reads its input twice in training and once at inference") {
  const ir::Network net = testing::resnet18_from_builder();
  const auto bn = cost_of(net, "batchnorm1");
  const double n = 64.0 * 112 * 112;
  CHECK(bn.forward.flops == 2 * n);
  CHECK(bn.forward_train.flops == 7 * n);
  CHECK(bn.forward_train.bytes_read == (2 * n + 4 * 64) * 4);
}
