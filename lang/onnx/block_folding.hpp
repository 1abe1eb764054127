// Finding the repeated structure of a network for `--emit-net`: runs of layers that one module made
// (`layer1.0.conv1`, `layer1.0.bn1`, ... all under `layer1.0`) and that repeat with the same ops and
// wiring become one `block`, called once per run. Attributes that differ between the runs (a stage's
// channel count, a stride) become the block's arguments, so every run is written exactly.
//
// This only proposes; the writer (emit_net.cpp) elaborates the folded text and keeps it only if it
// gives the same layers as the network, so a fold is never trusted without that check.
#pragma once

#include "lang/ir/network.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ridge::lang::net_text {

// One run of layers [first, last] under one module scope (`layer1.0`); the run's value is its last layer.
struct Instance {
  std::string scope;                    // "layer1.0"
  ir::LayerId first = 0;
  ir::LayerId last = 0;
  std::vector<ir::LayerId> inputs;      // layers outside the run that it reads, in order of first use
  std::vector<ir::AttrValue> arguments; // this run's value of each of the block's attribute arguments
};

// One attribute a block argument sets: the attribute `attr` of the run's layer `first + offset`.
struct AttrSlot {
  std::size_t offset = 0;
  std::string attr;
};

struct Block {
  std::string container;                    // the module holding the first run: "layer1" (of "layer1.0")
  std::vector<std::string> suffixes;        // the layers' names inside the scope: "conv1", "downsample.0"
  std::vector<std::vector<AttrSlot>> arguments;   // per argument, every attribute it sets (equal in every run)
  std::vector<Instance> instances;          // two or more, in network order
  std::size_t input_count = 0;              // tensor arguments (the runs' outside inputs)
};

// The blocks worth writing: structures that two or more runs share.
std::vector<Block> find_blocks(const ir::Network& network);

}  // namespace ridge::lang::net_text
