// The embedded form of the language: build the same IR from C++ that a `.net` file elaborates to.
//
//   lang::NetworkBuilder b("tiny", {3, 32, 32});
//   auto x = b.input();
//   x = b.conv(x, 16, 3, {.padding = 1});
//   x = b.relu(b.batchnorm(x));
//   { auto block = b.scope("stage1"); x = b.add(x, b.conv(x, 16, 3, {.padding = 1})); }
//   ir::Network net = b.finish(x);
//
// Layer names follow the text's rule: an explicit name, else `<op><k>` where k counts the layers of
// that op already in the current scope (conv1, conv2, batchnorm1...); scopes nest with dots.
#pragma once

#include "lang/ir/network.hpp"
#include "lang/layer_chunks.hpp"
#include "lang/name_index.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <stdexcept>
#include <string>
#include <vector>

namespace ridge::lang {

struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ConvOptions {
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t dilation = 1;
  std::int64_t groups = 1;
  bool bias = true;           // torch.nn.Conv2d's default
};

struct PoolOptions {
  std::int64_t stride = 0;    // 0: the kernel size, as in torch
  std::int64_t padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

class NetworkBuilder {
 public:
  using Value = ir::LayerId;

  NetworkBuilder(std::string network_name, ir::Shape input_shape);

  // The network's first input (layer 0, named "input"), whose shape the constructor takes.
  Value input() const { return 0; }
  // A further input (an encoder-decoder's target tokens, a cross-attention's memory): a layer of its
  // own named `name`, with the batch leading like the first's. Throws BuildError on a taken name or a
  // shape that is no input's.
  Value add_input(ir::Shape shape, std::string name);
  const ir::Shape& shape(Value v) const { return layers_.at(v).output; }

  // Any op: the one place that binds attributes (defaults from the op's spec row), infers the shape
  // and names the layer. `attrs` holds the arguments given; the rest take their defaults. A tied
  // weight argument (`tied`) is a Value. Throws BuildError.
  Value layer(ir::Op op, ir::Attrs attrs, std::vector<Value> inputs, std::string name = {});
  // The same by the op's name in the language: b.call("leaky_relu", {x}, {{"negative_slope", 0.2}}).
  Value call(std::string_view op_name, std::vector<Value> inputs, ir::Attrs attrs = {}, std::string name = {});

  Value conv(Value x, std::int64_t out, std::int64_t kernel, ConvOptions o = {}, std::string name = {});
  Value linear(Value x, std::int64_t out, bool bias = true, std::string name = {});
  Value matmul(Value a, Value b, std::string name = {});
  Value batchnorm(Value x, std::string name = {});
  Value layernorm(Value x, std::string name = {});
  Value activation(std::string_view op_name, Value x, std::string name = {});
  Value relu(Value x, std::string name = {}) { return activation("relu", x, std::move(name)); }
  Value maxpool(Value x, std::int64_t kernel, PoolOptions o = {}, std::string name = {});
  Value avgpool(Value x, std::int64_t kernel, PoolOptions o = {}, std::string name = {});
  Value adaptive_avgpool(Value x, std::int64_t h, std::int64_t w, std::string name = {});
  Value dropout(Value x, double p, std::string name = {});
  Value flatten(Value x, std::int64_t axis = 0, std::string name = {});
  Value add(Value a, Value b, std::string name = {});
  Value mul(Value a, Value b, std::string name = {});
  Value concat(std::vector<Value> xs, std::int64_t axis = 0, std::string name = {});

  // A naming scope, as a block instance in the text makes one: layers made while it lives are named
  // "<scope>.<layer>". scope("basic") is auto-numbered like a layer (basic1, basic2, ...), the way an
  // unlabelled block instance is; named_scope("layer1") is taken as given, like `as layer1`.
  class Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();
   private:
    friend class NetworkBuilder;
    explicit Scope(NetworkBuilder& b) : builder_(b) {}
    NetworkBuilder& builder_;
  };
  [[nodiscard]] Scope scope(std::string_view block_name);
  [[nodiscard]] Scope named_scope(std::string label);

  // Layers [first, last) made again in the current scope, as elaborating the same block instance on
  // inputs of the same shapes would make them, without binding and inferring each anew (the `.net`
  // front end repeats a block called 80 times with the same arguments). `prefix_size`: the length of
  // the scope prefix they were made under, which the copies' names trade for the current one. Inputs
  // inside the range move with it; those before it are mapped by `outside` (old id, new id), which
  // must name each and with the same shape. Returns the copy of `first`; nullopt, having made
  // nothing, when a copy's name is taken (making the layers one by one reports that error).
  std::optional<Value> repeat(Value first, Value last, std::size_t prefix_size,
                              const std::vector<std::pair<Value, Value>>& outside);
  // The layers made so far.
  const LayerChunks& layers() const { return layers_; }
  // The current scope's name prefix ("layer1.0."), "" at the top.
  const std::string& prefix() const { return frames_.back().prefix; }

  // Where the layers made from now on were written ("file:line:col", ir::Layer::origin); the text
  // front end sets it before each layer, C++ callers may leave it empty.
  // Assigned in place: the text front end sets one for nearly every layer.
  void set_origin(std::string_view origin) { origin_.assign(origin); }
  const std::string& origin() const { return origin_; }

  // The finished network, returning `output`. The builder is left empty.
  ir::Network finish(Value output);

 private:
  struct Frame {
    std::string prefix;                       // "layer1.0."
    std::map<std::string, int> counters;      // op name -> layers made so far in this scope
  };
  std::string name_for(std::string_view op_name, std::string explicit_name);
  void check_tied(const ir::Layer& l, ir::LayerId owner, const std::vector<ir::Shape>& shapes) const;

  ir::Network network_;   // its name; its layers are in layers_ until finish()
  LayerChunks layers_;
  std::vector<Frame> frames_;
  std::string origin_;
  // Every layer name so far: duplicates are an error. Hashed, as sibling names share long prefixes
  // (layers.decoder12.attention.) that make every comparison of an ordered set scan them.
  NameIndex names_;
  // The input shapes of the layer being made: refilled in place, not a new vector per layer.
  std::vector<ir::Shape> input_shapes_;
};

}  // namespace ridge::lang
