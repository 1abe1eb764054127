// The device IR: a set of typed figures, each with its source. Plain data, produced from a `.hw`
// file (or from calibrate), read by the engine. Optional figures stay optional: a device without
// tensor cores has no matrix peak for that precision, and the engine falls back explicitly.
#pragma once

#include "lang/ir/op_classes.hpp"   // OpClass and its table

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::ir {

// FP6 and FP4: the OCP microscaling element types (E2M3/E3M2, E2M1) without scales; MXFP8, MXFP6 and
// MXFP4: the OCP MX formats, blocks of 32 elements sharing one 8-bit scale (OCP Microscaling Formats
// (MX) v1.0, 2023), which run at their element type's peak unless a device gives one of their own.
enum class Precision { FP64, FP32, TF32, FP16, BF16, FP8, INT8, FP6, FP4, MXFP8, MXFP6, MXFP4 };
enum class DeviceKind { GPU, CPU, TPU, SoC, Accelerator };

// ForwardTrain: the training-mode forward. Most ops run the same kernel as at inference, but batch norm
// computes its batch statistics, several times its inference time (issue #16, docs/calibration.md), so
// a device may give it a PPP of its own; without one it takes the forward's.
enum class Pass { Forward, Backward, ForwardTrain };

std::string_view precision_name(Precision p);        // "fp32"
std::optional<Precision> precision_from_name(std::string_view name);
// Every precision, widest first, and their names joined by `separator` ("fp64, fp32, ..."), for loops
// and messages: the one list, so adding a precision touches this file's table only.
const std::vector<Precision>& all_precisions();
std::string precision_names(std::string_view separator = ", ");
// fp64 8, fp32/tf32 4, fp16/bf16 2, fp8/int8 1, fp6 0.75, fp4 0.5; an MX format its element's and a
// 32nd of a byte (its block's scale): mxfp8 1.03125, mxfp6 0.78125, mxfp4 0.53125.
double bytes_per_element(Precision p);
// The precision whose peak an MX format runs at where a device gives none of its own (mxfp4: fp4);
// every other precision is its own.
Precision element_precision(Precision p);
std::string_view device_kind_name(DeviceKind k);      // "gpu"
std::optional<DeviceKind> device_kind_from_name(std::string_view name);
const std::vector<Pass>& all_passes();
std::string_view pass_name(Pass p);                   // "forward", "backward", "forward_train"
std::optional<Pass> pass_from_name(std::string_view name);

// A figure in SI base units (FLOP/s, B/s, B, s, or a plain fraction for PPP) with where it comes from.
struct Figure {
  double value = 0.0;
  std::string source;
  friend bool operator==(const Figure&, const Figure&) = default;
};

struct Link {
  Figure bandwidth;                 // B/s, one direction
  std::optional<Figure> latency;    // s, per message
  // The fraction of `bandwidth` a large collective reaches (nccl-tests' bus bandwidth over the
  // datasheet figure); absent: the engine uses the datasheet figure and says so.
  std::optional<Figure> efficiency;
  friend bool operator==(const Link&, const Link&) = default;
};

// A PPP that changes with the size of the op (issue #16; Calculon's efficiency tables, Isaev et al.,
// SC'23): a 3x3 convolution on a 56x56 map and a squeeze-excite 1x1 convolution on a 1x1 map do not
// reach the same fraction of peak. Points of (size, fraction), sizes strictly increasing: FLOPs of the
// pass for a compute PPP, its bytes for a memory PPP. engine/timing.cpp says how it is read between
// and beyond the points.
struct SizeCurve {
  struct Point {
    double size = 0.0;
    double fraction = 0.0;
    friend bool operator==(const Point&, const Point&) = default;
  };
  std::vector<Point> points;
  std::string source;
  friend bool operator==(const SizeCurve&, const SizeCurve&) = default;
};

// PPP for one op class and pass: the fraction of peak compute and of peak bandwidth reached, each
// either one figure for every size or a curve over size (a `.hw` key gives one or the other).
struct Efficiency {
  std::optional<Figure> compute;
  std::optional<Figure> memory;
  std::optional<SizeCurve> compute_curve = std::nullopt;   // over the pass's FLOPs
  std::optional<SizeCurve> memory_curve = std::nullopt;    // over the pass's bytes
  friend bool operator==(const Efficiency&, const Efficiency&) = default;
};

// The microarchitecture the peaks come from (issue #32): what a kernel model needs to say how much of
// a peak an op reaches. Per unit (a GPU's SM, a CPU's core, a TPU's TensorCore) and per clock, so that
// units x per-clock work x clock multiplies out to the datasheet's peak (a catalogue test checks it).
// Everything but the family, the unit count and the clock is optional: a figure a device's vendor does
// not publish stays absent, and the kernel model says what it did without it.
struct Microarchitecture {
  std::string family;                              // "volta", "turing", "ampere", "hopper", ...: the library's tile set
  Figure units;                                    // SMs (GPU), cores (CPU), TensorCores (TPU)
  Figure clock;                                    // Hz the vector peaks assume
  std::optional<Figure> matrix_clock;              // Hz the matrix peaks assume; absent: `clock`
  std::map<Precision, Figure> vector_per_clock;    // FLOP per clock per unit on the general-purpose lanes
  std::map<Precision, Figure> matrix_per_clock;    // FLOP per clock per unit on the matrix units, dense
  std::optional<Figure> shared_memory;             // B per unit a thread block may use (GPU)
  std::optional<Figure> registers;                 // B of register file per unit (GPU)
  std::optional<Figure> threads;                   // threads resident at once per unit (GPU: the SM's maximum)
  std::optional<Figure> l2_bandwidth;              // B/s, all of the L2's slices together
  double matrix_clock_hz() const { return (matrix_clock ? *matrix_clock : clock).value; }
  friend bool operator==(const Microarchitecture&, const Microarchitecture&) = default;
};

struct Device {
  std::string id;                   // file stem, e.g. "a100-sxm4-40gb"
  std::string name;                 // "NVIDIA A100-SXM4-40GB"
  DeviceKind kind = DeviceKind::GPU;
  std::map<Precision, Figure> vector_peak;   // FLOP/s on the general-purpose units (CUDA cores, SIMD)
  std::map<Precision, Figure> matrix_peak;   // FLOP/s on matrix units (tensor cores, MXU, AMX), dense
  std::optional<Figure> memory_size;         // B
  std::optional<Figure> memory_bandwidth;    // B/s
  std::optional<Figure> l2_size;             // B
  std::optional<Microarchitecture> arch;     // `arch.*` keys; absent: the flat PALEO model only
  std::optional<Figure> launch_overhead;     // s per kernel
  std::optional<Figure> price;               // USD per hour to rent one device (of a system: each of its devices)
  // `sparsity = "2:4"`: the matrix units run weights pruned to 2 of every 4 values at twice their dense
  // rate (NVIDIA's Sparse Tensor Cores since Ampere, AMD's CDNA 3); its value is the source. Only with
  // --sparsity 2:4 (Options::sparsity); the peaks stay dense.
  std::optional<std::string> sparsity_2_4;
  std::map<std::string, Link> links;         // "pcie", "nvlink", "ethernet", "infiniband", ...
  // Calibrated or default PPP. Key pass absent = applies to both passes.
  std::map<std::pair<OpClass, std::optional<Pass>>, Efficiency> ppp;
  // Measured attainable ceilings (empirical roofline), beside the datasheet figures.
  std::map<Precision, Figure> measured_peak;
  std::optional<Figure> measured_bandwidth;
  // The threads a CPU's measured figures and PPP hold for (LibTorch's intra-op threads when calibrate
  // measured them): which kernel LibTorch runs can turn on it (engine/cpu_dispatch.hpp). Absent: as
  // many as the device has.
  std::optional<Figure> measured_threads;
  // A system of several identical devices and the link between them ("nvlink").
  int count = 1;
  std::string interconnect;
  // A cluster: nodes of `node_size` devices joined inside by `node_interconnect` (nvlink), the nodes
  // by `interconnect` (infiniband). node_size 0: the whole system is one node on `interconnect`.
  int node_size = 0;
  std::string node_interconnect;
  // `system.torus = "4x4x4"`: the devices on `interconnect` form a torus of these dimensions (a TPU
  // slice's 3-D ICI torus, wrapped at every dimension), so collectives run a ring per dimension, not
  // one ring through all of them (engine/parallel/collectives.hpp). Empty: a switched fabric or ring.
  std::vector<int> torus;
  std::string torus_source;
  // Per training step, beside the simulated kernels: host work, launches, optimizer bookkeeping.
  std::optional<Figure> step_overhead;   // s
  // Fresh memory (issue #16). An allocator that hands large blocks back to the operating system
  // (glibc's malloc under PyTorch's CPU allocator maps every block above its mmap threshold afresh)
  // makes each pass that writes such a block fault in new pages, which the kernel zeroes first.
  // `first_touch` is the rate at which fresh pages are written beyond the cost of writing warm ones
  // (B/s), `mmap_threshold` the block size above which memory is fresh every time (B). Both or
  // neither: a device whose allocator keeps its memory (the CUDA caching allocator) gives neither.
  std::optional<Figure> first_touch;      // B/s
  std::optional<Figure> mmap_threshold;   // B
  std::vector<std::string> provenance;       // free-form lines: calibration date, library versions...
  friend bool operator==(const Device&, const Device&) = default;
};

}  // namespace ridge::ir
