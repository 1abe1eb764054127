// Which convolution kernel eager LibTorch runs on a CPU, where it changes what the PPP describe
// (issue #37).
//
// LibTorch 1.13 sends an fp32 convolution to oneDNN unless it is a 1x1 of unit stride and dilation,
// on a batch under 16, on one intra-op thread: then it runs its own kernel (slow_conv2d: one BLAS
// GEMM per image) (aten/src/ATen/native/Convolution.cpp, ConvParams::use_mkldnn: "For 1x1 filters,
// MKLDNN is faster than THNN when multi-threaded, but THNN is faster when single-threaded"; the same
// rule in torch 2.x). The two kernels can run far apart: on a 2-vCPU Xeon VM nn.Conv2d 1x1 256->64
// on 56x56 maps ran at 28 GFLOP/s at batch 8 and 48 at batch 16, on one thread
// (docs/results/2026-11-28-xeon-cache.md). A PPP fitted on one kernel then times the other wrongly,
// so the native one has a class of its own (ir::OpClass::PointwiseNative).
//
// The same condition's other half (a batch of one on a map of at most 20480 values also runs
// natively, at any kernel up to 3x3 and any thread count) is not modelled: no protocol measures a
// batch of one.
#pragma once

#include "lang/ir/device.hpp"

#include <cstdint>

namespace ridge::engine {

// The batch from which LibTorch runs every 1x1 convolution on oneDNN (use_mkldnn's `input.size(0) >= 16`).
inline constexpr std::int64_t kLibTorchOneDnnBatch = 16;

// Whether eager LibTorch runs a unit-stride 1x1 convolution (OpCost::unit_stride_1x1) natively on
// this device: a CPU whose figures hold for one thread, in fp32, below kLibTorchOneDnnBatch.
inline bool libtorch_runs_1x1_natively(const ir::Device& device, std::int64_t batch, ir::Precision precision) {
  return device.kind == ir::DeviceKind::CPU && device.measured_threads && device.measured_threads->value == 1.0 &&
         precision == ir::Precision::FP32 && batch < kLibTorchOneDnnBatch;
}

}  // namespace ridge::engine
