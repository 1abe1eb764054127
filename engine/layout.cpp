#include "engine/layout.hpp"

#include "lang/ir/op_classes.hpp"
#include "lang/ir/ops.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>

namespace ridge::engine::layout {
namespace {

// A value's memory order: its per-sample axes, outermost first (the batch is outside them all).
using Order = std::vector<int>;

Order identity(std::size_t rank) {
  Order o(rank);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

// The order's axes of more than one element, outermost first: size-1 axes have no say in layout.
Order significant(const Order& mem, const ir::Shape& shape) {
  Order out;
  for (const int a : mem)
    if (shape.at(static_cast<std::size_t>(a)) != 1) out.push_back(a);
  return out;
}

bool contiguous(const Order& mem, const ir::Shape& shape) {
  const Order s = significant(mem, shape);
  return std::is_sorted(s.begin(), s.end());
}

int axis_of(std::int64_t axis, std::size_t rank) {
  return static_cast<int>(axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis);
}

// permute: output axis j is input axis dims[j].
Order permuted(const Order& mem, const std::vector<int>& dims) {
  std::vector<int> out_of(dims.size());
  for (std::size_t j = 0; j < dims.size(); ++j) out_of.at(static_cast<std::size_t>(dims[j])) = static_cast<int>(j);
  Order out;
  out.reserve(mem.size());
  for (const int a : mem) out.push_back(out_of.at(static_cast<std::size_t>(a)));
  return out;
}

// reshape: the output's order where it can be a view of the input's memory, none where it copies.
std::optional<Order> reshaped(const Order& mem, const ir::Shape& in, const ir::Shape& out) {
  if (contiguous(mem, in)) return identity(out.size());
  // Group the axes of more than one element: each group of input axes makes one group of output axes.
  std::vector<int> a, b;   // the original indices of the significant axes
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1) a.push_back(static_cast<int>(i));
  for (std::size_t j = 0; j < out.size(); ++j)
    if (out[j] != 1) b.push_back(static_cast<int>(j));
  std::vector<int> position(in.size(), -1);   // memory position of each significant input axis
  {
    const Order s = significant(mem, in);
    for (std::size_t p = 0; p < s.size(); ++p) position[static_cast<std::size_t>(s[p])] = static_cast<int>(p);
  }
  struct Group {
    int first_position;
    std::vector<int> outputs;
  };
  std::vector<Group> groups;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    std::int64_t pa = in[static_cast<std::size_t>(a[i])], pb = out[static_cast<std::size_t>(b[j])];
    std::vector<int> inputs{a[i]}, outputs{b[j]};
    while (pa != pb) {
      if (pa < pb) {
        if (++i == a.size()) return std::nullopt;
        pa *= in[static_cast<std::size_t>(a[i])];
        inputs.push_back(a[i]);
      } else {
        if (++j == b.size()) return std::nullopt;
        pb *= out[static_cast<std::size_t>(b[j])];
        outputs.push_back(b[j]);
      }
    }
    // A view only where the group's input axes lie adjacent in memory, in their logical order.
    for (std::size_t k = 1; k < inputs.size(); ++k)
      if (position[static_cast<std::size_t>(inputs[k])] != position[static_cast<std::size_t>(inputs[0])] + static_cast<int>(k))
        return std::nullopt;
    groups.push_back({position[static_cast<std::size_t>(inputs[0])], std::move(outputs)});
    ++i;
    ++j;
  }
  std::sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) { return x.first_position < y.first_position; });
  Order order;
  for (const Group& g : groups) order.insert(order.end(), g.outputs.begin(), g.outputs.end());
  for (std::size_t k = 0; k < out.size(); ++k)
    if (out[k] == 1) order.push_back(static_cast<int>(k));
  return order;
}

// A batched matmul operand cuBLAS takes as it is: its two matrix axes innermost (either order), its
// batch axes outside them in their logical order (so that they fold into one).
bool matrix_ready(const Order& mem, const ir::Shape& shape) {
  const std::size_t r = shape.size();
  if (r < 2) return true;
  const Order s = significant(mem, shape);
  const auto matrix = [r](int a) { return a == static_cast<int>(r) - 1 || a == static_cast<int>(r) - 2; };
  std::size_t first_matrix = s.size();
  for (std::size_t p = 0; p < s.size(); ++p)
    if (matrix(s[p])) {
      first_matrix = p;
      break;
    }
  for (std::size_t p = first_matrix; p < s.size(); ++p)
    if (!matrix(s[p])) return false;
  return std::is_sorted(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(first_matrix));
}

}  // namespace

std::vector<Copies> eager_copies(const ir::Network& net, bool channels_last) {
  const std::size_t n = net.layers.size();
  std::vector<Order> order(n);
  std::vector<Copies> copies(n);
  const ir::Op permute = ir::op("permute"), transpose = ir::op("transpose"), reshape = ir::op("reshape"),
               flatten = ir::op("flatten"), softmax = ir::op("softmax"), log_softmax = ir::op("log_softmax"),
               layernorm = ir::op("layernorm"), linear = ir::op("linear"), matmul = ir::op("matmul"), conv = ir::op("conv"),
               conv_transpose = ir::op("conv_transpose"), batchnorm = ir::op("batchnorm"), rmsnorm = ir::op("rmsnorm");
  for (std::size_t id = 0; id < n; ++id) {
    const ir::Layer& layer = net.layers[id];
    const std::size_t rank = layer.output.size();
    Order result = identity(rank);
    if (layer.op == ir::kInputOp || layer.inputs.empty()) {
      order[id] = std::move(result);
      continue;
    }
    const auto input_order = [&](std::size_t k) -> const Order& { return order.at(static_cast<std::size_t>(layer.inputs.at(k))); };
    const auto input_shape = [&](std::size_t k) -> const ir::Shape& { return net.layers.at(static_cast<std::size_t>(layer.inputs.at(k))).output; };
    const auto copy_input = [&](std::size_t k) {
      copies[id].elements += static_cast<double>(ir::element_count(input_shape(k)));
      ++copies[id].kernels;
    };
    const ir::Op op = layer.op;
    const ir::OpSpec& spec = ir::spec(op);
    if (op == permute) {
      std::vector<int> dims;
      for (const std::int64_t d : layer.attrs.ints("dims")) dims.push_back(axis_of(d, rank));
      result = permuted(input_order(0), dims);
    } else if (op == transpose) {
      std::vector<int> dims = identity(rank);
      std::swap(dims.at(static_cast<std::size_t>(axis_of(layer.attrs.i("a"), rank))),
                dims.at(static_cast<std::size_t>(axis_of(layer.attrs.i("b"), rank))));
      result = permuted(input_order(0), dims);
    } else if (op == reshape || op == flatten) {
      if (auto viewed = reshaped(input_order(0), input_shape(0), layer.output)) {
        result = std::move(*viewed);
      } else {
        copy_input(0);
      }
    } else if (op == softmax || op == log_softmax || op == layernorm) {
      if (!contiguous(input_order(0), input_shape(0))) copy_input(0);
    } else if (op == linear) {
      if (input_shape(0).size() >= 2 && !contiguous(input_order(0), input_shape(0))) copy_input(0);
    } else if (op == matmul) {
      for (std::size_t k = 0; k < layer.inputs.size(); ++k)
        if (!matrix_ready(input_order(k), input_shape(k))) copy_input(k);
    } else if (op == conv || op == conv_transpose) {
      if (channels_last && rank >= 3) {   // [C, spatial...] written as [spatial..., C]
        result.clear();
        for (std::size_t a = 1; a < rank; ++a) result.push_back(static_cast<int>(a));
        result.push_back(0);
      }
    } else if (spec.view || spec.op_class == ir::OpClass::Pooling) {
      // Views (slice, expand, dropout) keep their input's memory; a pool writes in its input's layout.
      if (input_shape(0).size() == rank) result = input_order(0);
    } else if (spec.op_class == ir::OpClass::Elementwise || op == batchnorm || op == rmsnorm) {
      // TensorIterator writes in the layout of its first input of the result's shape.
      for (std::size_t k = 0; k < layer.inputs.size(); ++k)
        if (input_shape(k) == layer.output) {
          result = input_order(k);
          break;
        }
    }
    order[id] = std::move(result);
  }
  return copies;
}

}  // namespace ridge::engine::layout
