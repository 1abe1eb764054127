#include "lang/builder.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>

namespace ridge::lang {

namespace {

// An input layer of this name and per-sample shape: the first input and every further one.
ir::Layer input_layer(std::string name, ir::Shape shape) {
  ir::Layer in;
  in.name = std::move(name);
  in.op = ir::kInputOp;
  in.attrs.set("shape", std::move(shape));
  try {
    in.output = ir::infer_shape(ir::kInputOp, in.attrs, {});
  } catch (const ir::ShapeError& e) {
    throw BuildError(in.name + ": " + std::string(e.what()));
  }
  return in;
}

}  // namespace

NetworkBuilder::NetworkBuilder(std::string network_name, ir::Shape input_shape) {
  network_.name = std::move(network_name);
  layers_.push_back(input_layer("input", std::move(input_shape)));
  frames_.push_back({});
}

NetworkBuilder::Value NetworkBuilder::add_input(ir::Shape shape, std::string name) {
  name = frames_.back().prefix + std::move(name);
  const std::size_t hash = NameIndex::hash(name);
  if (name == "input" || names_.contains(name, hash, layers_)) throw BuildError("two layers are named '" + name + "'");
  ir::Layer in = input_layer(std::move(name), std::move(shape));
  in.origin = origin_;
  layers_.push_back(std::move(in));
  names_.add(hash, layers_.size() - 1);
  return layers_.size() - 1;
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
  const std::string count = std::to_string(k);
  std::string name;   // built in one buffer: the temporaries of prefix + key + ... showed in profiles
  name.reserve(f.prefix.size() + key.size() + 1 + count.size());
  name.append(f.prefix).append(key);
  if (separate) name.push_back('_');
  return name.append(count);
}

NetworkBuilder::Value NetworkBuilder::layer(ir::Op op, ir::Attrs attrs, std::vector<Value> inputs,
                                            std::string name) {
  for (Value v : inputs)
    if (v >= layers_.size()) throw BuildError("a value from another builder was used");
  const ir::OpSpec& spec = ir::spec(op);
  ir::Layer l;
  l.op = op;
  l.inputs = std::move(inputs);
  l.origin = origin_;
  l.name = name_for(spec.name, std::move(name));
  // A set, not a scan of the layers: a scan makes a 100,000-layer network quadratic.
  const std::size_t hash = NameIndex::hash(l.name);
  if (l.name == "input" || names_.contains(l.name, hash, layers_))
    throw BuildError("two layers are named '" + l.name + "'");
  try {
    std::vector<ir::Shape>& shapes = input_shapes_;
    shapes.resize(l.inputs.size());
    for (std::size_t k = 0; k < l.inputs.size(); ++k) shapes[k] = layers_[l.inputs[k]].output;
    l.attrs = ir::bind_attrs(spec, attrs, shapes);
    l.output = ir::infer_shape(op, l.attrs, shapes);
    if (const auto tied = ir::tied_to(l)) check_tied(l, *tied, shapes);
  } catch (const ir::ShapeError& e) {
    throw BuildError(l.name + ": " + e.what());
  }
  layers_.push_back(std::move(l));
  names_.add(hash, layers_.size() - 1);
  return layers_.size() - 1;
}

std::optional<NetworkBuilder::Value> NetworkBuilder::repeat(Value first, Value last, std::size_t prefix_size,
                                                           const std::vector<std::pair<Value, Value>>& outside) {
  if (first > last || last > layers_.size()) throw std::logic_error("repeat: not a range of layers made");
  for (const auto& [from, to] : outside)
    if (from >= first || to >= layers_.size() || layers_[from].output != layers_[to].output)
      throw std::logic_error("repeat: an outside input is mapped to one of another shape");
  const std::string& prefix = frames_.back().prefix;
  // Every name first: a taken one leaves the network as it was.
  std::vector<std::string> names;
  std::vector<std::size_t> hashes;
  names.reserve(last - first);
  hashes.reserve(last - first);
  for (Value id = first; id < last; ++id) {
    const std::string& old = layers_[id].name;
    if (old.size() < prefix_size) throw std::logic_error("repeat: a layer made outside the prefix");
    std::string name;
    name.reserve(prefix.size() + old.size() - prefix_size);
    name.append(prefix).append(old, prefix_size);
    const std::size_t hash = NameIndex::hash(name);
    if (name == "input" || names_.contains(name, hash, layers_)) return std::nullopt;
    names.push_back(std::move(name));
    hashes.push_back(hash);
  }
  const Value base = layers_.size();
  const auto moved = [&](Value id) {
    if (id >= first) return base + (id - first);
    for (const auto& [from, to] : outside)
      if (from == id) return to;
    throw std::logic_error("repeat: an input outside the range is not mapped");
  };
  for (Value id = first; id < last; ++id) {
    const ir::Layer& old = layers_[id];
    ir::Layer l;
    l.name = std::move(names[id - first]);
    l.op = old.op;
    l.attrs = old.attrs;
    l.inputs.reserve(old.inputs.size());
    for (const Value in : old.inputs) l.inputs.push_back(moved(in));
    l.output = old.output;
    l.origin = old.origin;
    layers_.push_back(std::move(l));
    names_.add(hashes[id - first], layers_.size() - 1);
  }
  return base;
}

// Tied weights are one tensor used twice (GPT-2's token embedding and output head): the owner must
// exist already and hold exactly as many weights as this layer reads.
void NetworkBuilder::check_tied(const ir::Layer& l, ir::LayerId owner, const std::vector<ir::Shape>& shapes) const {
  if (owner == 0 || owner >= layers_.size()) throw ir::ShapeError("'tied' must name a layer made earlier");
  const ir::Layer& o = layers_[owner];
  if (ir::tied_to(o)) throw ir::ShapeError("'tied' names '" + o.name + "', which is itself tied; name its owner");
  std::vector<ir::Shape> owner_shapes;
  for (const Value in : o.inputs) owner_shapes.push_back(layers_[in].output);
  const std::int64_t theirs = ir::parameter_count(o, owner_shapes);
  const std::int64_t mine = ir::weight_count(l, shapes);
  if (theirs != mine)
    throw ir::ShapeError("'tied' names '" + o.name + "' with " + std::to_string(theirs) + " parameters, but this layer needs " +
                         std::to_string(mine));
}

NetworkBuilder::Value NetworkBuilder::call(std::string_view op_name, std::vector<Value> inputs, ir::Attrs attrs,
                                           std::string name) {
  const auto op = ir::find_op(op_name);
  if (!op) throw BuildError("no op is named '" + std::string(op_name) + "'");
  return layer(*op, std::move(attrs), std::move(inputs), std::move(name));
}

NetworkBuilder::Value NetworkBuilder::conv(Value x, std::int64_t out, std::int64_t kernel, ConvOptions o,
                                           std::string name) {
  return call("conv", {x},
              {{"out", out}, {"kernel", kernel}, {"stride", o.stride}, {"pad", o.padding}, {"dilation", o.dilation},
               {"groups", o.groups}, {"bias", o.bias}},
              std::move(name));
}

NetworkBuilder::Value NetworkBuilder::linear(Value x, std::int64_t out, bool bias, std::string name) {
  return call("linear", {x}, {{"out", out}, {"bias", bias}}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::matmul(Value a, Value b, std::string name) {
  return call("matmul", {a, b}, {}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::batchnorm(Value x, std::string name) { return call("batchnorm", {x}, {}, std::move(name)); }
NetworkBuilder::Value NetworkBuilder::layernorm(Value x, std::string name) { return call("layernorm", {x}, {}, std::move(name)); }
NetworkBuilder::Value NetworkBuilder::activation(std::string_view op_name, Value x, std::string name) {
  return call(op_name, {x}, {}, std::move(name));
}

namespace {
ir::Attrs pool_attrs(std::int64_t kernel, const PoolOptions& o, bool avg) {
  ir::Attrs a{{"kernel", kernel}, {"stride", o.stride == 0 ? kernel : o.stride}, {"pad", o.padding}, {"ceil", o.ceil_mode}};
  if (avg) a.set("count_include_pad", o.count_include_pad);
  return a;
}
}  // namespace

NetworkBuilder::Value NetworkBuilder::maxpool(Value x, std::int64_t kernel, PoolOptions o, std::string name) {
  return call("maxpool", {x}, pool_attrs(kernel, o, false), std::move(name));
}
NetworkBuilder::Value NetworkBuilder::avgpool(Value x, std::int64_t kernel, PoolOptions o, std::string name) {
  return call("avgpool", {x}, pool_attrs(kernel, o, true), std::move(name));
}
NetworkBuilder::Value NetworkBuilder::adaptive_avgpool(Value x, std::int64_t h, std::int64_t w, std::string name) {
  return call("adaptive_avgpool", {x}, {{"size", std::vector<std::int64_t>{h, w}}}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::dropout(Value x, double p, std::string name) {
  return call("dropout", {x}, {{"p", p}}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::flatten(Value x, std::int64_t axis, std::string name) {
  return call("flatten", {x}, {{"axis", axis}}, std::move(name));
}
NetworkBuilder::Value NetworkBuilder::add(Value a, Value b, std::string name) { return call("add", {a, b}, {}, std::move(name)); }
NetworkBuilder::Value NetworkBuilder::mul(Value a, Value b, std::string name) { return call("mul", {a, b}, {}, std::move(name)); }
NetworkBuilder::Value NetworkBuilder::concat(std::vector<Value> xs, std::int64_t axis, std::string name) {
  return call("concat", std::move(xs), {{"axis", axis}}, std::move(name));
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
  if (output >= layers_.size()) throw BuildError("the output value is not from this builder");
  network_.layers = layers_.take();
  network_.output = output;
  ir::Network done = std::move(network_);
  network_ = {};
  frames_.assign(1, {});
  names_.clear();
  return done;
}

}  // namespace ridge::lang
