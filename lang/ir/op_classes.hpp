// The op classes as data (issue #34): one row per class in kOpClasses below holds everything the
// program knows about a class: its name, the class whose PPP it takes where a device gives it none,
// its default PPP, which timing model its kernels fit, and its label in the roofline plot. The
// engine, the .hw checker, calibrate and the renderers read the row; none of them switches on the
// class. Adding a class takes an enum value, a row, and the cost rows that give ops the class
// (docs/ops.md, "Adding an op class"); the checks after the table refuse one that is not whole.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::ir {

// The op classes a PPP (platform percent of peak) is given for. The engine maps each op to one
// (OpSpec::op_class, narrowed by its cost row). Why each class exists is said at its row below.
enum class OpClass { MatMul, Elementwise, Normalization, Pooling, DataMovement, Depthwise, DepthwiseLarge, Reduction, Pointwise,
                     NarrowConv, PointwiseNative };

// The PPP a class is timed with before calibration: fractions of peak compute and peak bandwidth,
// the same for every pass. Every catalogue GPU runs on these (no catalogue .hw sets a PPP).
struct DefaultPpp {
  double compute = 0.0;
  double memory = 0.0;
  friend bool operator==(const DefaultPpp&, const DefaultPpp&) = default;
};

struct OpClassRow {
  OpClass op_class;
  std::string_view name;                   // the .hw key (`ppp.NAME.*`) and the reports' op_class column
  // The class whose PPP this one takes where a device gives it none, entry by entry (engine::ppp_rule).
  // A class split off another names the one its ops ran on before the split, so a .hw written
  // before keeps its predictions. None for the original classes.
  std::optional<OpClass> fallback;
  std::optional<DefaultPpp> default_ppp;   // absent: its fallback's, for the same reason
  bool matrix_unit;                        // its ops may run on the matrix units (tensor cores): the
                                           // matrix peak, and the kernel model's GEMM plans
  bool streams;                            // its kernels stream memory: the kernel model times them
                                           // as streams (engine::streams); others stay PALEO's
  std::string_view plot_label;             // the roofline legend (its colour: palette entry of its row)
};

// Why the default values:
// - Matmul compute 0.5: PALEO (Qi, Sparks, Talwalkar, ICLR 2017) fits one compute PPP per platform;
//   its case-study scripts (github.com/TalwalkarLab/paleo, scripts/exp_case_*.sh) use 0.62 (Inception
//   v3 on K40, AlexNet on K80), 0.49 (MXNet on K80), 0.46 (AlexNet on K20) and 0.21 (NiN on K20X):
//   median 0.49. Best-shape GEMMs reach more (A100 bf16 0.87 of peak, stas00/ml-engineering "maximum
//   achievable matmul FLOPS"); real layer shapes less.
// - Memory 0.8: an assumption close to measured large device-to-device copies (H100 SXM 2,903 of
//   3,350 GB/s = 0.87, github.com/aigatech/vpbenchmarking); for streaming ops (elementwise, data
//   movement, the matmul's operand traffic). calibrate's large-copy ceiling replaces it.
// - Normalization 0.6, pooling 0.7: assumptions, not measurements (normalisation reduces over the
//   batch or a row in several passes; pooling windows overlap and stride); calibrate replaces them.
// - Compute of the non-matmul classes is 0.5 as well: these ops are memory bound on every catalogued
//   device, so the figure barely matters until calibration supplies one.
// - Depthwise and depthwise_large take matmul's figures, reduction pooling's (their fallbacks): nothing
//   published measures them apart on these GPUs.
// How they do against published single-GPU throughputs (validate/published_throughputs.csv,
// validate/scripts/published_compare.py): docs/gpu.md, "Uncalibrated GPUs against published throughputs".
//
// In enum order: the engine indexes per-class tables by the enum's value (checked below).
inline constexpr std::array kOpClasses{
    OpClassRow{.op_class = OpClass::MatMul, .name = "matmul", .fallback = std::nullopt,
               .default_ppp = DefaultPpp{0.5, 0.8}, .matrix_unit = true, .streams = false,
               .plot_label = "conv / linear / matmul"},
    OpClassRow{.op_class = OpClass::Elementwise, .name = "elementwise", .fallback = std::nullopt,
               .default_ppp = DefaultPpp{0.5, 0.8}, .matrix_unit = false, .streams = true,
               .plot_label = "elementwise"},
    OpClassRow{.op_class = OpClass::Normalization, .name = "normalization", .fallback = std::nullopt,
               .default_ppp = DefaultPpp{0.5, 0.6}, .matrix_unit = false, .streams = true,
               .plot_label = "normalisation"},
    OpClassRow{.op_class = OpClass::Pooling, .name = "pooling", .fallback = std::nullopt,
               .default_ppp = DefaultPpp{0.5, 0.7}, .matrix_unit = false, .streams = true,
               .plot_label = "pooling"},
    OpClassRow{.op_class = OpClass::DataMovement, .name = "data_movement", .fallback = std::nullopt,
               .default_ppp = DefaultPpp{0.5, 0.8}, .matrix_unit = false, .streams = true,
               .plot_label = "data movement"},
    // Depthwise: a convolution with one input channel per group (MobileNet, EfficientNet) and a window
    // of at most 3x3; DepthwiseLarge: the same with a larger window (5x5). Their kernels are families
    // of their own: memory-bound, off the matrix units, and each library tunes 3x3 first, so they reach
    // a fraction of peak that neither a dense conv's PPP nor each other's describes (issue #16; the
    // measurements are in docs/calibration.md). Latency predictors treat them so too (nn-Meter's
    // kernel types and kernel-size features, Zhang et al., MobiSys 2021). Not streams either: PALEO
    // times them under the kernel model too.
    OpClassRow{.op_class = OpClass::Depthwise, .name = "depthwise", .fallback = OpClass::MatMul,
               .default_ppp = std::nullopt, .matrix_unit = false, .streams = false,
               .plot_label = "depthwise conv"},
    OpClassRow{.op_class = OpClass::DepthwiseLarge, .name = "depthwise_large", .fallback = OpClass::Depthwise,
               .default_ppp = std::nullopt, .matrix_unit = false, .streams = false,
               .plot_label = "depthwise conv, window over 3x3"},
    // Reduction: a mean, sum or max over whole axes (mean, sum, amax, and a pool whose window is the
    // whole map: the global average pool of a squeeze-excite block or a classifier head). A streaming
    // reduction runs near the memory bound, where windowed pooling (3x3 max pools) runs far below it,
    // so the two cannot share a PPP (issue #16, docs/calibration.md).
    OpClassRow{.op_class = OpClass::Reduction, .name = "reduction", .fallback = OpClass::Pooling,
               .default_ppp = std::nullopt, .matrix_unit = false, .streams = true,
               .plot_label = "reduction (global pool, mean, sum)"},
    // Pointwise: a dense 1x1 convolution (ResNet's bottlenecks, MobileNet's expansions and
    // projections, DenseNet's bottlenecks). On a CPU its GEMM reduces over the input channels alone
    // and LibTorch runs it on other kernels than a 3x3's (at one thread below batch 16, not oneDNN at
    // all: aten/src/ATen/native/Convolution.cpp, use_mkldnn): calibrated without it, ResNet-50's 1x1
    // convolutions came out 22-38 % fast while its 3x3 ones were within 5 % (issue #37,
    // docs/results/2026-11-27-fault-volume.md). On the matrix units, the GEMM the kernel model plans.
    OpClassRow{.op_class = OpClass::Pointwise, .name = "pointwise", .fallback = OpClass::MatMul,
               .default_ppp = std::nullopt, .matrix_unit = true, .streams = false,
               .plot_label = "1x1 conv"},
    // NarrowConv: a dense convolution on a GPU whose input channels fill less than one 16-byte vector
    // (a network's stem on RGB images: 3 channels). Tensor-core convolutions load channels 16 bytes at
    // a time, so NVIDIA asks for channels in multiples of 8 (fp16/bf16), 4 (tf32) or 16 (int8) (Deep
    // Learning Performance Guide, "Tensor Core requirements"); below one such multiple cuDNN, as
    // PyTorch calls it, runs a CUDA-core kernel: ResNet-50's conv1 ran at 33-37 TFLOP/s in bf16 and in
    // tf32 alike on H100s and an H200, half their fp32 FMA peak and under 4 % of the bf16 tensor peak
    // (docs/gpu.md). So: off the matrix units, timed by PALEO against the vector peak with matmul's
    // PPP (its fallback), whose 0.5 PALEO fitted on convolutions that ran on CUDA cores (K20-K80).
    // simulate() gives a convolution this class on a GPU unless the runtime pads the channels
    // (TensorRT: `narrow_conv = padded`); elsewhere it stays a matmul.
    OpClassRow{.op_class = OpClass::NarrowConv, .name = "narrow_conv", .fallback = OpClass::MatMul,
               .default_ppp = std::nullopt, .matrix_unit = false, .streams = false,
               .plot_label = "conv, few input channels (CUDA cores)"},
    // PointwiseNative: a 1x1 convolution that LibTorch runs on a CPU outside oneDNN, as one BLAS GEMM per
    // image (slow_conv2d): fp32, unit stride and dilation, a batch under 16, one intra-op thread
    // (aten/src/ATen/native/Convolution.cpp, ConvParams::use_mkldnn: "For 1x1 filters, MKLDNN is faster
    // than THNN when multi-threaded, but THNN is faster when single-threaded"). On a 2-vCPU Xeon VM
    // it ran at 0.19 of the measured peak where oneDNN's 1x1 ran at 0.8-0.9, so a PPP fitted at batch 8
    // on one thread predicted batch 16 50-98 % slow (issue #37, docs/results/2026-11-28-native-1x1.md).
    // simulate() gives a pointwise convolution this class where engine/cpu_dispatch.hpp says LibTorch
    // runs it so: on a CPU whose .hw records the one thread it was measured on.
    OpClassRow{.op_class = OpClass::PointwiseNative, .name = "pointwise_native", .fallback = OpClass::Pointwise,
               .default_ppp = std::nullopt, .matrix_unit = false, .streams = false,
               .plot_label = "1x1 conv, LibTorch's native GEMM (one thread)"},
};
inline constexpr std::size_t kOpClassCount = kOpClasses.size();

// What the table must hold, as checks over any list of rows, so that tests/ir/op_classes_test.cpp can
// show each one refusing a broken table; the static_asserts below apply them to kOpClasses.
namespace op_class_checks {
using Rows = std::span<const OpClassRow>;
// Indices, not pointers: GCC's constant evaluation refuses a pointer into a static array compared
// with null under -fsanitize=undefined (the ASan build), and these checks run at compile time there.
inline constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
constexpr std::size_t row_of(Rows rows, OpClass c) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].op_class == c) return i;
  return kNoRow;
}
// The classes a class's PPP is looked up through: the class, then its fallbacks in turn. Over
// rows.size() where the chain never ends (a cycle) or reaches a class without a row.
constexpr std::size_t chain_length(Rows rows, OpClass c) {
  std::size_t n = 1;
  for (std::size_t i = row_of(rows, c); i != kNoRow && rows[i].fallback; i = row_of(rows, *rows[i].fallback))
    if (++n > rows.size() || row_of(rows, *rows[i].fallback) == kNoRow) return rows.size() + 1;
  return n;
}
// A class's default PPP: its own, else the first of its fallbacks'.
constexpr std::optional<DefaultPpp> default_ppp(Rows rows, OpClass c) {
  if (chain_length(rows, c) > rows.size()) return std::nullopt;
  for (std::size_t i = row_of(rows, c); i != kNoRow; i = rows[i].fallback ? row_of(rows, *rows[i].fallback) : kNoRow)
    if (rows[i].default_ppp) return rows[i].default_ppp;
  return std::nullopt;
}
// One row per value, in enum order: the engine indexes per-class tables by the enum's value.
constexpr bool rows_in_enum_order(Rows rows) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (static_cast<std::size_t>(rows[i].op_class) != i) return false;
  return true;
}
// A name, unique (the .hw key and the reports' column), and a plot label per row.
constexpr bool names_unique_and_labelled(Rows rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].name.empty() || rows[i].plot_label.empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (rows[i].name == rows[j].name) return false;
  }
  return true;
}
// Every fallback chain ends, without a cycle, at classes the table has.
constexpr bool fallbacks_end(Rows rows) {
  for (const OpClassRow& row : rows)
    if (chain_length(rows, row.op_class) > rows.size()) return false;
  return true;
}
// Every class reaches a default PPP through its fallbacks, each a fraction in (0, 1].
constexpr bool defaults_reached(Rows rows) {
  for (const OpClassRow& row : rows) {
    const std::optional<DefaultPpp> d = default_ppp(rows, row.op_class);
    if (!d || !(d->compute > 0.0 && d->compute <= 1.0 && d->memory > 0.0 && d->memory <= 1.0)) return false;
  }
  return true;
}
}  // namespace op_class_checks

// A class missing its row shows as rows out of enum order; the last value's missing row, which does
// not, the test finds by asking the compiler which values the enum names.
static_assert(op_class_checks::rows_in_enum_order(kOpClasses), "kOpClasses: one row per OpClass value, in enum order");
static_assert(op_class_checks::names_unique_and_labelled(kOpClasses), "kOpClasses: a unique name and a plot label per row");
static_assert(op_class_checks::fallbacks_end(kOpClasses), "kOpClasses: every fallback chain ends, without a cycle");
static_assert(op_class_checks::defaults_reached(kOpClasses),
              "kOpClasses: every class reaches a default PPP in (0, 1] through its fallbacks");

// The row of a class (throws std::out_of_range for a value that names no class).
constexpr const OpClassRow& op_class_row(OpClass c) { return kOpClasses.at(static_cast<std::size_t>(c)); }

// The class whose PPP a class takes where a device gives it none (its row's fallback).
constexpr std::optional<OpClass> op_class_fallback(OpClass c) { return op_class_row(c).fallback; }

// A class's default PPP: its own, else the first of its fallbacks' (the checks above say there is one).
constexpr DefaultPpp op_class_default_ppp(OpClass c) {
  return op_class_checks::default_ppp(kOpClasses, c).value();
}

// The longest chain of classes a PPP is looked up through (the class, then its fallbacks): it sizes
// the engine's fixed lookup arrays (engine::ppp_rule).
inline constexpr std::size_t kLongestOpClassChain = [] {
  std::size_t longest = 0;
  for (const OpClassRow& row : kOpClasses)
    longest = std::max(longest, op_class_checks::chain_length(kOpClasses, row.op_class));
  return longest;
}();

std::string_view op_class_name(OpClass c);            // "matmul", "elementwise", ..., "depthwise"; "?" for no class
std::optional<OpClass> op_class_from_name(std::string_view name);
std::string op_class_names(std::string_view separator = ", ");   // every class, in enum order
const std::vector<OpClass>& all_op_classes();

}  // namespace ridge::ir
