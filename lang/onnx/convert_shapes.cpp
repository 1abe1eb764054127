// Converters for shape arithmetic (folded at import: Shape, Gather, Concat, Unsqueeze, Range ...) and
// for views and copies of data (Reshape, Transpose, Slice, Split, Gather as an embedding).
#include "lang/onnx/importer.hpp"

#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ridge::lang::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;

std::int64_t normalise_axis(Importer& im, const onnx::NodeProto& n, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) im.fail(n, "axis " + std::to_string(axis) + " is outside a rank-" + std::to_string(r) + " tensor");
  return axis < 0 ? axis + r : axis;
}

// A Layer value brought to a new full shape (the batch marked -1 at `batch_axis`): a reshape view,
// or nothing when the per-sample shape does not change.
// `x` as the ONNX shape `full` whose batch is on `batch_axis`. `fold`: the batch is folded into that
// axis with this factor, which the IR shape keeps there (Value::folded); 0: the axis is the batch alone.
Value reshaped(Importer& im, const onnx::NodeProto& n, const Value& x, ir::Shape full, int batch_axis, const std::string& suffix = {},
               std::int64_t fold = 0) {
  if (batch_axis >= 0) {
    if (fold > 0) full[static_cast<std::size_t>(batch_axis)] = fold;
    else full.erase(full.begin() + batch_axis);
  }
  if (full.empty()) full = {1};
  if (full == im.ir_shape(x)) return Value::of_layer(x.layer, batch_axis, fold > 0);
  Value v = im.emit("reshape", {x}, {{"shape", full}}, n, batch_axis, suffix);
  v.folded = fold > 0 && batch_axis >= 0;
  return v;
}

// The factor a folded value's batch axis holds (its IR size there), or 0 when it is not folded.
std::int64_t fold_of(Importer& im, const Value& x) {
  return x.folded ? im.ir_shape(x).at(static_cast<std::size_t>(x.batch_axis)) : 0;
}

Ints axes_of(Importer& im, const onnx::NodeProto& n, int input) {
  if (im.has_input(n, input)) return as_ints(im.input(n, input), "axes");
  return attr_ints(n, "axes").value_or(Ints{});
}

std::vector<double> permute_data(const std::vector<double>& data, const ir::Shape& dims, const Ints& perm) {
  const std::size_t rank = dims.size();
  std::vector<double> out(data.size());
  std::vector<std::int64_t> strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  ir::Shape out_dims(rank);
  for (std::size_t i = 0; i < rank; ++i) out_dims[i] = dims[static_cast<std::size_t>(perm[i])];
  for (std::size_t flat = 0; flat < out.size(); ++flat) {
    std::size_t rest = flat, src = 0;
    for (std::size_t i = rank; i-- > 0;) {
      const auto coord = static_cast<std::int64_t>(rest % static_cast<std::size_t>(out_dims[i]));
      rest /= static_cast<std::size_t>(out_dims[i]);
      src += static_cast<std::size_t>(coord * strides[static_cast<std::size_t>(perm[i])]);
    }
    out[flat] = data[src];
  }
  return out;
}

void constant(Importer& im, const onnx::NodeProto& n) {
  const std::string what = "its value";
  if (const auto* a = attribute(n, "value")) return im.set_output(n, 0, read_tensor(a->t(), what));
  if (const auto* a = attribute(n, "value_float")) return im.set_output(n, 0, Value::constant({}, {a->f()}, false));
  if (const auto* a = attribute(n, "value_int")) return im.set_output(n, 0, Value::constant({}, {static_cast<double>(a->i())}, true));
  if (const auto* a = attribute(n, "value_floats"))
    return im.set_output(n, 0, Value::constant({a->floats_size()}, std::vector<double>(a->floats().begin(), a->floats().end()), false));
  if (const auto* a = attribute(n, "value_ints"))
    return im.set_output(n, 0, Value::constant({a->ints_size()}, std::vector<double>(a->ints().begin(), a->ints().end()), true));
  im.fail(n, "holds no value Ridge reads (value, value_float(s), value_int(s))");
}

void shape(Importer& im, const onnx::NodeProto& n) {
  const ir::Shape full = im.full_shape(im.input(n, 0));
  auto rank = static_cast<std::int64_t>(full.size());
  std::int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, start, rank);
  std::vector<double> dims;
  for (auto i = start; i < end; ++i) dims.push_back(full[static_cast<std::size_t>(i)] < 0 ? kBatch : static_cast<double>(full[static_cast<std::size_t>(i)]));
  im.set_output(n, 0, Value::constant({end - start}, std::move(dims), true));
}

void size(Importer& im, const onnx::NodeProto& n) {
  double count = 1;
  for (const auto d : im.full_shape(im.input(n, 0))) count = d < 0 ? kBatch : count * static_cast<double>(d);
  im.set_output(n, 0, Value::constant({}, {count}, true));
}

void identity(Importer& im, const onnx::NodeProto& n) { im.set_output(n, 0, im.input(n, 0)); }

void cast(Importer& im, const onnx::NodeProto& n) {
  Value v = im.input(n, 0);
  if (!v.is_layer()) {
    const auto to = attr_int(n, "to", onnx::TensorProto::FLOAT);
    v.integral = to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::DOUBLE && to != onnx::TensorProto::FLOAT16 &&
                 to != onnx::TensorProto::BFLOAT16;
    if (v.integral && v.data)
      for (double& d : *v.data) d = std::trunc(d);
  }
  im.set_output(n, 0, v);   // on data: Ridge counts every tensor at the run's precision
}

void fold_gather(Importer& im, const onnx::NodeProto& n, const Value& data, const Value& indices, std::int64_t axis) {
  const std::size_t a = static_cast<std::size_t>(axis);
  ir::Shape out(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(a));
  out.insert(out.end(), indices.dims.begin(), indices.dims.end());
  out.insert(out.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.dims.end());
  const std::int64_t count = element_count_checked(out, "its result");
  if (count > kMaxFoldedElements)
    im.fail(n, "folds to more than " + std::to_string(kMaxFoldedElements) + " elements", diag::kOnnxLimit);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= data.dims[i];
  for (std::size_t i = a + 1; i < data.dims.size(); ++i) inner *= data.dims[i];
  const std::int64_t along = data.dims[a];
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(count));
  for (std::int64_t o = 0; o < outer; ++o)
    for (const double raw : *indices.data) {
      std::int64_t idx = as_int(raw, "an index");
      if (idx < 0) idx += along;
      if (idx < 0 || idx >= along) im.fail(n, "index " + std::to_string(idx) + " is outside an axis of " + std::to_string(along));
      for (std::int64_t i = 0; i < inner; ++i) v.push_back((*data.data)[static_cast<std::size_t>((o * along + idx) * inner + i)]);
    }
  im.set_output(n, 0, Value::constant(out, std::move(v), data.integral));
}

void gather(Importer& im, const onnx::NodeProto& n) {
  const Value& data = im.input(n, 0);
  const Value& indices = im.input(n, 1);
  const std::size_t rank = im.full_shape(data).size();
  const std::int64_t axis = normalise_axis(im, n, attr_int(n, "axis", 0), rank);
  // Known numbers are folded; a learned tensor's rows picked by fixed indices (Swin's and MaxViT's
  // relative-position bias tables) stay a learned tensor and a gather, so its parameters are counted.
  if (!data.is_layer() && data.data && !data.learned() && !indices.is_layer() && indices.data)
    return fold_gather(im, n, data, indices, axis);
  if (!data.is_layer() && !data.weight.empty() && indices.batched()) {
    // An embedding: rows of a learned table picked by per-sample ids.
    if (data.dims.size() != 2 || axis != 0) im.fail(n, "gathers from a table that is not [rows, width] along axis 0");
    ir::Attrs attrs{{"num", data.dims[0]}, {"dim", data.dims[1]}};
    const auto owner = im.owner(data.weight);
    if (owner) attrs.set("tied", static_cast<std::int64_t>(*owner));
    const Value y = im.emit("embedding", {indices}, std::move(attrs), n, indices.batch_axis, data.weight.size() > 7 && data.weight.ends_with(".weight") ? data.weight.substr(0, data.weight.size() - 7) : std::string());
    if (!owner) im.set_owner(data.weight, y.layer);
    return im.set_output(n, 0, y);
  }
  if (indices.is_layer() || !indices.data) im.fail(n, "gathers data by indices computed from data; Ridge models embeddings (a learned table, per-sample ids) and fixed indices");
  const Value x = im.materialize(n, 0);
  const std::int64_t ps_axis = im.per_sample_axis(x, axis, n);
  const ir::Shape full = im.full_shape(x);
  const std::int64_t along = full[static_cast<std::size_t>(axis)];
  Ints idx;
  for (const double d : *indices.data) {
    std::int64_t i = as_int(d, "an index");
    if (i < 0) i += along;
    if (i < 0 || i >= along) im.fail(n, "index " + std::to_string(i) + " is outside an axis of " + std::to_string(along));
    idx.push_back(i);
  }
  if (idx.empty()) im.fail(n, "gathers nothing");
  bool contiguous = true;
  for (std::size_t i = 1; i < idx.size(); ++i) contiguous = contiguous && idx[i] == idx[i - 1] + 1;
  const auto count = static_cast<std::int64_t>(idx.size());
  const Value picked = contiguous ? im.emit("slice", {x}, {{"start", idx[0]}, {"size", count}, {"axis", ps_axis}}, n, x.batch_axis)
                                  : im.emit("gather", {x}, {{"count", count}, {"axis", ps_axis}}, n, x.batch_axis);
  // ONNX: data.shape[:axis] + indices.shape + data.shape[axis+1:]
  ir::Shape out(full.begin(), full.begin() + axis);
  out.insert(out.end(), indices.dims.begin(), indices.dims.end());
  out.insert(out.end(), full.begin() + axis + 1, full.end());
  int batch_axis = x.batch_axis;
  if (batch_axis > axis) batch_axis += static_cast<int>(indices.dims.size()) - 1;
  im.set_output(n, 0, reshaped(im, n, picked, out, batch_axis, ".reshape", fold_of(im, x)));
}

void unsqueeze(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  ir::Shape full = im.full_shape(x);
  Ints axes = axes_of(im, n, 1);
  const std::size_t rank = full.size() + axes.size();
  if (rank > kMaxRank)
    im.fail(n, "makes a tensor of " + std::to_string(rank) + " axes; Ridge reads at most " + std::to_string(kMaxRank),
            diag::kOnnxLimit);
  for (auto& a : axes) a = normalise_axis(im, n, a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) im.fail(n, "names an axis twice in axes (ONNX: the axes are unique)");
  int batch_axis = x.is_layer() ? x.batch_axis : -1;
  for (const auto a : axes) {
    if (static_cast<std::size_t>(a) > full.size()) im.fail(n, "axis out of range");
    full.insert(full.begin() + a, 1);
    if (batch_axis >= 0 && a <= batch_axis) ++batch_axis;
  }
  if (!x.is_layer()) {
    Value v = x;
    v.dims = full;
    v.weight.clear();
    if (!x.data || !x.integral) v.weight = x.weight;   // a learned tensor seen through a view keeps its name
    return im.set_output(n, 0, v);
  }
  im.set_output(n, 0, reshaped(im, n, x, full, batch_axis));
}

void squeeze(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  const ir::Shape full = im.full_shape(x);
  Ints axes = axes_of(im, n, 1);
  const int batch = x.is_layer() ? x.batch_axis : -1;
  if (axes.empty())
    for (std::size_t i = 0; i < full.size(); ++i)
      if (full[i] == 1 && static_cast<int>(i) != batch) axes.push_back(static_cast<std::int64_t>(i));
  for (auto& a : axes) {
    a = normalise_axis(im, n, a, full.size());
    if (a == batch) im.fail(n, "squeezes the batch axis");
    if (full[static_cast<std::size_t>(a)] != 1) im.fail(n, "squeezes an axis of size " + std::to_string(full[static_cast<std::size_t>(a)]));
  }
  ir::Shape out;
  int batch_axis = -1;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end()) continue;
    if (static_cast<int>(i) == batch) batch_axis = static_cast<int>(out.size());
    out.push_back(full[i]);
  }
  if (!x.is_layer()) {
    Value v = x;
    v.dims = out;
    return im.set_output(n, 0, v);
  }
  im.set_output(n, 0, reshaped(im, n, x, out, batch_axis));
}

void concat(Importer& im, const onnx::NodeProto& n) {
  bool folded = true;
  for (int i = 0; i < n.input_size(); ++i) {
    const Value& v = im.input(n, i);
    folded = folded && !v.is_layer() && v.data.has_value();
  }
  const std::size_t rank = im.full_shape(im.input(n, 0)).size();
  const std::int64_t axis = normalise_axis(im, n, attr_int(n, "axis", 0), std::max<std::size_t>(rank, 1));
  // A piece of a learned tensor (an LSTM's gates reordered by Slice and Concat) stays learned (below),
  // whether or not its values are in the file.
  bool any_learned = false;
  for (int i = 0; i < n.input_size(); ++i) any_learned = any_learned || im.input(n, i).learned();
  if (folded && rank >= 1 && n.input_size() > 0 && (rank == 1 || !any_learned)) {
    // Shape arithmetic, and constant tensors computed from shapes alone (Swin's shifted-window mask
    // builds its indices so): each input's block of `inner` elements along the axis, in turn for every
    // index of the axes before it.
    ir::Shape dims = im.input(n, 0).dims;
    bool integral = true;
    for (int i = 0; i < n.input_size(); ++i) {
      const Value& v = im.input(n, i);
      if (v.dims.size() != rank) im.fail(n, "concatenates constants of different ranks");
      for (std::size_t d = 0; d < rank; ++d)
        if (static_cast<std::int64_t>(d) != axis && v.dims[d] != dims[d]) im.fail(n, "concatenates constants whose other axes differ");
      if (i > 0) dims[static_cast<std::size_t>(axis)] += v.dims[static_cast<std::size_t>(axis)];
      integral = integral && v.integral;
    }
    const std::int64_t count = element_count_checked(dims, "its result");
    if (count > kMaxFoldedElements) im.fail(n, "folds to too many elements", diag::kOnnxLimit);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      if (static_cast<std::int64_t>(d) < axis) outer *= dims[d];
      if (static_cast<std::int64_t>(d) > axis) inner *= dims[d];
    }
    std::vector<double> data;
    data.reserve(static_cast<std::size_t>(count));
    for (std::int64_t o = 0; o < outer; ++o)
      for (int i = 0; i < n.input_size(); ++i) {
        const Value& v = im.input(n, i);
        const std::int64_t block = v.dims[static_cast<std::size_t>(axis)] * inner;
        data.insert(data.end(), v.data->begin() + o * block, v.data->begin() + (o + 1) * block);
      }
    return im.set_output(n, 0, Value::constant(dims, std::move(data), integral));
  }
  if (n.input_size() == 1 && im.input(n, 0).is_layer()) return im.set_output(n, 0, im.input(n, 0));   // torch.cat of one
  // Pieces of learned tensors (an LSTM's gates reordered by Slice and Concat): a learned tensor
  // again, known by its shape.
  bool all_const = true, any_absent = false, all_learned = true;
  for (int i = 0; i < n.input_size(); ++i) {
    const Value& v = im.input(n, i);
    all_const = all_const && !v.is_layer();
    any_absent = any_absent || !v.data;
    all_learned = all_learned && !v.weight.empty();
  }
  const bool learned = n.input_size() > 0 && all_const && (any_absent || (all_learned && im.full_shape(im.input(n, 0)).size() > 1));
  if (learned) {
    Value v = im.input(n, 0);
    const std::int64_t a = normalise_axis(im, n, attr_int(n, "axis", 0), v.dims.size());
    for (int i = 1; i < n.input_size(); ++i) {
      const Value& w = im.input(n, i);
      if (w.dims.size() != v.dims.size()) im.fail(n, "concatenates tensors of different ranks");
      v.dims[static_cast<std::size_t>(a)] += w.dims[static_cast<std::size_t>(a)];
    }
    element_count_checked(v.dims, "its result");
    v.slices.clear();
    v.part.clear();
    v.data.reset();
    return im.set_output(n, 0, v);
  }
  std::vector<Value> xs;
  const Value* lead = nullptr;
  for (int i = 0; i < n.input_size(); ++i) {
    xs.push_back(im.materialize(n, i));
    if (xs.back().batched() && !lead) lead = &im.input(n, i);
  }
  int batch_axis = -1;
  std::int64_t ps_axis = axis;
  if (lead) {
    const Value first_batched = *std::find_if(xs.begin(), xs.end(), [](const Value& v) { return v.batched(); });
    batch_axis = first_batched.batch_axis;
    ps_axis = im.per_sample_axis(first_batched, axis, n);
    for (auto& v : xs) {
      // A learned [1, ...] beside [B, ...] data in a static export is a tensor expanded to the batch of 1
      // it was traced with (ViT's class token, `expand(1, -1, -1)` folded): per sample, itself.
      const ir::Shape mine = im.full_shape(v);
      if (!v.batched() && batch_axis == 0 && im.declared_batch() == 1 && mine.size() == im.full_shape(*lead).size() &&
          mine.size() >= 2 && mine[0] == 1)
        v = reshaped(im, n, v, mine, 0, ".squeeze");
      if (!v.batched()) im.fail(n, "concatenates a learned tensor with per-sample data (expand it over the batch first)");
      if (v.batch_axis != batch_axis) im.fail(n, "concatenates tensors whose batch axes do not line up");
    }
  }
  im.set_output(n, 0, im.emit("concat", xs, {{"axis", ps_axis}}, n, batch_axis));
}

void reshape(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  const std::vector<double> target_raw = im.const_data(n, 1);
  const ir::Shape full = im.full_shape(x);
  const bool allowzero = attr_int(n, "allowzero", 0) != 0;
  const int in_batch = x.is_layer() ? x.batch_axis : -1;
  // Resolve 0 (copy the input's axis) and find the batch among the target's entries.
  std::vector<double> t = target_raw;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] == 0 && !allowzero) {
      if (i >= full.size()) im.fail(n, "copies axis " + std::to_string(i) + " that the input does not have");
      t[i] = static_cast<int>(i) == in_batch ? kBatch : static_cast<double>(full[i]);
    }
  if (!x.is_layer() || in_batch < 0) {
    ir::Shape out;
    for (const double d : t) out.push_back(as_int(d, "the target shape"));
    if (!x.is_layer()) {
      const std::int64_t total = element_count_checked(full, "its result");
      std::int64_t known = 1;
      for (const auto d : out) known *= d == -1 ? 1 : d;
      for (auto& d : out)
        if (d == -1) d = known ? total / known : 0;
      Value v = x;
      v.dims = out;
      element_count_checked(out, "its result");
      return im.set_output(n, 0, v);
    }
    return im.set_output(n, 0, im.emit("reshape", {x}, {{"shape", out}}, n, -1));
  }
  int batch_axis = -1;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (is_batch(t[i])) {
      if (batch_axis >= 0) im.fail(n, "puts the batch size on two axes");
      batch_axis = static_cast<int>(i);
    }
  const std::int64_t in_elements = ir::element_count(im.ir_shape(x));   // per sample (a folded value's fold included)
  if (batch_axis < 0) {
    // A target written with numbers only: [-1, ...] or the declared batch on axis 0 keeps the batch there.
    // So does a multiple of the declared batch on axis 0 when the target holds the input's elements for
    // that batch: a static export's window partition, [64, 49, C] at batch 1, folds the batch (below).
    const auto target_elements = [&] {
      double e = 1;
      for (const double d : t) e *= d;
      return e;
    };
    const std::int64_t declared = im.declared_batch();
    const bool lead_batch =
        !t.empty() && (t[0] == -1 || (declared > 0 && t[0] == declared) ||
                       (declared > 0 && t[0] > declared && std::fmod(t[0], static_cast<double>(declared)) == 0 &&
                        target_elements() == static_cast<double>(in_elements) * static_cast<double>(declared)));
    if (!lead_batch || in_batch != 0)
      im.fail(n, "reshapes to " + [&] {
        std::string s;
        for (const double d : target_raw) s += (s.empty() ? "" : ", ") + (is_batch(d) ? std::string("batch") : std::to_string(static_cast<std::int64_t>(d)));
        return "[" + s + "]";
      }() + ", which moves or merges the batch axis");
    batch_axis = 0;
    if (t[0] == -1) {
      for (std::size_t i = 1; i < t.size(); ++i)
        if (t[i] == -1) im.fail(n, "infers two axes (-1) and the batch");
    }
  }
  ir::Shape out;
  for (std::size_t i = 0; i < t.size(); ++i)
    out.push_back(static_cast<int>(i) == batch_axis ? -1 : as_int(t[i], "the target shape"));
  ir::Shape per_sample = out;
  per_sample.erase(per_sample.begin() + batch_axis);
  if (per_sample.empty()) per_sample = {1};
  // Fewer elements per sample than the input holds, by a whole factor: the reshape folds the batch
  // into its batch axis ([B, 8, 8, 7, 7, C] to [B * 64, 49, C], the batch entry being the batch times
  // the factor), which the IR keeps as an axis of that size (Value::folded). The same many elements
  // unfold it again.
  const std::int64_t out_elements = ir::element_count(per_sample);
  if (std::find(per_sample.begin(), per_sample.end(), -1) == per_sample.end() && out_elements > 0 &&
      in_elements > out_elements && in_elements % out_elements == 0) {
    const std::int64_t fold = in_elements / out_elements;
    return im.set_output(n, 0, reshaped(im, n, x, out, batch_axis, {}, fold));
  }
  if (per_sample == im.ir_shape(x)) return im.set_output(n, 0, Value::of_layer(x.layer, batch_axis));
  Value v = im.emit("reshape", {x}, {{"shape", per_sample}}, n, batch_axis);
  v.folded = false;   // the whole batch is back on its axis
  im.set_output(n, 0, v);
}

void flatten(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  const ir::Shape full = im.full_shape(x);
  std::int64_t axis = attr_int(n, "axis", 1);   // in [-rank, rank]
  if (axis < 0) axis += static_cast<std::int64_t>(full.size());
  if (axis < 0 || axis > static_cast<std::int64_t>(full.size())) im.fail(n, "axis is outside the input's rank");
  if (!x.is_layer()) {
    Value v = x;
    std::int64_t a = 1, b = 1;
    for (std::size_t i = 0; i < full.size(); ++i) (static_cast<std::int64_t>(i) < axis ? a : b) *= full[i];
    v.dims = {a, b};
    return im.set_output(n, 0, v);
  }
  if (x.batch_axis != 0 || axis != 1) im.fail(n, "flattens the batch axis together with others (axis " + std::to_string(axis) + ")");
  if (im.ir_shape(x).size() == 1) return im.set_output(n, 0, x);
  im.set_output(n, 0, im.emit("flatten", {x}, {}, n, 0));
}

void transpose(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  const ir::Shape full = im.full_shape(x);
  Ints perm = attr_ints(n, "perm").value_or(Ints{});
  if (perm.empty())
    for (std::size_t i = full.size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  if (perm.size() != full.size()) im.fail(n, "perm does not name every axis");
  std::vector<bool> seen(full.size(), false);
  for (auto& p : perm) {
    if (p < 0) im.fail(n, "perm holds " + std::to_string(p) + "; ONNX's perm is a permutation of 0 .. rank - 1");
    p = normalise_axis(im, n, p, full.size());
    if (seen[static_cast<std::size_t>(p)]) im.fail(n, "perm names an axis twice");
    seen[static_cast<std::size_t>(p)] = true;
  }
  if (!x.is_layer()) {
    Value v = x;
    for (std::size_t i = 0; i < perm.size(); ++i) v.dims[i] = full[static_cast<std::size_t>(perm[i])];
    if (v.data) v.data = permute_data(*x.data, full, perm);
    return im.set_output(n, 0, v);
  }
  int batch_axis = -1;
  Ints per_sample;
  for (std::size_t j = 0; j < perm.size(); ++j) {
    if (x.batch_axis >= 0 && perm[j] == x.batch_axis) {
      batch_axis = static_cast<int>(j);
      if (!x.folded) continue;   // a folded batch axis is an IR axis too, and moves with the rest
    }
    per_sample.push_back(!x.folded && x.batch_axis >= 0 && perm[j] > x.batch_axis ? perm[j] - 1 : perm[j]);
  }
  Ints identity(per_sample.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (per_sample == identity) return im.set_output(n, 0, Value::of_layer(x.layer, batch_axis, x.folded));
  im.set_output(n, 0, im.emit("permute", {x}, {{"dims", per_sample}}, n, batch_axis));
}

struct SliceSpec {
  Ints starts, ends, axes, steps;
};

SliceSpec slice_spec(Importer& im, const onnx::NodeProto& n, std::size_t rank) {
  SliceSpec s;
  if (im.opset() >= 10) {
    s.starts = as_ints(im.input(n, 1), "starts");
    s.ends = as_ints(im.input(n, 2), "ends");
    if (im.has_input(n, 3)) s.axes = as_ints(im.input(n, 3), "axes");
    if (im.has_input(n, 4)) s.steps = as_ints(im.input(n, 4), "steps");
  } else {
    s.starts = attr_ints(n, "starts").value_or(Ints{});
    s.ends = attr_ints(n, "ends").value_or(Ints{});
    s.axes = attr_ints(n, "axes").value_or(Ints{});
  }
  if (s.axes.empty())
    for (std::size_t i = 0; i < s.starts.size(); ++i) s.axes.push_back(static_cast<std::int64_t>(i));
  if (s.steps.empty()) s.steps.assign(s.starts.size(), 1);
  if (s.ends.size() != s.starts.size() || s.axes.size() != s.starts.size() || s.steps.size() != s.starts.size())
    im.fail(n, "starts, ends, axes and steps differ in length");
  for (auto& a : s.axes) a = normalise_axis(im, n, a, rank);
  Ints sorted = s.axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) im.fail(n, "names an axis twice in axes (ONNX: the axes are unique)");
  return s;
}

// [start, end) of one axis of size `dim` after ONNX's clamping (step 1).
std::pair<std::int64_t, std::int64_t> clamp_range(std::int64_t start, std::int64_t end, std::int64_t dim) {
  if (start < 0) start = start < -dim ? 0 : start + dim;
  if (end < 0) end = end < -dim ? 0 : end + dim;
  start = std::clamp<std::int64_t>(start, 0, dim);
  end = std::clamp<std::int64_t>(end, start, dim);
  return {start, end};
}

// The elements one axis of size `dim` keeps, any step but 0, after ONNX's clamping: the first index,
// the stride and the count (ONNX Slice-13: a negative step clamps start to [0, dim - 1] and end to
// [-1, dim - 1], and walks down). Exporters write step -1 to reverse a list of pads.
struct StridedRange {
  std::int64_t first = 0, step = 1, count = 0;
};

StridedRange strided_range(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t dim) {
  if (step > 0) {
    const auto [first, last] = clamp_range(start, end, dim);
    return {first, step, (last - first + step - 1) / step};
  }
  if (dim == 0) return {0, step, 0};
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  start = std::clamp<std::int64_t>(start, 0, dim - 1);
  end = std::clamp<std::int64_t>(end, -1, dim - 1);
  const std::int64_t down = -step;
  return {start, step, start > end ? (start - end + down - 1) / down : 0};
}

// Every `r.step`-th element of the per-sample axis `axis` (of size `dim`) of `y`, as a view of the
// axis split into [dim / step, step] and one slice of the result (Swin's patch merging,
// x[..., 0::2, 1::2, :]): the slice moves the elements it keeps, as a strided copy does.
Value strided_slice(Importer& im, const onnx::NodeProto& n, const Value& y, std::int64_t axis, const StridedRange& r,
                    std::int64_t dim) {
  if (dim % r.step != 0) im.fail(n, "slices with step " + std::to_string(r.step) + " an axis of " + std::to_string(dim) + " it does not divide");
  if (r.count <= 0) im.fail(n, "slices an empty range");
  const ir::Shape shape = im.ir_shape(y);
  const auto at = static_cast<std::size_t>(axis);
  ir::Shape split(shape.begin(), shape.begin() + axis);
  split.insert(split.end(), {dim / r.step, r.step});
  split.insert(split.end(), shape.begin() + axis + 1, shape.end());
  Value v = im.emit("reshape", {y}, {{"shape", split}}, n, y.batch_axis, ".split");
  if (r.first / r.step != 0 || r.count != dim / r.step)
    v = im.emit("slice", {v}, {{"start", r.first / r.step}, {"size", r.count}, {"axis", axis}}, n, y.batch_axis, ".rows");
  v = im.emit("slice", {v}, {{"start", r.first % r.step}, {"size", std::int64_t{1}}, {"axis", axis + 1}}, n, y.batch_axis);
  ir::Shape out = shape;
  out[at] = r.count;
  return im.emit("reshape", {v}, {{"shape", out}}, n, y.batch_axis, ".merge");
}

void slice(Importer& im, const onnx::NodeProto& n) {
  const Value& x = im.input(n, 0);
  const ir::Shape full = im.full_shape(x);
  const SliceSpec s = slice_spec(im, n, full.size());
  for (const auto step : s.steps)
    if (step == 0) im.fail(n, "slices with step 0 (ONNX: a step is not 0)");
  // Values known here (shape arithmetic, constants) slice with any step; learned tensors only with
  // step 1, the one a view of them takes; the network's tensors with a positive step that divides the
  // axis (below).
  const auto odd_step = std::find_if(s.steps.begin(), s.steps.end(), [](std::int64_t step) { return step != 1; });
  if (odd_step != s.steps.end() && !x.data && !(x.is_layer() && *odd_step > 1))
    im.fail(n, "slices a tensor of the network with step " + std::to_string(*odd_step) + "; Ridge slices those with a positive step");
  if (!x.is_layer()) {
    Value v = x;
    ir::Shape dims = full;
    std::vector<StridedRange> ranges(full.size());
    for (std::size_t i = 0; i < full.size(); ++i) ranges[i] = {0, 1, full[i]};
    for (std::size_t k = 0; k < s.axes.size(); ++k) {
      const auto a = static_cast<std::size_t>(s.axes[k]);
      ranges[a] = strided_range(s.starts[k], s.ends[k], s.steps[k], full[a]);
      dims[a] = ranges[a].count;
      if (!x.weight.empty() && dims[a] != full[a])
        v.part += "[" + std::to_string(s.axes[k]) + ":" + std::to_string(ranges[a].first) + "+" + std::to_string(dims[a]) + "]";
    }
    v.dims = dims;
    if (x.data) {
      std::vector<double> out;
      const std::int64_t count = element_count_checked(dims, "its result");
      for (std::int64_t flat = 0; flat < count; ++flat) {
        std::int64_t rest = flat, src = 0, stride = 1;
        for (std::size_t i = full.size(); i-- > 0;) {
          const std::int64_t c = ranges[i].first + (rest % dims[i]) * ranges[i].step;
          rest /= dims[i];
          src += c * stride;
          stride *= full[i];
        }
        out.push_back((*x.data)[static_cast<std::size_t>(src)]);
      }
      v.data = std::move(out);
    }
    if (x.learned() && !(x.data && x.dims.size() <= 1)) {
      // A slice of a learned tensor (`wpe.weight[:T]`), whether or not its values are here: recorded,
      // made a layer of the whole tensor and its slice when read, so the whole tensor is counted.
      v.weight = x.weight;
      if (v.slices.empty()) v.base_dims = full;
      for (std::size_t k = 0; k < s.axes.size(); ++k) {
        const auto a = static_cast<std::size_t>(s.axes[k]);
        v.slices.push_back({s.axes[k], ranges[a].first, dims[a]});   // a view torch takes, whole or not
      }
    }
    return im.set_output(n, 0, v);
  }
  Value y = x;
  for (std::size_t k = 0; k < s.axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(s.axes[k]);
    if (x.batch_axis == static_cast<int>(a)) {
      if (s.starts[k] == 0 && s.ends[k] >= std::numeric_limits<std::int32_t>::max()) continue;
      im.fail(n, "slices the batch axis");
    }
    const std::int64_t axis = im.per_sample_axis(x, s.axes[k], n);
    if (s.steps[k] > 1) {
      y = strided_slice(im, n, y, axis, strided_range(s.starts[k], s.ends[k], s.steps[k], full[a]), full[a]);
      continue;
    }
    const auto [start, end] = clamp_range(s.starts[k], s.ends[k], full[a]);
    if (start == 0 && end == full[a]) continue;
    if (end <= start) im.fail(n, "slices an empty range");
    y = im.emit("slice", {y}, {{"start", start}, {"size", end - start}, {"axis", axis}}, n, x.batch_axis);
  }
  im.set_output(n, 0, y);
}

void split(Importer& im, const onnx::NodeProto& n) {
  const Value x = im.materialize(n, 0);
  const ir::Shape full = im.full_shape(x);
  const std::int64_t axis = normalise_axis(im, n, attr_int(n, "axis", 0), full.size());
  const std::int64_t ps_axis = im.per_sample_axis(x, axis, n);
  Ints sizes = im.has_input(n, 1) ? as_ints(im.input(n, 1), "split") : attr_ints(n, "split").value_or(Ints{});
  const std::int64_t dim = full[static_cast<std::size_t>(axis)];
  if (sizes.empty()) {
    const std::int64_t parts = n.output_size();
    const std::int64_t each = (dim + parts - 1) / parts;
    for (std::int64_t i = 0, left = dim; i < parts; ++i, left -= each) sizes.push_back(std::min(each, left));
  }
  if (static_cast<int>(sizes.size()) != n.output_size() || std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) != dim)
    im.fail(n, "split sizes do not add up to the axis (" + std::to_string(dim) + ")");
  std::int64_t start = 0;
  for (int i = 0; i < n.output_size(); ++i) {
    const std::int64_t size = sizes[static_cast<std::size_t>(i)];
    if (size < 1) im.fail(n, "makes an empty piece");
    im.set_output(n, i, im.emit("slice", {x}, {{"start", start}, {"size", size}, {"axis", ps_axis}}, n, x.batch_axis,
                                "." + std::to_string(i)));
    start += size;
  }
}

// Expand of `x` (input 0 of `n`) to `target` (numpy broadcasting; the batch, NaN, may stand in it).
void expand_to(Importer& im, const onnx::NodeProto& n, const std::vector<double>& target) {
  const Value& x = im.input(n, 0);
  const ir::Shape full = im.full_shape(x);
  const std::size_t rank = std::max(full.size(), target.size());
  int batch_axis = -1;
  ir::Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t have = i < rank - full.size() ? 1 : full[i - (rank - full.size())];
    const double want = i < rank - target.size() ? 1.0 : target[i - (rank - target.size())];
    if (have == -1 || is_batch(want)) {
      if (batch_axis >= 0) im.fail(n, "puts the batch on two axes");
      batch_axis = static_cast<int>(i);
      out[i] = -1;
      continue;
    }
    const std::int64_t w = as_int(want, "the shape");
    out[i] = have == 1 ? std::max<std::int64_t>(w, 1) : have;
    if (w != 1 && have != 1 && w != have) im.fail(n, "cannot expand " + ir::to_string(full) + " to the target shape");
  }
  // A constant is folded; a learned tensor stays learned (its parameters counted as the initializer's,
  // not as the copies: a static export expands ViT's class token to the batch of 1 it was traced with).
  if (!x.is_layer() && x.data && (x.weight.empty() || x.integral) && batch_axis < 0) {
    const std::int64_t count = element_count_checked(out, "its result");
    if (count > kMaxFoldedElements) im.fail(n, "folds to too many elements", diag::kOnnxLimit);
    Value ones = Value::constant(out, std::vector<double>(static_cast<std::size_t>(count), 0.0), x.integral);
    return im.set_output(n, 0, fold_binary(x, ones, [](double a, double) { return a; }, "its result"));
  }
  const Value v = im.materialize(n, 0);
  if (v.folded) {
    // A folded value (a window partition's [batch x windows, ...]) broadcast within each window: the IR
    // shape keeps the rank, the folded axis as it holds it (F.normalize's norm expanded to its rows).
    if (batch_axis != v.batch_axis || out.size() != full.size()) im.fail(n, "expands a folded tensor across its batch axis");
    ir::Shape mine = out;
    mine[static_cast<std::size_t>(batch_axis)] = im.ir_shape(v)[static_cast<std::size_t>(batch_axis)];
    if (mine == im.ir_shape(v)) return im.set_output(n, 0, v);
    return im.set_output(n, 0, im.emit("expand", {v}, {{"shape", mine}}, n, batch_axis));
  }
  if (batch_axis < 0) {
    if (out == full) return im.set_output(n, 0, v);
    return im.set_output(n, 0, im.emit("expand", {v}, {{"shape", out}}, n, -1));
  }
  if (batch_axis != 0) im.fail(n, "expands over a batch that is not on axis 0");
  ir::Shape per_sample(out.begin() + 1, out.end());
  if (per_sample.empty()) per_sample = {1};
  Value base = v;
  if (!v.batched()) {
    // A learned tensor broadcast over the batch (ViT's class token): per sample it is itself.
    const ir::Shape mine = im.ir_shape(v);
    if (mine.size() == rank) {
      if (mine[0] != 1) im.fail(n, "expands a learned tensor over the batch along an axis that is not 1");
      base = reshaped(im, n, v, ir::Shape(mine.begin(), mine.end()), 0, ".squeeze");
    }
    base.batch_axis = 0;
  }
  if (im.ir_shape(base) == per_sample) return im.set_output(n, 0, Value::of_layer(base.layer, 0));
  im.set_output(n, 0, im.emit("expand", {base}, {{"shape", per_sample}}, n, 0));
}

void expand(Importer& im, const onnx::NodeProto& n) { expand_to(im, n, im.const_data(n, 1)); }

// Tile that repeats only axes of size 1 (`cls.repeat(B, 1, 1)`, a learned tensor broadcast) is the
// Expand to the same shape; one that copies a longer axis is refused.
void tile(Importer& im, const onnx::NodeProto& n) {
  const ir::Shape full = im.full_shape(im.input(n, 0));
  const std::vector<double>& repeats = im.const_data(n, 1);
  if (repeats.size() != full.size()) im.fail(n, "repeats must hold one value per axis");
  std::vector<double> target(full.size());
  for (std::size_t i = 0; i < full.size(); ++i) {
    const bool once = !is_batch(repeats[i]) && as_int(repeats[i], "a repeat") == 1;
    if (once) target[i] = full[i] < 0 ? kBatch : static_cast<double>(full[i]);
    else if (full[i] == 1) target[i] = repeats[i];
    else im.fail(n, "repeats an axis of size " + std::to_string(full[i]) + "; Ridge tiles axes of size 1 (a broadcast)");
  }
  expand_to(im, n, target);
}

void constant_of_shape(Importer& im, const onnx::NodeProto& n) {
  const std::vector<double>& raw = im.const_data(n, 0);
  if (std::any_of(raw.begin(), raw.end(), is_batch)) {
    // A per-batch constant (an LSTM's zero initial state): its shape is known but for the batch; it
    // may be read where Ridge ignores it, never as data.
    ir::Shape dims;
    for (const double d : raw) dims.push_back(is_batch(d) ? 1 : as_int(d, "the shape"));
    Value v;
    v.dims = dims;
    return im.set_output(n, 0, v);
  }
  const ir::Shape dims = as_ints(im.input(n, 0), "the shape");
  const std::int64_t count = element_count_checked(dims, "its result");
  if (count > kMaxFoldedElements)
    im.fail(n, "makes a constant of " + std::to_string(count) + " elements; Ridge folds at most " + std::to_string(kMaxFoldedElements),
            diag::kOnnxLimit);
  double fill = 0;
  bool integral = false;
  if (const auto* a = attribute(n, "value")) {
    const Value v = read_tensor(a->t(), "its value");
    if (v.data && !v.data->empty()) fill = v.data->front();
    integral = v.integral;
  }
  im.set_output(n, 0, Value::constant(dims, std::vector<double>(static_cast<std::size_t>(count), fill), integral));
}

void range(Importer& im, const onnx::NodeProto& n) {
  const double start = im.const_data(n, 0).at(0), limit = im.const_data(n, 1).at(0), delta = im.const_data(n, 2).at(0);
  if (is_batch(start) || is_batch(limit) || is_batch(delta) || delta == 0) im.fail(n, "a range whose bounds depend on the batch, or with step 0");
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (count > static_cast<double>(kMaxFoldedElements))
    im.fail(n, "makes a range of more than " + std::to_string(kMaxFoldedElements) + " elements", diag::kOnnxLimit);
  std::vector<double> v;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) v.push_back(start + static_cast<double>(i) * delta);
  // The length first: the order in which a call's arguments are evaluated is unspecified, and GCC
  // moved `v` out before reading its size (every Range folded to an empty shape).
  const auto length = static_cast<std::int64_t>(v.size());
  im.set_output(n, 0, Value::constant({length}, std::move(v), im.input(n, 0).integral));
}

// Element-wise ops that appear only in shape arithmetic: folded, never data.
template <double (*F)(double, double)>
void fold_only(Importer& im, const onnx::NodeProto& n) {
  const Value& a = im.input(n, 0);
  const Value& b = im.input(n, 1);
  if (a.is_layer() || b.is_layer() || !a.data || !b.data) im.fail(n, "is applied to data; Ridge folds it only in shape arithmetic");
  Value v = fold_binary(a, b, F, "its result");
  im.set_output(n, 0, v);
}
// Mod: integer remainder with the divisor's sign (Python's %), or C's fmod (fmod: 1), in shape arithmetic.
void mod(Importer& im, const onnx::NodeProto& n) {
  const Value& a = im.input(n, 0);
  const Value& b = im.input(n, 1);
  if (a.is_layer() || b.is_layer() || !a.data || !b.data) im.fail(n, "is applied to data; Ridge folds Mod only in shape arithmetic");
  double (*const c_fmod)(double, double) = [](double x, double y) {
    return y == 0 || is_batch(x) || is_batch(y) ? kBatch : std::fmod(x, y);
  };
  double (*const floored)(double, double) = [](double x, double y) {
    if (y == 0 || is_batch(x) || is_batch(y)) return kBatch;
    const double r = std::fmod(x, y);
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
  };
  im.set_output(n, 0, fold_binary(a, b, attr_int(n, "fmod", 0) != 0 ? c_fmod : floored, "its result"));
}

double equal_(double a, double b) { return a == b ? 1 : 0; }
double less_(double a, double b) { return a < b ? 1 : 0; }
double greater_(double a, double b) { return a > b ? 1 : 0; }
double min_(double a, double b) { return std::min(a, b); }
double max_(double a, double b) { return std::max(a, b); }

template <double (*F)(double)>
void fold_unary(Importer& im, const onnx::NodeProto& n) {
  Value v = im.input(n, 0);
  if (v.is_layer()) im.fail(n, "is applied to data; Ridge folds it only in shape arithmetic");
  if (v.data)
    for (double& d : *v.data) d = F(d);
  v.weight.clear();   // a constant computed from a buffer (a mask): known in shape, not learned
  v.slices.clear();
  v.part.clear();
  im.set_output(n, 0, v);
}
double neg_(double a) { return -a; }
double floor_(double a) { return std::floor(a); }
double ceil_(double a) { return std::ceil(a); }
double not_(double a) { return a == 0 ? 1 : 0; }

// ScatterND of constants (Swin's shifted-window mask: a zero map whose regions are numbered): the
// data with each indexed slice replaced by its update. Folded only when every element is known.
void scatter_nd(Importer& im, const onnx::NodeProto& n) {
  const Value& data = im.input(n, 0);
  const Value& indices = im.input(n, 1);
  const Value& updates = im.input(n, 2);
  // Fixed values written at fixed places of a learned tensor (Swin V2 zeroes the keys' part of a copy of
  // its qkv bias, x[C:2C] = x[C:2C] - x[C:2C]): the same learned tensor, as Ridge counts it (it keeps
  // no learned values).
  if (!data.is_layer() && data.learned() && !indices.is_layer() && indices.data && !updates.batched()) {
    if (updates.is_layer()) im.fail(n, "scatters values computed at run time into the learned tensor '" + data.weight + "'");
    // Another learned tensor written into this one would drop its parameters from the count.
    if (updates.learned()) im.fail(n, "scatters the learned tensor '" + updates.weight + "' into the learned tensor '" + data.weight + "'");
    im.set_output(n, 0, data);
    return;
  }
  if (data.is_layer() || indices.is_layer() || updates.is_layer() || !data.data || !indices.data || !updates.data)
    im.fail(n, "scatters into data; Ridge folds ScatterND only where every operand is a constant it knows");
  if (attr_string(n, "reduction", "none") != "none") im.fail(n, "scatters with a reduction; Ridge folds plain ScatterND");
  if (indices.dims.empty()) im.fail(n, "has scalar indices");
  const auto k = static_cast<std::size_t>(indices.dims.back());
  if (k == 0 || k > data.dims.size()) im.fail(n, "indexes more axes than its data has");
  std::int64_t slice = 1;
  for (std::size_t d = k; d < data.dims.size(); ++d) slice *= data.dims[d];
  const std::size_t tuples = indices.data->size() / k;
  if (updates.data->size() != tuples * static_cast<std::size_t>(slice)) im.fail(n, "has updates that do not match its indices");
  Value out = data;
  out.weight.clear();
  for (std::size_t t = 0; t < tuples; ++t) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < k; ++d) {
      std::int64_t i = as_int((*indices.data)[t * k + d], "an index");
      if (i < 0) i += data.dims[d];
      if (i < 0 || i >= data.dims[d]) im.fail(n, "index " + std::to_string(i) + " is outside an axis of " + std::to_string(data.dims[d]));
      at = at * data.dims[d] + i;
    }
    std::copy_n(updates.data->begin() + static_cast<std::ptrdiff_t>(t * static_cast<std::size_t>(slice)), slice,
                out.data->begin() + at * slice);
  }
  im.set_output(n, 0, std::move(out));
}

void where(Importer& im, const onnx::NodeProto& n) {
  const Value& c = im.input(n, 0);
  const Value& a = im.input(n, 1);
  const Value& b = im.input(n, 2);
  // masked_fill by a fixed mask (causal attention): the additive mask it equals, one add per element.
  if (!c.is_layer() && (a.is_layer() != b.is_layer())) {
    const Value& x = a.is_layer() ? a : b;
    const Value& fill = a.is_layer() ? b : a;
    if (!fill.is_layer() && fill.data && fill.data->size() == 1) {
      const auto out = broadcast(im.full_shape(x), c.dims);
      if (!out || *out != im.full_shape(x)) im.fail(n, "its mask widens the data it selects from");
      return im.set_output(n, 0, im.emit("add", {x}, {{"b", 0.0}}, n, x.batch_axis, ".masked_fill"));
    }
  }
  if (c.is_layer() || a.is_layer() || b.is_layer() || !c.data || !a.data || !b.data)
    im.fail(n, "selects between data; Ridge folds Where only in shape arithmetic");
  const Value ca = fold_binary(c, a, [](double cond, double x) { return cond != 0 ? x : kBatch; }, "its result");
  const Value cb = fold_binary(c, b, [](double cond, double y) { return cond != 0 ? kBatch : y; }, "its result");
  Value out = fold_binary(ca, cb, [](double x, double y) { return is_batch(x) ? y : x; }, "its result");
  out.integral = a.integral && b.integral;
  im.set_output(n, 0, out);
}

}  // namespace

void add_shape_converters(std::map<std::string, Converter>& t) {
  t["Constant"] = constant;
  t["Shape"] = shape;
  t["Size"] = size;
  t["Identity"] = identity;
  t["Cast"] = cast;
  t["Gather"] = gather;
  t["Unsqueeze"] = unsqueeze;
  t["Squeeze"] = squeeze;
  t["Concat"] = concat;
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Transpose"] = transpose;
  t["Slice"] = slice;
  t["Split"] = split;
  t["Expand"] = expand;
  t["Tile"] = tile;
  t["Mod"] = mod;
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
  t["Equal"] = fold_only<equal_>;
  t["Less"] = fold_only<less_>;
  t["Greater"] = fold_only<greater_>;
  t["Min"] = fold_only<min_>;
  t["Max"] = fold_only<max_>;
  t["Neg"] = fold_unary<neg_>;
  t["Floor"] = fold_unary<floor_>;
  t["Ceil"] = fold_unary<ceil_>;
  t["Not"] = fold_unary<not_>;
  t["Where"] = where;
  t["ScatterND"] = scatter_nd;
}

const std::map<std::string, Converter>& converters() {
  static const std::map<std::string, Converter> table = [] {
    std::map<std::string, Converter> t;
    add_op_converters(t);
    add_shape_converters(t);
    add_einsum_converter(t);
    return t;
  }();
  return table;
}

}  // namespace ridge::lang::onnx_import
