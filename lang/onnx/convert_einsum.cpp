// Einsum as the matrix product it spells: two operands, one contracted letter, at most one free letter
// of each operand besides the letters they share with the output (batch letters):
//   "bij,bjk->bik", "bhqd,bhkd->bhqk", "...ij,...jk->...ik"       -> permutes as needed, then matmul
//   "btd,de->bte" (the second operand an initializer)              -> linear over the contracted letter
// Other equations (a sum over one operand's letter, an outer product, three operands) are refused by
// name, as any op Ridge cannot model.
#include "lang/onnx/importer.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace ridge::lang::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;

// The equation's terms with "..." spelled out as letters of their own ('A', 'B', ... before any
// letter an operand names), given the operands' ranks.
struct Terms {
  std::string a, b, out;
};

Terms parse(Importer& im, const onnx::NodeProto& n, std::size_t rank_a, std::size_t rank_b) {
  std::string eq = attr_string(n, "equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const auto arrow = eq.find("->");
  const auto comma = eq.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow || eq.find(',', comma + 1) != std::string::npos)
    im.fail(n, "equation '" + eq + "': Ridge reads two operands and an explicit output (\"ab,bc->ac\")");
  Terms t{eq.substr(0, comma), eq.substr(comma + 1, arrow - comma - 1), eq.substr(arrow + 2)};
  std::size_t ellipsis = 0;
  const auto spell = [&](std::string& term, std::size_t rank) {
    const auto dots = term.find("...");
    if (dots == std::string::npos) return;
    const std::size_t named = term.size() - 3;
    const std::size_t count = rank >= named ? rank - named : 0;
    ellipsis = std::max(ellipsis, count);
    std::string letters;
    for (std::size_t i = 0; i < count; ++i) letters += static_cast<char>('A' + (ellipsis - count) + i);
    term.replace(dots, 3, letters);
  };
  spell(t.a, rank_a);
  spell(t.b, rank_b);
  if (const auto dots = t.out.find("..."); dots != std::string::npos) {
    std::string letters;
    for (std::size_t i = 0; i < ellipsis; ++i) letters += static_cast<char>('A' + i);
    t.out.replace(dots, 3, letters);
  }
  for (const std::string* term : {&t.a, &t.b, &t.out})
    for (const char c : *term)
      if (!std::isalpha(static_cast<unsigned char>(c)) || std::count(term->begin(), term->end(), c) != 1)
        im.fail(n, "equation '" + eq + "': a letter repeated in one term (a diagonal) or not a letter");
  if (t.a.size() != rank_a || t.b.size() != rank_b) im.fail(n, "equation '" + eq + "' does not fit the operands' ranks");
  return t;
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// `x` (whose full shape's axes `from` names) brought to the order `to`: a permute, or nothing.
Value permuted(Importer& im, const onnx::NodeProto& n, const Value& x, const std::string& from, const std::string& to,
               const std::string& suffix) {
  if (from == to) return x;
  Ints per_sample;
  int batch_axis = -1;
  for (std::size_t j = 0; j < to.size(); ++j) {
    const auto p = static_cast<std::int64_t>(from.find(to[j]));
    if (x.batch_axis >= 0 && p == x.batch_axis) {
      batch_axis = static_cast<int>(j);
      continue;
    }
    per_sample.push_back(x.batch_axis >= 0 && p > x.batch_axis ? p - 1 : p);
  }
  Ints identity(per_sample.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (per_sample == identity) return Value::of_layer(x.layer, batch_axis);
  return im.emit("permute", {x}, {{"dims", per_sample}}, n, batch_axis, suffix);
}

void einsum(Importer& im, const onnx::NodeProto& n) {
  if (n.input_size() != 2) im.fail(n, "has " + std::to_string(n.input_size()) + " operands; Ridge reads Einsum of two (a matrix product)");
  const Value& a0 = im.input(n, 0);
  const Value& b0 = im.input(n, 1);
  const Terms t = parse(im, n, im.full_shape(a0).size(), im.full_shape(b0).size());
  std::string batch, m, k, nn;
  for (const char c : t.a) (has(t.b, c) ? (has(t.out, c) ? batch : k) : (has(t.out, c) ? m : k)) += c;
  for (const char c : t.b)
    if (!has(t.a, c)) (has(t.out, c) ? nn : k) += c;
  for (const char c : t.out)
    if (!has(t.a, c) && !has(t.b, c)) im.fail(n, "its output names a letter no operand has");
  for (const char c : k)
    if (!has(t.a, c) || !has(t.b, c)) im.fail(n, "sums over a letter of one operand only; Ridge reads Einsum as a matrix product");
  const auto refuse = [&] {
    im.fail(n, "contracts " + std::to_string(k.size()) + " letters with " + std::to_string(m.size()) + " and " + std::to_string(nn.size()) +
                   " free ones; Ridge reads Einsum as one matrix product (one contracted letter, at most one free letter per operand)");
  };
  if (k.size() != 1 || nn.size() > 1) refuse();
  // A learned second operand [k, n] or [n, k] beside data: a linear layer over the contracted letter.
  if (a0.batched() && !b0.is_layer() && !b0.weight.empty() && b0.dims.size() == 2 && nn.size() == 1 && batch.empty()) {
    std::string rest;
    for (const char c : t.a)
      if (c != k[0]) rest += c;
    const Value x = permuted(im, n, a0, t.a, rest + k, ".permute");
    const Value y = linear_layer(im, n, x, b0, false, {}, t.b == k + nn);
    return im.set_output(n, 0, permuted(im, n, y, rest + nn, t.out, ".out"));
  }
  if (m.size() > 1) refuse();
  const Value a = im.materialize(n, 0), b = im.materialize(n, 1);
  if (!a.batched() && !b.batched()) im.fail(n, "multiplies two learned tensors: not per-sample work Ridge can count");
  const std::string lhs = batch + m + k, rhs = batch + k + nn;
  const Value x = permuted(im, n, a, t.a, lhs, ".lhs"), y = permuted(im, n, b, t.b, rhs, ".rhs");
  if (x.batched() && y.batched() && x.batch_axis != y.batch_axis) im.fail(n, "multiplies operands whose batch axes do not line up");
  const int batch_axis = x.batched() ? x.batch_axis : y.batch_axis;
  if (batch_axis >= static_cast<int>(batch.size())) im.fail(n, "contracts or keeps the batch axis as a free letter of one operand");
  const Value product = im.emit("matmul", {x, y}, {}, n, batch_axis);
  im.set_output(n, 0, permuted(im, n, product, batch + m + nn, t.out, ".out"));
}

}  // namespace

void add_einsum_converter(std::map<std::string, Converter>& t) { t["Einsum"] = einsum; }

}  // namespace ridge::lang::onnx_import
