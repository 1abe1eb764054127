// PyTorch's view rules (engine/layout.hpp), each case checked against what torch does with the same
// tensors: `y = x.permute(...).reshape(...)` shares x's storage exactly when y._base is x (torch 1.13
// and 2.x agree on every case below, aten/src/ATen/TensorUtils.cpp computeStride).
#include "engine/layout.hpp"
#include "engine/simulate.hpp"
#include "lang/parse.hpp"
#include "tests/support/reports.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace engine = ridge::engine;
namespace ir = ridge::ir;
using ridge::testing::catalogue_device;
using ridge::testing::layer_named;

namespace {

ir::Network net(const std::string& body) { return ridge::lang::parse_network("network t {\n" + body + "}\n", "t.net"); }

engine::layout::Copies copies_of(const ir::Network& n, const std::string& name, bool channels_last = true) {
  const auto all = engine::layout::eager_copies(n, channels_last);
  for (std::size_t i = 0; i < n.layers.size(); ++i)
    if (n.layers[i].name == name) return all[i];
  FAIL("no layer " << name);
  return {};
}

}  // namespace

TEST_CASE("a reshape of a permuted tensor copies only where the merged axes are not adjacent in memory") {
  // x: [8, 7, 8, 7, 96] per sample. Swin's partition: permute(0, 2, 1, 3, 4) then merge (8, 8) and
  // (7, 7): torch copies (y._base is None). Merging (7, 96) of x.permute(0, 2, 1, 3, 4), axes 3 and 4
  // adjacent and in order, is a view; so is splitting an axis of the permuted tensor.
  const ir::Network n = net(
      "  input x: [8, 7, 8, 7, 96]\n"
      "  p = x -> permute([0, 2, 1, 3, 4])\n"
      "  a = p -> reshape([64, 49, 96]) as partition\n"
      "  b = p -> reshape([8, 8, 7, 672]) as inner_merge\n"
      "  c = p -> reshape([2, 4, 8, 7, 7, 96]) as split_outer\n"
      "  d = x -> reshape([56, 56, 96]) as contiguous\n"
      "  return concat([a -> flatten, b -> flatten, c -> flatten, d -> flatten])\n");
  CHECK(copies_of(n, "partition") == engine::layout::Copies{8.0 * 7 * 8 * 7 * 96, 1});
  CHECK(copies_of(n, "inner_merge").kernels == 0);
  CHECK(copies_of(n, "split_outer").kernels == 0);
  CHECK(copies_of(n, "contiguous").kernels == 0);
}

TEST_CASE("merged axes must lie in memory in their logical order: a transposed matrix flattens by copying") {
  // x.transpose(0, 1).reshape(24) on a [4, 6] x copies (the two axes are adjacent in memory, but the
  // merged one would have to run them in the other order); x.transpose(0, 1).reshape(6, 2, 2) splits
  // an axis and is a view.
  const ir::Network n = net(
      "  input x: [4, 6]\n"
      "  t = x -> transpose(0, 1)\n"
      "  a = t -> reshape([24]) as merged\n"
      "  b = t -> reshape([6, 2, 2]) as split\n"
      "  return add(a, b -> flatten as split_flat)\n");
  CHECK(copies_of(n, "merged") == engine::layout::Copies{24, 1});
  CHECK(copies_of(n, "split").kernels == 0);
  CHECK(copies_of(n, "split_flat").kernels == 1);
}

TEST_CASE("a batched matmul copies an operand whose batch axes are not adjacent outside its matrix axes") {
  // qkv [49, 3, 3, 32] -> permute(1, 2, 0, 3): q is [3 heads, 49, 32] with the heads between the rows
  // in memory: torch.matmul(q, k.transpose(-2, -1)) copies both (their batch axis, the heads, sits
  // inside the matrix's rows). A contiguous [3, 49, 32] and its transpose need no copy (torch 1.13's
  // profiler: two aten::copy_ for the first product, none for the second).
  const ir::Network n = net(
      "  input x: [49, 3, 3, 32]\n"
      "  q = x -> permute([1, 2, 0, 3]) -> slice(0, 1) -> reshape([3, 49, 32])\n"
      "  k = x -> permute([1, 2, 0, 3]) -> slice(1, 1) -> reshape([3, 49, 32])\n"
      "  return matmul(q, k -> transpose(1, 2)) as scores\n");
  CHECK(copies_of(n, "scores") == engine::layout::Copies{2.0 * 3 * 49 * 32, 2});
  const ir::Network plain = net(
      "  input x: [3, 49, 32]\n"
      "  return matmul(x, x -> transpose(1, 2)) as plain\n");
  CHECK(copies_of(plain, "plain").kernels == 0);
  // Batch axes swapped, matrix axes innermost: y = x.permute(1, 0, 2, 3) on a [3, 4, 5, 6] x cannot fold
  // its batch axes (4, 3) into one (torch.matmul(y, y.transpose(-2, -1)) copies both operands).
  const ir::Network swapped = net(
      "  input x: [3, 4, 5, 6]\n"
      "  y = x -> permute([1, 0, 2, 3])\n"
      "  return matmul(y, y -> transpose(2, 3)) as gram\n");
  CHECK(copies_of(swapped, "gram") == engine::layout::Copies{2.0 * 360, 2});
}

TEST_CASE("softmax, layer norm and a linear over several axes copy a permuted input, elementwise ops keep its layout") {
  const ir::Network n = net(
      "  input x: [4, 6, 8]\n"
      "  p = x -> permute([1, 0, 2]) -> relu as kept\n"
      "  a = p -> softmax as soft\n"
      "  b = p -> layernorm as norm\n"
      "  c = p -> linear(8) as proj\n"
      "  return add(add(a, b), c)\n");
  CHECK(copies_of(n, "soft") == engine::layout::Copies{4.0 * 6 * 8, 1});
  CHECK(copies_of(n, "norm").kernels == 1);
  CHECK(copies_of(n, "proj").kernels == 1);
}

TEST_CASE("a channels-last convolution's output permuted to [H, W, C] is contiguous: ConvNeXt's norm copies only in NCHW") {
  const ir::Network n = net(
      "  input x: [3, 32, 32]\n"
      "  c = x -> conv(16, kernel: 3, pad: 1)\n"
      "  y = c -> permute([1, 2, 0]) -> layernorm as norm -> permute([2, 0, 1])\n"
      "  return add(y, c) -> flatten as flat\n");
  CHECK(copies_of(n, "norm", true).kernels == 0);
  CHECK(copies_of(n, "norm", false).kernels == 1);
  // torch.flatten of a channels-last [C, H, W] copies (the merged axes are not adjacent in NHWC
  // memory); of a contiguous NCHW tensor it is a view. The add writes in its first input's layout:
  // channels-last in both runs here (y, the norm's [H, W, C] permuted back).
  CHECK(copies_of(n, "flat", true).kernels == 1);
  const ir::Network plain = net(
      "  input x: [3, 32, 32]\n"
      "  return x -> conv(16, kernel: 3, pad: 1) -> flatten as flat\n");
  CHECK(copies_of(plain, "flat", true).kernels == 1);
  CHECK(copies_of(plain, "flat", false).kernels == 0);
}

TEST_CASE("simulate charges the copies in eager PyTorch on a GPU, forward and backward, and not under a fusing runtime") {
  const ir::Network n = net(
      "  input x: [8, 7, 8, 7, 96]\n"
      "  return x -> linear(96) as pre -> permute([0, 2, 1, 3, 4]) -> reshape([64, 49, 96]) as partition\n"
      "           -> linear(96) as proj\n");
  const ir::Device h100 = catalogue_device("h100-sxm5");
  const engine::Options eager{.batch = 128, .precision = ir::Precision::BF16};   // 77 MB: past the L2
  engine::Options fused = eager;
  fused.runtime = std::make_shared<const ir::Runtime>(ridge::lang::load_runtime(std::string(RIDGE_RUNTIMES_DIR) + "/torch-compile.rt"));
  const engine::Report r = engine::simulate(n, h100, eager), f = engine::simulate(n, h100, fused);
  const double bytes = 128.0 * 8 * 7 * 8 * 7 * 96 * 2;   // the value at bf16, read and written once
  CHECK(layer_named(r, "partition").fwd.kernels == 1);
  CHECK(layer_named(r, "partition").fwd.bytes() == 2 * bytes);
  CHECK(layer_named(r, "partition").bwd.kernels == 1);
  CHECK(layer_named(r, "partition").bwd.bytes() == 2 * bytes);
  CHECK(layer_named(r, "partition").time_fwd.paleo_s >= 2 * bytes / 3.35e12);
  CHECK(layer_named(f, "partition").fwd.kernels == 0);
  CHECK(layer_named(f, "partition").bwd.kernels == 0);
}
