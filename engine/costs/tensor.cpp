// Costs of views, copies, reductions and softmax.
//
//   op            forward                                   backward (input gradient)
//   views         nothing (flatten, reshape, transpose, permute, slice's forward, dropout in inference)
//   slice         -                                         write the gradient into a zero-filled input-sized tensor
//   expand        -                                         sum the gradient over the broadcast axes (1 add/element)
//   concat        copy every input                          views of the output gradient: free
//   gather        copy `count` rows (+ the int64 index,     index_add into a zero-filled input (1 add/element;
//                 count x 8 B, one for every sample)        reads the index too; 2 kernels)
//   channel_shuffle, pad                                    a copy each way
//   roll          a copy per rolled axis, each way (torch.roll rolls one axis at a time: roll_common,
//                 aten/src/ATen/native/TensorTransformations.cpp; Swin-T's two-axis rolls ran two
//                 roll_cuda_kernel launches each on the H100)
//   mean, sum     1 add per input element (+1 div per output for mean)   broadcast the gradient back (mean: 1 mul/element)
//   amax          1 comparison per input element            g * (x == max): 2 per input element
//   softmax       5 per element: max, sub, exp, sum, div    4: g*y, sum, sub, mul
//   log_softmax   5 per element: max, sub, exp, sum, log+sub  4: exp(y), sum g, mul, sub
//   dropout       train: 1 (x * mask * scale), 1-byte mask  1
#include "engine/costs/rows.hpp"

#include <algorithm>

namespace ridge::engine::costs {
namespace {

void slice(const Ctx& c, OpCost& r) { r.backward = pass(0, c.out() * c.w, c.in() * c.w); }

void expand(const Ctx& c, OpCost& r) {
  if (c.in() < c.out()) r.backward = pass(c.out(), c.out() * c.w, c.in() * c.w);
}


void concat(const Ctx& c, OpCost& r) { r.forward = pass(0, c.in_total() * c.w, c.out() * c.w); }

void gather(const Ctx& c, OpCost& r) {
  // index_select: one int64 index of `count` entries, shared by every sample.
  const double index = static_cast<double>(c.a().i("count")) * kIndexBytes;
  r.forward = pass(0, c.out() * c.w + index, c.out() * c.w);
  r.backward = pass(c.out(), c.out() * c.w + index, c.in() * c.w, 2);   // zero fill + index_add
}

void reduce(const Ctx& c, OpCost& r, bool mean) {
  r.forward = pass(c.in() + (mean ? c.out() : 0.0), c.in() * c.w, c.out() * c.w);
  r.backward = pass(mean ? c.in() : 0.0, c.out() * c.w, c.in() * c.w);
}
void mean(const Ctx& c, OpCost& r) { reduce(c, r, true); }
void sum(const Ctx& c, OpCost& r) { reduce(c, r, false); }
void amax(const Ctx& c, OpCost& r) {
  r.forward = pass(c.in(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(2.0 * c.in(), (c.in() + 2.0 * c.out()) * c.w, c.in() * c.w);   // x, max, grad
}

// The L2 norm: a square and an add per element, a square root per result; backward grad * x / norm.
void norm(const Ctx& c, OpCost& r) {
  r.forward = pass(2.0 * c.in() + c.out(), c.in() * c.w, c.out() * c.w);
  r.backward = pass(2.0 * c.in(), (c.in() + 2.0 * c.out()) * c.w, c.in() * c.w);   // x, norm, grad
}

void softmax(const Ctx& c, OpCost& r) {
  r.forward = pass(5.0 * c.out(), c.in() * c.w, c.out() * c.w);
  // Over the last axis, a row kernel (kernels::softmax_rows); other axes run another kernel.
  const ir::Shape& s = c.in_shapes.at(0);
  const std::int64_t axis = c.a().i("axis");
  if (axis == -1 || axis == static_cast<std::int64_t>(s.size()) - 1) {
    const double row = static_cast<double>(s.back());
    r.rows_forward = kernels::softmax_rows(c.in() / row, row, c.w);
  }
  r.backward = pass(4.0 * c.in(), 2.0 * c.out() * c.w, c.in() * c.w);   // grad_out, saved output
}

void roll(const Ctx& c, OpCost& r) {
  const int axes = std::max(1, static_cast<int>(c.a().ints("axes").size()));   // none: the flattened tensor, once
  const double k = axes;
  r.forward = pass(0, k * c.in() * c.w, k * c.out() * c.w, axes);
  r.backward = pass(0, k * c.out() * c.w, k * c.in() * c.w, axes);
}

void dropout(const Ctx& c, OpCost& r) {
  // Eval: identity (a view). Train: mask (1 byte per element, torch's bool mask) saved for backward.
  r.forward_train = pass(c.out(), c.in() * c.w, c.out() * c.w + c.out());
  r.backward = pass(c.in(), c.out() * c.w + c.out(), c.in() * c.w);
  r.saved_bytes = c.out();
}

}  // namespace

std::vector<CostRow> tensor_costs() {
  return {
      {"flatten", view, kSavesNothing},         {"reshape", view, kSavesNothing},        {"transpose", view, kSavesNothing},
      {"permute", view, kSavesNothing},         {"expand", expand, kSavesNothing},       {"concat", concat, kSavesNothing},
      {"slice", slice, kSavesNothing},          {"gather", gather, kSavesNothing},       {"channel_shuffle", copy_both_ways, kSavesNothing},
      {"pad", copy_both_ways, kSavesNothing},   {"roll", roll, kSavesNothing}, {"mean", mean, kSavesNothing},
      {"sum", sum, kSavesNothing},              {"amax", amax, Saves{1u, true}},
      {"norm", norm, Saves{1u, true}},           {"softmax", softmax, kSavesOutput},
      {"log_softmax", softmax, kSavesOutput},  {"dropout", dropout, kSavesNothing},
  };
}

}  // namespace ridge::engine::costs
