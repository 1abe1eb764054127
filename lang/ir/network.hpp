// The network IR: plain data shared by lang (which produces it), engine and validate (which read it).
//
// A Network is a topologically ordered list of Layers. Layer 0 is always the Input layer; every other
// layer names the earlier layers it reads. Shapes are per sample: the batch dimension is not part of
// the IR, it is chosen when the network is simulated or run ([C,H,W] for images, [F] for features,
// [T,F] for sequences).
//
// What an op *is* (its name, signature, shape rule, parameters, class) is data: one row in the op
// spec table (ir/ops.hpp). A layer holds a handle to that row and its attributes by name.
#pragma once

#include "lang/ir/attrs.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::ir {

using Shape = std::vector<std::int64_t>;
using LayerId = std::size_t;

// A handle to one row of the op spec table (ir::spec(op) reads it; ir::op("conv") finds it). The
// default handle is the network input, row 0.
struct Op {
  std::uint16_t id = 0;
  friend bool operator==(Op, Op) = default;
};

struct Layer {
  std::string name;               // unique within the network, dotted: "layer1.0.conv1"
  Op op;
  Attrs attrs;                    // every parameter of the op's signature, defaults filled in
  std::vector<LayerId> inputs;    // earlier layers, in argument order
  Shape output;                   // inferred per-sample output shape
  std::string origin;             // "file:line:col" of the construct that made it; empty from C++
  friend bool operator==(const Layer& a, const Layer& b) {
    // origin is where a layer was written, not what it is: two equal networks may come from
    // different places (text and the C++ builder).
    return a.name == b.name && a.op == b.op && a.attrs == b.attrs && a.inputs == b.inputs &&
           a.output == b.output;
  }
};

struct Network {
  std::string name;
  std::vector<Layer> layers;      // layers[0] is the Input layer; topological order
  LayerId output = 0;             // the layer whose value the network returns
  const Layer& input() const { return layers.front(); }
  friend bool operator==(const Network&, const Network&) = default;
};

}  // namespace ridge::ir
