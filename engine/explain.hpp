// One layer's time, derived step by step (`simulate --explain LAYER`, issue #32): its counts, the peak
// and bandwidth it is timed against, and for a GEMM-shaped layer on a GPU with microarchitecture facts
// every GEMM's kernel plan (tile, tiles, waves, main loop, L2, DRAM, limit); for a fused attention its
// blocks and steps (kernels/attention.hpp); for a streaming op the
// streaming model's traffic and terms; for any other layer PALEO's terms. Computed here; engine/render/explain.cpp only writes it out.
#pragma once

#include "engine/kernels/attention.hpp"
#include "engine/kernels/gemm.hpp"
#include "engine/kernels/streaming.hpp"
#include "engine/report.hpp"
#include "engine/simulate.hpp"

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine {

struct GemmStep {
  kernels::Gemm gemm;
  kernels::GemmPlan plan;
};

struct PassExplanation {
  std::string_view pass;          // "forward", "backward"
  PassCost cost;
  PassTime time;
  Ppp ppp;
  std::vector<GemmStep> gemms;    // the kernel model's GEMMs, where it timed the pass's GEMMs
  std::optional<kernels::StreamPlan> stream;   // the streaming model's plan, where it timed the pass
  std::optional<kernels::AttentionPlan> attention;   // the attention model's plan, where it timed the pass
};

struct LayerExplanation {
  std::string network;
  DeviceSummary device;
  std::int64_t batch = 1;
  ir::Precision precision = ir::Precision::FP32;
  LayerRow row;
  KernelModel model = KernelModel::Micro;
  std::optional<kernels::GpuFacts> facts;   // the kernel model's facts, where it timed the layer
  std::array<PassExplanation, 2> passes;    // forward (inference), backward
};

// The explanation of the layer named `layer`. Throws SimulationError when the network has no such layer
// (and whatever simulate() throws).
LayerExplanation explain_layer(const ir::Network& network, const ir::Device& device, const Options& options,
                               std::string_view layer);

}  // namespace ridge::engine
