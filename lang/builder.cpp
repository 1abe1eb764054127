#include "builder.hpp"

#include "ir/ops.hpp"

#include <algorithm>

namespace ridge::lang {

NetworkBuilder::NetworkBuilder(std::string network_name, ir::Shape input_shape) {
  network_.name = std::move(network_name);
  ir::Layer in;
  in.name = "input";
  in.op = ir::Op::Input;
  in.attrs.shape = input_shape;
  try {
    in.output = ir::infer_shape(ir::Op::Input, in.attrs, {});
  } catch (const ir::ShapeError& e) {
    throw BuildError("input: " + std::string(e.what()));
  }
  network_.layers.push_back(std::move(in));
  frames_.push_back({});
}

std::string NetworkBuilder::name_for(std::string_view op_name, std::string explicit_name) {
  Frame& f = frames_.back();
  const std::string key(op_name);
  const int k = ++f.counters[key];
  if (!explicit_name.empty()) return f.prefix + std::move(explicit_name);
  // A base that ends in a digit or '_' gets a '_' before the count, so `relu6` then 61 `relu`s give
  // relu6_1 and relu61, and block b1 called 11 times (b1_11) stays apart from block b11 (b11_1). Unique
  // by construction: strip a name's trailing digits; if what is left ends in '_', the base is that less
  // one '_', else it is all of it.
  const char last = key.empty() ? '_' : key.back();
  const bool separate = (last >= '0' && last <= '9') || last == '_';
  return f.prefix + key + (separate ? "_" : "") + std::to_string(k);
}

NetworkBuilder::Value NetworkBuilder::layer(ir::Op op, ir::Attrs attrs, std::vector<Value> inputs,
                                            std::string name) {
  for (Value v : inputs)
    if (v >= network_.layers.size()) throw BuildError("a value from another builder was used");
  ir::Layer l;
  l.op = op;
  l.attrs = std::move(attrs);
  l.inputs = std::move(inputs);
  l.origin = origin_;
  l.name = name_for(ir::op_name(op), std::move(name));
  // A set, not a scan of the layers: a scan makes a 100,000-layer network quadratic.
  if (l.name == "input" || names_.count(l.name)) throw BuildError("two layers are named '" + l.name + "'");
  try {
    l.output = ir::infer_shape(op, l.attrs, ir::input_shapes(network_, l));
  } catch (const ir::ShapeError& e) {
    throw BuildError(l.name + ": " + e.what());
  }
  names_.insert(l.name);
  network_.layers.push_back(std::move(l));
  return network_.layers.size() - 1;
}

NetworkBuilder::Value NetworkBuilder::conv(Value x, std::int64_t out, std::int64_t kernel, ConvOptions o,
                                           std::string name) {
  ir::Attrs a;
  a.out = out;
  a.kernel = {kernel, kernel};
  a.stride = {o.stride, o.stride};
  a.padding = {o.padding, o.padding};
  a.dilation = {o.dilation, o.dilation};
  a.groups = o.groups;
  a.bias = o.bias;
  return layer(ir::Op::Conv, a, {x}, std::move(name));
}

NetworkBuilder::Value NetworkBuilder::linear(Value x, std::int64_t out, bool bias, std::string name) {
  ir::Attrs a;
  a.out = out;
  a.bias = bias;
  return layer(ir::Op::Linear, a, {x}, std::move(name));
}

NetworkBuilder::Value NetworkBuilder::matmul(Value a, Value b, std::string name) {
  return layer(ir::Op::MatMul, {}, {a, b}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::batchnorm(Value x, std::string name) {
  return layer(ir::Op::BatchNorm, {}, {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::layernorm(Value x, std::string name) {
  return layer(ir::Op::LayerNorm, {}, {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::activation(ir::Op op, Value x, std::string name) {
  return layer(op, {}, {x}, std::move(name));
}

namespace {
ir::Attrs pool_attrs(std::int64_t kernel, const PoolOptions& o) {
  ir::Attrs a;
  const std::int64_t stride = o.stride == 0 ? kernel : o.stride;
  a.kernel = {kernel, kernel};
  a.stride = {stride, stride};
  a.padding = {o.padding, o.padding};
  a.ceil_mode = o.ceil_mode;
  a.count_include_pad = o.count_include_pad;
  return a;
}
}  // namespace

NetworkBuilder::Value NetworkBuilder::maxpool(Value x, std::int64_t kernel, PoolOptions o, std::string name) {
  return layer(ir::Op::MaxPool, pool_attrs(kernel, o), {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::avgpool(Value x, std::int64_t kernel, PoolOptions o, std::string name) {
  return layer(ir::Op::AvgPool, pool_attrs(kernel, o), {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::adaptive_avgpool(Value x, std::int64_t h, std::int64_t w, std::string name) {
  ir::Attrs a;
  a.output_size = {h, w};
  return layer(ir::Op::AdaptiveAvgPool, a, {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::dropout(Value x, double p, std::string name) {
  ir::Attrs a;
  a.p = p;
  return layer(ir::Op::Dropout, a, {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::flatten(Value x, std::int64_t axis, std::string name) {
  ir::Attrs a;
  a.axis = axis;
  return layer(ir::Op::Flatten, a, {x}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::add(Value a, Value b, std::string name) {
  return layer(ir::Op::Add, {}, {a, b}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::mul(Value a, Value b, std::string name) {
  return layer(ir::Op::Mul, {}, {a, b}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::concat(std::vector<Value> xs, std::int64_t axis, std::string name) {
  ir::Attrs a;
  a.axis = axis;
  return layer(ir::Op::Concat, a, std::move(xs), std::move(name));
}

NetworkBuilder::Scope NetworkBuilder::scope(std::string_view block_name) {
  return named_scope(name_for(block_name, {}).substr(frames_.back().prefix.size()));
}

NetworkBuilder::Scope NetworkBuilder::named_scope(std::string label) {
  const std::string prefix = frames_.back().prefix;
  frames_.push_back({prefix + label + ".", {}});
  return Scope(*this);
}

NetworkBuilder::Scope::~Scope() {
  if (builder_.frames_.size() > 1) builder_.frames_.pop_back();
}

ir::Network NetworkBuilder::finish(Value output) {
  if (output >= network_.layers.size()) throw BuildError("the output value is not from this builder");
  network_.output = output;
  ir::Network done = std::move(network_);
  network_ = {};
  frames_.assign(1, {});
  names_.clear();
  return done;
}

}  // namespace ridge::lang
