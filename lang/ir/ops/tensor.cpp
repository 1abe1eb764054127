// Views, copies, reductions and softmax: ops that move or reduce values without weights.
#include "lang/ir/ops/families.hpp"
#include "lang/ir/ops/rows.hpp"

#include <algorithm>
#include <numeric>

namespace ridge::ir::families {
namespace {

using namespace rows;

Shape flatten(const Attrs& a, const In& in) {
  const std::int64_t from = checked_axis(a.i("axis"), in[0].size());
  const std::int64_t to = checked_axis(a.i("end"), in[0].size());
  if (to < from) fail("flatten's end axis " + str(a.i("end")) + " comes before its start axis " + str(a.i("axis")));
  Shape out(in[0].begin(), in[0].begin() + from);
  std::int64_t merged = 1;
  for (auto d = from; d <= to; ++d) merged = checked_mul(merged, in[0][static_cast<std::size_t>(d)], "the flattened size");
  out.push_back(merged);
  out.insert(out.end(), in[0].begin() + to + 1, in[0].end());
  return out;
}

Shape reshape(const Attrs& a, const In& in) {
  Shape out = a.ints("shape");
  if (out.empty()) fail("reshape needs a target shape");
  const auto unknown = std::count(out.begin(), out.end(), std::int64_t{-1});
  if (unknown > 1) fail("reshape can infer at most one dimension (-1)");
  std::int64_t known = 1;
  for (auto d : out) {
    if (d == 0 || d < -1) fail("reshape dimensions must be positive (or -1 once)");
    if (d > 0) {
      if (known > kMaxElementsPerSample / d) fail("reshape target " + to_string(out) + " is absurdly large");
      known *= d;
    }
  }
  const std::int64_t total = element_count(in[0]);
  if (unknown == 1) {
    if (total % known != 0) fail("cannot reshape " + to_string(in[0]) + " to " + to_string(out));
    *std::find(out.begin(), out.end(), std::int64_t{-1}) = total / known;
  } else if (known != total) {
    fail("cannot reshape " + to_string(in[0]) + " (" + str(total) + " elements) to " + to_string(out));
  }
  return out;
}

Shape transpose(const Attrs& a, const In& in) {
  Shape out = in[0];
  std::swap(out[static_cast<std::size_t>(checked_axis(a.i("a"), out.size()))],
            out[static_cast<std::size_t>(checked_axis(a.i("b"), out.size()))]);
  return out;
}

Shape permute(const Attrs& a, const In& in) {
  const auto& order = a.ints("dims");
  if (order.size() != in[0].size())
    fail("permute needs " + str(static_cast<std::int64_t>(in[0].size())) + " axes for " + to_string(in[0]) + ", got " +
         str(static_cast<std::int64_t>(order.size())));
  std::vector<bool> seen(order.size(), false);
  Shape out;
  for (auto d : order) {
    const auto axis = static_cast<std::size_t>(checked_axis(d, in[0].size()));
    if (seen[axis]) fail("permute names axis " + str(d) + " twice");
    seen[axis] = true;
    out.push_back(in[0][axis]);
  }
  return out;
}

Shape expand(const Attrs& a, const In& in) {
  const Shape& target = a.ints("shape");
  if (target.size() < in[0].size())
    fail("expand cannot lower the rank of " + to_string(in[0]) + " to " + to_string(target));
  Shape out(target.size());
  const std::size_t lead = target.size() - in[0].size();
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t have = i < lead ? 1 : in[0][i - lead];
    const std::int64_t want = target[i] == -1 ? have : target[i];
    if (i < lead && target[i] == -1) fail("expand: -1 is not allowed for a new leading axis");
    if (have != 1 && want != have) fail("expand cannot grow axis " + str(static_cast<std::int64_t>(i)) + " of " + to_string(in[0]) + " to " + str(want));
    out[i] = want;
  }
  return out;
}

Shape concat(const Attrs& a, const In& in) {
  const std::int64_t axis = checked_axis(a.i("axis"), in[0].size());
  Shape out = in[0];
  for (std::size_t i = 1; i < in.size(); ++i) {
    if (in[i].size() != out.size())
      fail("concat inputs differ in rank: " + to_string(in[0]) + " and " + to_string(in[i]));
    for (std::size_t d = 0; d < out.size(); ++d)
      if (static_cast<std::int64_t>(d) != axis && in[i][d] != out[d])
        fail("concat inputs differ outside axis " + str(axis) + ": " + to_string(in[0]) + " and " + to_string(in[i]));
    out[static_cast<std::size_t>(axis)] += in[i][static_cast<std::size_t>(axis)];
    if (out[static_cast<std::size_t>(axis)] > kMaxDimension) fail("concat's output is absurdly large");
  }
  return out;
}

Shape slice(const Attrs& a, const In& in) {
  const auto axis = static_cast<std::size_t>(checked_axis(a.i("axis"), in[0].size()));
  const std::int64_t start = a.i("start"), size = a.i("size");
  if (size < 1 || start < 0 || start > in[0][axis] || size > in[0][axis] - start)
    fail("slice [" + str(start) + ", " + str(start) + "+" + str(size) + ") is outside axis " + str(static_cast<std::int64_t>(axis)) +
         " of " + to_string(in[0]));
  Shape out = in[0];
  out[axis] = size;
  return out;
}

Shape gather(const Attrs& a, const In& in) {
  const auto axis = static_cast<std::size_t>(checked_axis(a.i("axis"), in[0].size()));
  if (a.i("count") < 1) fail("gather needs at least one index");
  Shape out = in[0];
  out[axis] = a.i("count");
  return out;
}

Shape channel_shuffle(const Attrs& a, const In& in) {
  const std::int64_t g = a.i("groups");
  if (g < 1 || in[0][0] % g != 0)
    fail("channels (" + str(in[0][0]) + ") are not divisible by groups (" + str(g) + ")");
  return in[0];
}

Shape pad(const Attrs& a, const In& in) {
  const auto& p = a.ints("pad");
  if (p.size() % 2 != 0 || p.size() / 2 > in[0].size())
    fail("pad takes pairs (before, after) for up to " + str(static_cast<std::int64_t>(in[0].size())) +
         " axes, last axis first, as torch.nn.functional.pad; got " + str(static_cast<std::int64_t>(p.size())) + " values");
  // torch pads reflect/replicate/circular over all the spatial axes only (not the channels).
  if (a.s("mode") != "constant" && p.size() != 2 * (in[0].size() - 1))
    fail("pad mode \"" + a.s("mode") + "\" needs a (before, after) pair for each of the " +
         str(static_cast<std::int64_t>(in[0].size() - 1)) + " spatial axes of " + to_string(in[0]));
  const std::string& mode = a.s("mode");
  if (mode != "constant" && a.r("value") != 0.0)
    fail("pad mode \"" + mode + "\" takes no value (torch's rule: only constant padding fills with one)");
  Shape out = in[0];
  for (std::size_t i = 0; i < p.size() / 2; ++i) {
    auto& d = out[out.size() - 1 - i];
    if (p[2 * i] > kMaxDimension || p[2 * i + 1] > kMaxDimension) fail("padding is absurdly large");
    // torch: reflection mirrors inside the axis (pad < size); circular padding wraps around at most once.
    const std::int64_t widest = std::max(p[2 * i], p[2 * i + 1]);
    if (mode == "reflect" && widest >= d)
      fail("reflect padding of " + str(widest) + " needs an axis longer than it; axis " +
           str(static_cast<std::int64_t>(out.size() - 1 - i)) + " has " + str(d));
    if (mode == "circular" && widest > d)
      fail("circular padding of " + str(widest) + " would wrap around axis " +
           str(static_cast<std::int64_t>(out.size() - 1 - i)) + " (" + str(d) + ") more than once");
    d += p[2 * i] + p[2 * i + 1];
    if (d < 1) fail("padding removes the whole of axis " + str(static_cast<std::int64_t>(out.size() - 1 - i)));
  }
  return out;
}

Shape roll(const Attrs& a, const In& in) {
  if (a.ints("shifts").size() != a.ints("axes").size()) fail("roll needs one shift per axis");
  for (auto d : a.ints("axes")) checked_axis(d, in[0].size());
  return in[0];
}

Shape reduce(const Attrs& a, const In& in) {
  const auto& axes = a.ints("axes");
  std::vector<bool> reduced(in[0].size(), axes.empty());
  for (auto d : axes) {
    const auto axis = static_cast<std::size_t>(checked_axis(d, in[0].size()));
    if (reduced[axis]) fail("axis " + str(static_cast<std::int64_t>(axis)) + " appears more than once in the axes");
    reduced[axis] = true;
  }
  Shape out;
  for (std::size_t i = 0; i < in[0].size(); ++i) {
    if (!reduced[i]) out.push_back(in[0][i]);
    else if (a.b("keepdim")) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);   // a per-sample scalar is kept as [1]
  return out;
}

Shape along_axis(const Attrs& a, const In& in) {
  checked_axis(a.i("axis"), in[0].size());
  return in[0];
}

Shape dropout(const Attrs& a, const In& in) {
  if (a.r("p") < 0.0 || a.r("p") > 1.0) fail("dropout probability must be in [0, 1]");
  return in[0];
}

std::vector<ParamSpec> reduction() {
  return {tensor("x"), {"axes", K::Ints, L({})}, {"keepdim", K::Bool, B(false)}};
}

}  // namespace

std::vector<OpSpec> tensor_ops() {
  using C = OpClass;
  return {
      {"flatten", {tensor("x"), {"axis", K::Int, I(0)}, {"end", K::Int, I(-1)}}, C::DataMovement, flatten, nullptr, true,
       "merges axes axis..end (per sample: torch.flatten(x, 1) is flatten(x))"},
      {"reshape", {tensor("x"), {"shape", K::Ints}}, C::DataMovement, reshape, nullptr, true,
       "to a per-sample shape; one dimension may be -1"},
      {"transpose", {tensor("x"), {"a", K::Int}, {"b", K::Int}}, C::DataMovement, transpose, nullptr, true,
       "swaps two per-sample axes (a view, as torch's)"},
      {"permute", {tensor("x"), {"dims", K::Ints}}, C::DataMovement, permute, nullptr, true,
       "reorders the per-sample axes (a view)"},
      {"expand", {tensor("x"), {"shape", K::Ints}}, C::DataMovement, expand, nullptr, true,
       "broadcasts size-1 axes to a per-sample shape; -1 keeps an axis (a view)"},
      {"concat", {{"xs", K::Tensors}, {"axis", K::Int, I(0)}}, C::DataMovement, concat, nullptr, false,
       "joins tensors along a per-sample axis"},
      {"slice", {tensor("x"), {"start", K::Int}, {"size", K::Int}, {"axis", K::Int, I(0)}}, C::DataMovement, slice, nullptr,
       true, "[start, start+size) along an axis (a view; what split makes)"},
      {"gather", {tensor("x"), {"count", K::Int}, {"axis", K::Int, I(0)}}, C::DataMovement, gather, nullptr, false,
       "count entries picked along an axis by a fixed index (index_select: Swin's relative position bias)"},
      {"channel_shuffle", {tensor("x"), {"groups", K::Int}}, C::DataMovement, channel_shuffle, nullptr, false,
       "ShuffleNet's channel shuffle"},
      {"pad", {tensor("x"), {"pad", K::Ints}, {"value", K::Real, R(0.0)}, {"mode", K::Word, W("constant"), {}, {"constant", "reflect", "replicate", "circular"}}},
       C::DataMovement, pad, nullptr, false, "torch.nn.functional.pad: (before, after) pairs, last axis first"},
      {"roll", {tensor("x"), {"shifts", K::Ints}, {"axes", K::Ints}}, C::DataMovement, roll, nullptr, false,
       "torch.roll along per-sample axes (Swin's shifted windows)"},
      {"mean", reduction(), C::Reduction, reduce, nullptr, false, "mean over per-sample axes (all if none given)"},
      {"sum", reduction(), C::Reduction, reduce, nullptr, false, "sum over per-sample axes"},
      {"amax", reduction(), C::Reduction, reduce, nullptr, false, "maximum over per-sample axes (torch.amax; `max` is the number built-in)"},
      {"norm", reduction(), C::Reduction, reduce, nullptr, false,
       "the L2 norm over per-sample axes (torch.linalg.vector_norm; F.normalize's divisor)"},
      {"softmax", {tensor("x"), {"axis", K::Int, I(-1)}}, C::Elementwise, along_axis, nullptr, false, "softmax along an axis"},
      {"log_softmax", {tensor("x"), {"axis", K::Int, I(-1)}}, C::Elementwise, along_axis, nullptr, false,
       "log of softmax along an axis, in one kernel"},
      {"dropout", {tensor("x"), {"p", K::Real, R(0.5)}}, C::Elementwise, dropout, nullptr, true,
       "identity in inference; a mask in training"},
  };
}

}  // namespace ridge::ir::families
