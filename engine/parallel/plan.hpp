// Planning a parallel training run: one strategy's step, or a search over every strategy that fits
// (Calculon's "optimal execution", Isaev et al. SC'23). Simulates each micro-batch size once and
// evaluates strategies from that profile, so a search costs a few simulations plus arithmetic.
#pragma once

#include "engine/parallel/strategy.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ridge::engine::parallel {

struct PlanReport {
  std::string network;
  std::string device;             // display name
  std::string device_id;
  ir::Precision precision = ir::Precision::FP32;
  int devices = 1;                // T x P x D
  std::int64_t global_batch = 1;
  TransformerShape shape;
  Topology topology;
  bool search = false;
  std::size_t evaluated = 0;      // strategies that divide the model (search)
  std::size_t fitting = 0;        // of them, those that fit in memory
  std::vector<StepResult> strategies;   // the strategy asked for, or the fastest that fit, fastest first
  std::vector<Note> notes;
};

// One strategy. Throws SimulationError for a strategy check() refuses and anything simulate() throws.
PlanReport plan(const ir::Network& network, const ir::Device& device, const Options& setup, const Strategy& strategy,
                const std::string& link = {});

struct SearchOptions {
  int devices = 1;                      // T x P x D must equal it
  std::int64_t global_batch = 1;
  bool overlap = false;
  std::size_t top = 10;                 // how many of the fastest to keep
  std::int64_t max_micro_batch = 64;    // micro-batches above it are not tried
  std::string link;
  // The count is the system's own (system.count), not one the user asked for: where nothing divides
  // the model over it, the search runs on the largest count below it a user would take from the
  // system (whole nodes or a power of two) that does, and says so (a DGX SuperPOD of 127 nodes has
  // 1,016 GPUs; 1,016 = 8 x 127 divides few models).
  bool devices_from_system = false;
};

// Every strategy of `devices` devices that divides the model: T over the divisors of the heads, P v over
// those of the layers, D = devices / (T P) dividing the batch, m over the divisors of B / D up to
// max_micro_batch, sequence parallelism on and off, each recomputation mode, ZeRO 0-3 (with D > 1).
// A network without attention tries data parallelism only, at `setup`'s recomputation. With
// `devices_from_system`, a count nothing divides falls back as SearchOptions says.
PlanReport search(const ir::Network& network, const ir::Device& device, const Options& setup, const SearchOptions& options);

}  // namespace ridge::engine::parallel
