// The importer's core: graph inputs, values, naming, and the node loop.
#include "lang/onnx/importer.hpp"
#include "lang/suggest.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cctype>

namespace ridge::lang::onnx_import {
namespace {

bool is_sequence_name(const std::string& name) {
  return name == "seq_len" || name == "sequence" || name == "sequence_length" || name == "seq";
}

// The graph's data inputs, in its order: graph inputs that are not initializers and that some node
// reads. The first is the network's input; each further one a network input of its own (an
// encoder-decoder's target, a cross-attention's memory), with the batch on the same axis.
std::vector<const onnx::ValueInfoProto*> data_inputs(const Graph& g) {
  std::set<std::string> initializers;
  for (const auto& t : g.graph().initializer()) initializers.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> found;
  for (const auto& v : g.graph().input())
    if (!initializers.count(v.name()) && g.consumers.count(v.name())) found.push_back(&v);
  if (found.empty()) throw OnnxError("the graph has no input that a node reads", diag::kOnnxInput);
  return found;
}

// A binding (--dim, --set, --seq-len) that names no symbolic axis of the input changes nothing: a typo
// or a misunderstanding, refused with what the axes are called. The batch axis (options.batch_axis,
// 0 unless said) is set by --batch.
void check_every_binding_used(const std::vector<const onnx::ValueInfoProto*>& inputs, const OnnxOptions& options) {
  const onnx::ValueInfoProto& in = *inputs.front();
  const auto& dims = in.type().tensor_type().shape().dim();
  const int batch = options.batch_axis;
  std::vector<std::string> symbolic;
  bool sequence = false;
  for (const onnx::ValueInfoProto* each : inputs) {
    const auto& its = each->type().tensor_type().shape().dim();
    for (int i = 0; i < its.size(); ++i)
      if (i != batch && !its[i].has_dim_value() && !its[i].dim_param().empty() &&
          std::find(symbolic.begin(), symbolic.end(), its[i].dim_param()) == symbolic.end()) {
        symbolic.push_back(its[i].dim_param());
        sequence = sequence || is_sequence_name(its[i].dim_param());
      }
  }
  std::string named = "graph input '" + in.name() + "'";
  for (std::size_t k = 1; k < inputs.size(); ++k) named += (k + 1 == inputs.size() ? " or '" : ", '") + inputs[k]->name() + "'";
  for (const auto& [name, value] : options.dims) {
    if (std::find(symbolic.begin(), symbolic.end(), name) != symbolic.end() || (name == "seq_len" && sequence)) continue;
    std::string message = "'" + name + "=" + std::to_string(value) + "' binds no axis of " + named;
    if (batch < dims.size() && !dims[batch].has_dim_value() && dims[batch].dim_param() == name)
      message += ": axis " + std::to_string(batch) + " ('" + name + "') is the batch; set it with --batch";
    else if (symbolic.empty())
      message += ", whose axes after the batch are all fixed";
    else {
      message += " (its symbolic axes after the batch: ";
      for (std::size_t i = 0; i < symbolic.size(); ++i) message += (i ? ", " : "") + symbolic[i];
      message += ")";
      if (const std::string near = closest_name(name, symbolic); !near.empty()) message += "; did you mean '" + near + "'?";
    }
    throw OnnxError(message + " (--dim, --set and --seq-len bind an .onnx model's symbolic input axes)", diag::kOnnxInput);
  }
}

// An input's per-sample shape: the batch axis (options.batch_axis) left out; every other axis a number
// or a bound name.
ir::Shape input_shape(const onnx::ValueInfoProto& in, const OnnxOptions& options, int& declared_batch) {
  if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
    throw OnnxError("graph input '" + in.name() + "' declares no tensor shape", diag::kOnnxInput);
  const auto& dims = in.type().tensor_type().shape().dim();
  if (dims.size() < 2)
    throw OnnxError("graph input '" + in.name() + "' has " + std::to_string(dims.size()) +
                        " axes; Ridge reads axis 0 as the batch, so an input needs at least two",
                    diag::kOnnxInput);
  if (static_cast<std::size_t>(dims.size()) > kMaxRank)
    throw OnnxError("graph input '" + in.name() + "' has too many axes", diag::kOnnxLimit);
  const int batch = options.batch_axis;
  if (batch < 0 || batch >= dims.size())
    throw OnnxError("the batch axis " + std::to_string(batch) + " is not an axis of graph input '" + in.name() + "' (" +
                        std::to_string(dims.size()) + " axes)",
                    diag::kOnnxInput);
  declared_batch = dims[batch].has_dim_value() ? static_cast<int>(std::clamp<std::int64_t>(dims[batch].dim_value(), 0, 1 << 30)) : 0;
  ir::Shape shape;
  for (int i = 0; i < dims.size(); ++i) {
    if (i == batch) continue;
    const auto& d = dims[i];
    std::int64_t v = 0;
    if (d.has_dim_value()) {
      v = d.dim_value();
    } else {
      const std::string& name = d.dim_param();
      auto bound = options.dims.find(name);
      if (bound == options.dims.end() && is_sequence_name(name)) bound = options.dims.find("seq_len");
      if (name.empty() || bound == options.dims.end())
        throw OnnxError("axis " + std::to_string(i) + " of graph input '" + in.name() + "' is symbolic ('" + name +
                            "'): bind it with --dim " + (name.empty() ? "NAME" : name) + "=N" +
                            (is_sequence_name(name) ? " or --seq-len N" : ""),
                        diag::kOnnxInput);
      v = bound->second;
    }
    if (v < 1 || v > ir::kMaxDimension)
      throw OnnxError("axis " + std::to_string(i) + " of graph input '" + in.name() + "' is " + std::to_string(v) +
                          "; dimensions lie in 1 .. " + std::to_string(ir::kMaxDimension),
                      diag::kOnnxInput);
    shape.push_back(v);
  }
  element_count_checked(shape, "graph input '" + in.name() + "'");
  return shape;
}

// The first input's shape, every binding checked against all of them (the builder is made from it).
ir::Shape first_input_shape(const Graph& g, const OnnxOptions& options, int& declared_batch) {
  const std::vector<const onnx::ValueInfoProto*> inputs = data_inputs(g);
  ir::Shape shape = input_shape(*inputs.front(), options, declared_batch);
  check_every_binding_used(inputs, options);
  return shape;
}

std::string graph_name(const Graph& g) {
  std::string name = g.graph().name();
  if (name.empty()) name = "onnx";
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

}  // namespace

Importer::Importer(const Graph& graph, const OnnxOptions& options)
    : graph_(graph), options_(options), builder_(graph_name(graph), first_input_shape(graph, options, input_batch_)) {}

void Importer::fail(const onnx::NodeProto& n, const std::string& why, std::string_view id) const {
  throw OnnxError(why, id, describe(n, node_index(graph_.graph(), n)));
}

const Value& Importer::input(const onnx::NodeProto& n, int i) const {
  if (!has_input(n, i)) fail(n, "input " + std::to_string(i) + " is missing", diag::kOnnxGraph);
  const auto v = values_.find(n.input(i));
  if (v == values_.end()) fail(n, "input '" + n.input(i) + "' is not available (it comes from a node Ridge skipped)", diag::kOnnxGraph);
  return v->second;
}

void Importer::set_output(const onnx::NodeProto& n, int i, Value v) {
  if (i >= n.output_size() || n.output(i).empty()) return;
  if (!v.is_layer() && v.data) {
    folded_ += static_cast<std::int64_t>(v.data->size());
    if (folded_ > kMaxFoldedTotal)
      fail(n, "the constants folded at import hold more than " + std::to_string(kMaxFoldedTotal) + " elements together",
           diag::kOnnxLimit);
  }
  values_.insert_or_assign(n.output(i), std::move(v));
}

int Importer::consumers(const std::string& value) const {
  const auto c = graph_.consumers.find(value);
  return c == graph_.consumers.end() ? 0 : c->second;
}

ir::Shape Importer::full_shape(const Value& v) const {
  if (!v.is_layer()) return v.dims;
  ir::Shape s = builder_.shape(v.layer);
  if (v.folded) s.at(static_cast<std::size_t>(v.batch_axis)) = -1;
  else if (v.batch_axis >= 0) s.insert(s.begin() + std::min<std::ptrdiff_t>(v.batch_axis, static_cast<std::ptrdiff_t>(s.size())), -1);
  return s;
}

const std::vector<double>& Importer::const_data(const onnx::NodeProto& n, int i) const {
  const Value& v = input(n, i);
  if (v.is_layer() || !v.data) fail(n, "input '" + n.input(i) + "' must be a constant known at import (Ridge folds shape arithmetic, not data)");
  return *v.data;
}

std::optional<ir::LayerId> Importer::owner(const std::string& weight) const {
  const auto o = owners_.find(weight);
  if (o == owners_.end()) return std::nullopt;
  return o->second;
}

Value Importer::materialize(const onnx::NodeProto& n, int i) { return materialize(input(n, i), n); }

Value Importer::materialize(const Value& v, const onnx::NodeProto& n) {
  if (v.is_layer()) return v;
  if (!v.weight.empty() && options_.buffers.count(v.weight)) {   // a fixed tensor, not learned
    if (!v.slices.empty()) fail(n, "reads a slice of the buffer '" + v.weight + "' as data; Ridge reads buffers whole");
    auto [it, added] = buffers_.try_emplace(v.weight, 0);
    if (added) it->second = emit("buffer", {}, {{"shape", v.dims.empty() ? ir::Shape{1} : v.dims}}, n, -1, v.weight).layer;
    return Value::of_layer(it->second, -1);
  }
  if (!v.weight.empty()) {
    Value p;
    if (const auto o = owner(v.weight)) {
      if (!parameters_.count(*o))
        fail(n, "initializer '" + v.weight + "' is already the weights of another layer and cannot also be read as data");
      p = Value::of_layer(*o, -1);
    } else {
      const ir::Shape& dims = v.slices.empty() ? v.dims : v.base_dims;
      p = emit("parameter", {}, {{"shape", dims.empty() ? ir::Shape{1} : dims}}, n, -1, v.weight);
      set_owner(v.weight, p.layer);
      parameters_.insert(p.layer);
    }
    for (const auto& [axis, start, size] : v.slices)
      p = emit("slice", {p}, {{"start", start}, {"size", size}, {"axis", axis}}, n, -1, v.weight + ".slice");
    return p;
  }
  fail(n, "a constant tensor of shape " + ir::to_string(v.dims) +
              " is used as data; Ridge models learned tensors (initializers) and numbers, not constant tensors");
}

std::int64_t Importer::per_sample_axis(const Value& v, std::int64_t axis, const onnx::NodeProto& n) const {
  const auto rank = static_cast<std::int64_t>(full_shape(v).size());
  if (axis < -rank || axis >= rank) fail(n, "axis " + std::to_string(axis) + " is outside a rank-" + std::to_string(rank) + " tensor");
  if (axis < 0) axis += rank;
  if (v.batch_axis < 0 || !v.is_layer()) return axis;
  if (axis == v.batch_axis) fail(n, "works across the batch (axis " + std::to_string(axis) + "), which Ridge keeps out of the graph");
  if (v.folded) return axis;   // the IR keeps the folded axis
  return axis > v.batch_axis ? axis - 1 : axis;
}

std::string Importer::unique_name(std::string base) {
  if (base.empty() || base == "input") base = "node";
  std::string name = base;
  for (int k = 2; names_.count(name); ++k) name = base + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

namespace {

// torch.onnx.export (1.13 on) names nodes by the module scope they ran in, `/layer1/layer1.0/relu/Relu`
// (each scope the module's name, sometimes already qualified by its parent's): that gives
// `layer1.0.relu`. Other names are kept as they are; a node without one is named by its op.
std::string module_path(const onnx::NodeProto& n, std::string_view op) {
  const std::string& name = n.name();
  if (name.empty()) return n.op_type();
  if (name[0] != '/') return name;
  std::vector<std::string> parts;
  for (std::size_t at = 1; at <= name.size();) {
    const std::size_t slash = std::min(name.find('/', at), name.size());
    parts.push_back(name.substr(at, slash - at));
    at = slash + 1;
  }
  parts.pop_back();   // the op's own name ("Relu", "Add_1")
  std::string path;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    path = path.empty() || p.rfind(path + ".", 0) == 0 ? p : path + "." + p;
  }
  if (path.empty()) {
    path = n.op_type();
    for (char& c : path) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return path;
  }
  // A node that ran in a list entry's own forward (`/layer1/layer1.0/Add`: the residual add) is named
  // inside that module by the layer's op (`op`; none given: the caller adds its own suffix), `layer1.0.add`, like the entry's submodules: the entry
  // itself is no layer, and `--emit-net` folds what a list entry holds into one block call.
  const std::string_view last = std::string_view(path).substr(path.rfind('.') + 1);
  if (!op.empty() && path.find('.') != std::string::npos && !last.empty() &&
      std::all_of(last.begin(), last.end(), [](unsigned char c) { return std::isdigit(c); }))
    path += "." + std::string(op);
  return path;
}

// torch.onnx.export names initializers by module path: `layer1.0.conv1.weight`. That path names the
// layer; failing that, the node's own name does.
std::string name_for(const onnx::NodeProto& n, std::string_view op) {
  for (int i = 1; i < n.input_size(); ++i) {
    const std::string& in = n.input(i);
    for (const std::string suffix : {".weight", ".bias", ".weight_ih_l0", ".in_proj_weight"})
      if (in.size() > suffix.size() && in.compare(in.size() - suffix.size(), suffix.size(), suffix) == 0)
        return in.substr(0, in.size() - suffix.size());
  }
  return module_path(n, op);
}

}  // namespace

Value Importer::emit(std::string_view op, std::vector<Value> inputs, ir::Attrs attrs, const onnx::NodeProto& n, int batch_axis,
                     const std::string& name_hint) {
  std::vector<ir::LayerId> ids;
  bool folded = false;
  for (const Value& v : inputs) {
    if (!v.is_layer()) fail(n, "internal: an operand is not a layer");
    ids.push_back(v.layer);
    folded = folded || v.folded;
  }
  // A hint starting with '.' names a second layer of the node's own: `layer1.0.relu.squeeze`.
  const std::string name = unique_name(name_hint.empty() ? name_for(n, op) : name_hint[0] == '.' ? name_for(n, {}) + name_hint : name_hint);
  try {
    // A layer of a folded value keeps the fold (the converters that move or undo it say so themselves).
    return Value::of_layer(builder_.call(op, std::move(ids), std::move(attrs), name), batch_axis, folded);
  } catch (const BuildError& e) {
    fail(n, std::string("as '") + std::string(op) + "': " + e.what(), diag::kOnnxShape);
  }
}

void Importer::add_inputs() {
  const std::vector<const onnx::ValueInfoProto*> inputs = data_inputs(graph_);
  values_.insert_or_assign(inputs.front()->name(), Value::of_layer(builder_.input(), options_.batch_axis));
  for (std::size_t k = 1; k < inputs.size(); ++k) {
    const onnx::ValueInfoProto& in = *inputs[k];
    int batch = 0;
    const ir::Shape shape = input_shape(in, options_, batch);
    if (batch != input_batch_)   // one batch for the whole network: both static and equal, or both symbolic
      throw OnnxError("graph input '" + in.name() + "' declares a batch of " + (batch ? std::to_string(batch) : "?") + " and '" +
                          inputs.front()->name() + "' one of " + (input_batch_ ? std::to_string(input_batch_) : "?") +
                          " on axis " + std::to_string(options_.batch_axis) + "; a network's inputs share one batch",
                      diag::kOnnxInput);
    std::string name;
    for (const char c : in.name()) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    try {
      values_.insert_or_assign(in.name(), Value::of_layer(builder_.add_input(shape, unique_name(name)), options_.batch_axis));
    } catch (const BuildError& e) {
      throw OnnxError("graph input '" + in.name() + "': " + e.what(), diag::kOnnxInput);
    }
  }
  for (const auto& t : graph_.graph().initializer()) {
    Value v = read_tensor(t, "initializer '" + t.name() + "'");
    v.weight = t.name();
    values_.insert_or_assign(t.name(), std::move(v));
  }
}

void Importer::convert(int index) {
  const onnx::NodeProto& n = graph_.graph().node(index);
  const bool standard = n.domain().empty() || n.domain() == "ai.onnx";
  const auto& table = converters();
  const auto c = standard ? table.find(n.op_type()) : table.end();
  if (c != table.end()) {
    refuse_folded(n);
    c->second(*this, n);
    return;
  }
  std::string op = n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type();
  if (!options_.allow_unknown)
    fail(n, "Ridge cannot model the ONNX op '" + op + "' (--allow-unknown counts such nodes as free)", diag::kOnnxUnsupportedOp);
  // Free: the first data operand passes through as a view, reshaped to the declared output shape
  // when the file declares one with the same element count.
  std::optional<Value> through;
  for (int i = 0; i < n.input_size() && !through; ++i)
    if (has_input(n, i) && input(n, i).is_layer()) through = input(n, i);
  if (!through) fail(n, "cannot be counted as free: it reads no data tensor");
  free_nodes_.push_back(describe(n, index));
  for (int i = 0; i < n.output_size(); ++i) set_output(n, i, *through);
}

// The ops that follow a value whose batch is folded into an axis (Value::folded) through a window
// attention: the reshapes and transposes that fold, move and unfold it, the pick of queries, keys and
// values, the products, and what acts on each element or along the last axis. Any other op on such a
// value is refused rather than counted with the fold misread.
void Importer::refuse_folded(const onnx::NodeProto& n) const {
  static const std::set<std::string, std::less<>> kFollows{
      "Reshape", "Transpose", "Gather", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow", "Softmax",
      "LayerNormalization", "Dropout", "Identity", "Cast", "Shape", "Erf", "Relu", "Gelu", "Sigmoid", "Tanh", "Sqrt",
      "Clip", "Exp", "Expand", "ReduceL2", "ReduceMean", "ReduceSum", "ReduceMax"};
  for (int i = 0; i < n.input_size(); ++i) {
    if (!has_input(n, i) || !has_value(n.input(i)) || !input(n, i).folded) continue;
    if (!kFollows.count(n.op_type()))
      fail(n, "reads a tensor whose batch is folded into axis " + std::to_string(input(n, i).batch_axis) +
                  " (a window partition's [batch x windows, ...]); Ridge follows such a tensor through Reshape, Transpose, "
                  "Gather, MatMul, Softmax, LayerNormalization, Expand, reductions along other axes and elementwise ops only");
  }
}

ir::Network Importer::run(std::vector<std::string>& free_nodes) {
  add_inputs();
  claim_patterns(*this);
  for (const int index : graph_.order) {
    if (skipped.count(index)) continue;
    // What a node's conversion throws without naming the node (a tensor it folds, a shape the op specs
    // refuse) is about that node: named here, once for every converter.
    const auto named = [&] { return describe(graph_.graph().node(index), index); };
    try {
      if (const auto f = fused.find(index); f != fused.end()) f->second(*this);
      else convert(index);
    } catch (const OnnxError& e) {
      if (!e.node.empty()) throw;
      throw OnnxError(e.what(), e.id, named());
    } catch (const BuildError& e) {
      throw OnnxError(e.what(), diag::kOnnxShape, named());
    } catch (const ir::ShapeError& e) {
      throw OnnxError(e.what(), diag::kOnnxShape, named());
    }
  }
  const std::string& out = graph_.graph().output(0).name();
  const auto v = values_.find(out);
  if (v == values_.end() || !v->second.batched())
    throw OnnxError("graph output '" + out + "' is not computed from the input; Ridge reports a network's work per sample",
                    diag::kOnnxGraph);
  free_nodes = free_nodes_;
  return builder_.finish(v->second.layer);
}

}  // namespace ridge::lang::onnx_import
