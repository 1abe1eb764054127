// The network IR: plain data shared by lang (which produces it), engine and validate (which read it).
//
// A Network is a topologically ordered list of Layers. Layer 0 is always the Input layer; every other
// layer names the earlier layers it reads. Shapes are per sample: the batch dimension is not part of
// the IR, it is chosen when the network is simulated or run ([C,H,W] for images, [F] for features,
// [T,F] for sequences).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::ir {

using Shape = std::vector<std::int64_t>;
using LayerId = std::size_t;

// Every op the language has. Adding one means: an enumerator here, a row in ir/ops.cpp (name, arity,
// shape, parameters) and a row in the engine's cost table.
enum class Op {
  Input,
  Conv,             // 2-d convolution: groups, dilation, stride, padding, bias
  Linear,           // over the last dimension
  MatMul,           // [..., M, K] x [..., K, N]
  BatchNorm,        // 2-d batch norm over channel dim 0 (affine)
  LayerNorm,        // over the last dimension (affine)
  ReLU,
  ReLU6,
  SiLU,
  Sigmoid,
  HardSwish,
  HardSigmoid,
  GELU,
  Tanh,
  MaxPool,
  AvgPool,
  AdaptiveAvgPool,
  AdaptiveMaxPool,
  Dropout,
  Flatten,          // from per-sample axis `axis` to the end (torch.flatten(x, 1) is axis 0)
  Reshape,          // to `shape` (per sample; one entry may be -1)
  Concat,           // along per-sample axis `axis`
  Add,              // elementwise, broadcasting
  Mul,              // elementwise, broadcasting (squeeze-excite scales [C,H,W] by [C,1,1])
  Softmax,          // along per-sample axis `axis`
  Slice,            // [start, start+size) along `axis`: what a split/chunk yields, one layer per piece
  ChannelShuffle,   // ShuffleNet's channel shuffle with `groups`
};

struct Pair {
  std::int64_t h = 1;
  std::int64_t w = 1;
  friend bool operator==(const Pair&, const Pair&) = default;
};

// One struct for every op's attributes: each op reads the fields it documents and leaves the others
// at their defaults, so two layers compare equal exactly when they do the same thing.
struct Attrs {
  std::int64_t out = 0;           // Conv: output channels; Linear: output features
  Pair kernel{1, 1};              // Conv, MaxPool, AvgPool
  Pair stride{1, 1};              // Conv, MaxPool, AvgPool
  Pair padding{0, 0};             // Conv, MaxPool, AvgPool
  Pair dilation{1, 1};            // Conv, MaxPool
  std::int64_t groups = 1;        // Conv, ChannelShuffle
  bool bias = false;              // Conv, Linear
  bool ceil_mode = false;         // MaxPool, AvgPool
  bool count_include_pad = true;  // AvgPool
  Pair output_size{1, 1};         // AdaptiveAvgPool, AdaptiveMaxPool
  double p = 0.0;                 // Dropout probability
  double eps = 1e-5;              // BatchNorm, LayerNorm
  std::int64_t axis = 0;          // Flatten, Concat, Softmax, Slice (per-sample axis)
  std::int64_t start = 0;         // Slice
  std::int64_t size = 0;          // Slice
  Shape shape;                    // Reshape target (per sample)
  friend bool operator==(const Attrs&, const Attrs&) = default;
};

struct Layer {
  std::string name;               // unique within the network, dotted: "layer1.0.conv1"
  Op op = Op::Input;
  Attrs attrs;
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
