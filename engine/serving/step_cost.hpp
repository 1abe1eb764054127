// The serving simulator's iteration times and KV cache from the engine (engine/serving/serving.hpp):
// a model's phases as generation times them (engine/generation.hpp: one forward of n sequences, on
// T x P devices), each shape simulated once and kept.
//   prefill(n, p)   = phase_seconds(batch n, p new tokens, nothing cached), p rounded up to 16 tokens
//   decode(n, L)    = phase_seconds(batch n, 1 new token, L cached), linear in L between the powers
//                     of two around it (PALEO's time is affine in L: generation.hpp)
//   transfer(t)     = one point-to-point message of t tokens' KV bytes on one device (each device sends
//                     its shard at once), on the system's link between nodes, else its interconnect
//                     (parallel/collectives.hpp: S / B + alpha)
//   KV capacity     = (memory_fraction x a device's memory - its weights - the largest prefill's
//                     activations) / the KV bytes a token adds on one device; memory_fraction is
//                     vLLM's gpu_memory_utilization, 0.9 by default
#pragma once

#include "engine/generation.hpp"
#include "engine/serving/serving.hpp"

namespace ridge::engine::serving {

// Throws SimulationError where the device gives no memory size or the weights leave no room.
StepCost engine_step_cost(const NetworkAt& network_at, const ir::Device& device, const Options& options,
                          const GenerationParallel& parallel, std::int64_t largest_prefill_tokens,
                          double memory_fraction = 0.9);

}  // namespace ridge::engine::serving
