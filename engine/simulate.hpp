// The engine's entry point: a network and a device in, a Report out. A pure function: no I/O.
//
//   engine::Report r = engine::simulate(net, device, {.batch = 64, .precision = ir::Precision::FP16});
#pragma once

#include "report.hpp"

#include "ir/device.hpp"
#include "ir/network.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ridge::engine {

// The training set-up (README "Training set-ups"): what an optimizer step updates and keeps.
enum class Optimizer { SgdMomentum, Adam, AdamW };
enum class Recompute { None, Selective, Full };   // selective: attention only (Korthikanti et al. 2022)
std::string_view optimizer_name(Optimizer o);     // "sgd", "adam", "adamw"
std::optional<Optimizer> optimizer_from_name(std::string_view name);
std::string_view recompute_name(Recompute r);     // "none", "selective", "full"
std::optional<Recompute> recompute_from_name(std::string_view name);

struct Options {
  std::int64_t batch = 1;
  ir::Precision precision = ir::Precision::FP32;
  Optimizer optimizer = Optimizer::SgdMomentum;
  // Mixed precision: an fp32 master copy of the weights beside the compute-precision ones, optimizer
  // states in fp32, gradients in the compute precision. Default: on below 4-byte precisions.
  std::optional<bool> master_weights = std::nullopt;
  Recompute recompute = Recompute::None;
  // Weight-only quantisation for inference (int8: 1, int4: 0.5 bytes per weight; compute stays in
  // `precision`). Default: the precision's width.
  std::optional<double> weight_bytes = std::nullopt;
};

// The largest batch simulate() accepts: far beyond any real one, and small enough that a count
// overflowing 2^53 is a network problem, reported as such.
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 24;

// Throws SimulationError: batch outside [1, kMaxBatch], a device without bandwidth or without a peak
// for the precision, PPP outside (0, 1], counts beyond 2^53 (the range where doubles are exact), or a
// malformed network (no layers, inputs that are not earlier layers).
Report simulate(const ir::Network& network, const ir::Device& device, const Options& options);

// The memory a network's activations need at inference: the peak, over the topological order, of the
// bytes of values still to be read (views share their base's storage). Exposed for tests and reports.
double peak_live_activation_bytes(const ir::Network& network, std::int64_t batch, ir::Precision precision);

}  // namespace ridge::engine
