// A block instance as elaborated once, kept so that an identical instance can repeat its layers
// instead of running the block again (instances.cpp). Internal to lang/net.
//
// Two instances are identical when they call the same block, from the same stack of blocks at the same
// depth, with equal arguments and tensor arguments of equal shapes: a block sees nothing else (the
// file's constants and the network's parameters are fixed before the body runs, a block's scope is its
// own, and names inside it are relative to its fresh naming scope). So the second makes the same
// layers (names but for the scope prefix, ops, attributes, shapes, origins), wired the same way, and
// returns the same value, its tensors moved as the layers were.
#pragma once

#include "lang/net/value.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ridge::lang::net {

struct Instance {
  ir::LayerId first = 0, last = 0;     // the layers it made, [first, last), in the network being built
  std::size_t prefix_size = 0;         // the length of its scope's name prefix ("layers.decoder_layer1.")
  std::vector<ir::LayerId> tensors;    // its tensor arguments, in the order the key met them
  Value result;
  // What it added to the elaborator's work counters, so that a repeat stops at the same limits.
  std::int64_t steps = 0;
  std::int64_t loop_iterations = 0;
  std::size_t op_inputs = 0;
};

}  // namespace ridge::lang::net
