// The GEMM kernel model (issue #32): the time of one GEMM-shaped kernel on a GPU, from the
// microarchitecture the device file describes (ir::Microarchitecture) and the tile shapes a library
// picks on that architecture. Every formula of the model is in gemm.cpp; this header says what it
// computes.
//
// For each candidate tile (CUTLASS's ThreadblockShape<M, N, K> and its pipeline depth, the shapes
// cuBLAS's kernel names carry) and each split of K:
//   tiles   = ceil(m / tile.m) * ceil(n / tile.n) * count * split
//   waves   = ceil(tiles / SMs)                         (a wave is one tile on every SM)
//   wave efficiency = tiles / (waves * SMs)             (the last wave's idle SMs)
//   iters   = ceil(ceil(k / split) / tile.k)            (main-loop steps of one tile)
//   fill    = stages + tile.m * tile.n * out_bytes / ((tile.m + tile.n) * tile.k * in_bytes)
//             (the prologue loads `stages` steps before the first multiply, and the epilogue stores
//             the tile: both in units of one main-loop step's traffic)
//   main-loop efficiency = iters / (iters + fill)       (never lower for a larger K)
//   compute = waves * 2 * tile.m * tile.n * tile.k * (iters + fill) / (SM peak * sustained)
//             Hopper's tensor cores at 16 and 8 bits (persistent, warp-specialised kernels: an SM walks its tiles and
//             loads the next one's stages while storing the last): (waves * iters + fill) steps, the
//             fill paid once per SM; main-loop efficiency = waves iters / (waves iters + fill)
//   L2      = tiles * (tile.m + tile.n) * tile.k * iters * in_bytes / L2 bandwidth
//   DRAM    = ((A + B) in_bytes + m n out_bytes) * count / (dram_efficiency * bandwidth)
//             (A and B as stored: m k and k n, or an implicit GEMM's input tensor; Gemm)
//             (+ split-K's fp32 partials, written and read back by the reduction)
//   time    = max(compute, L2, DRAM) + reduction + fixed
//             (fixed: each kernel's time beside its work, one figure fitted for every GPU; gemm.cpp)
// The candidate with the least time is taken, as a library's heuristic (or its autotuner) would.
// An unaligned tensor-core GEMM (Gemm::unaligned) with both output sides of a tile or more runs
// cuBLAS's alignment-1 fallback instead: one 128 x 128 x 32 tile, two stages, per-tile fill, its main
// loop at a fixed rate per SM and clock that its element-wise loads allow (gemm.cpp).
// `sustained` is the fraction of the SM's peak a tile's steady main loop reaches (issue, power and
// clock limits no figure in the datasheet gives): one figure per architecture family, fitted on the
// validation rows marked `fit` (validate/gemm_published.csv) and stated with them in gemm.cpp.
#pragma once

#include "lang/ir/device.hpp"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ridge::engine::kernels {

// One GEMM problem: C[m, n] = A[m, k] * B[k, n], `count` independent problems of that shape (a batched
// matmul's batch, a grouped convolution's groups).
// An implicit GEMM (a convolution) never builds its im2col operand: the overlapping windows of a k x k
// filter read one tensor k^2 times through shared memory and L2, but DRAM holds it once. `a_stored` and
// `b_stored` are the elements per problem an operand occupies in memory where that is fewer than its
// m k or k n (0: the operand is stored whole).
struct Gemm {
  double m = 0, n = 0, k = 0, count = 1;
  double a_stored = 0, b_stored = 0;
  // A row of an operand or of the output is not a whole number of 16-byte vectors (a dimension such as
  // GPT-2's vocabulary, 50,257): the tensor-core kernels' vector and TMA loads cannot be used
  // (alignment_one_fallback in gemm.cpp). Set by the op's cost from the dimensions that are rows.
  bool unaligned = false;
  // B holds 2:4-sparse weights (--sparsity 2:4): the matrix units skip the pruned half, twice the dense
  // rate (b_stored holds the kept values and their 2-bit indices).
  bool sparse = false;
  double flops() const { return 2.0 * m * n * k * count; }
  // Elements of A and B that DRAM holds, per problem.
  double operand_elements() const {
    const auto stored = [](double whole, double s) { return s > 0 && s < whole ? s : whole; };
    return stored(m * k, a_stored) + stored(k * n, b_stored);
  }
  friend bool operator==(const Gemm&, const Gemm&) = default;
};

// A thread-block tile: its output block (m x n), the K step of its main loop, and how many K steps its
// shared-memory pipeline holds.
struct Tile {
  int m = 0, n = 0, k = 0, stages = 0;
  friend bool operator==(const Tile&, const Tile&) = default;
};

// The GPU facts the model reads, resolved once per device and precision (gpu_facts()).
struct GpuFacts {
  std::string_view family;      // the device's arch.family: which tile set and sustained fraction
  double sms = 0;               // units (SMs)
  double sm_flops = 0;          // FLOP/s of one SM at the precision, on the units the op runs on
  bool matrix = false;          // tensor cores (else the vector lanes: SIMT tiles)
  double shared_memory = 0;     // B per SM; 0: not given, every tile's pipeline taken to fit
  double l2_bandwidth = 0;      // B/s; 0: the device gives none, and the L2 term is left out
  double dram_bandwidth = 0;    // B/s, the datasheet's
  double dram_efficiency = 0;   // the fraction of it a streaming kernel reaches
  double sustained = 0;         // the family's main-loop fraction of SM peak (above)
  double kernel_fixed_s = 0;    // every kernel's fixed time on the GPU beside its work (gemm.cpp)
  double in_bytes = 0;          // bytes per input element
  double out_bytes = 0;         // bytes per output element
  double l2_size = 0;           // B; 0: not given (the streaming model, streaming.hpp)
  double threads_per_unit = 0;  // threads resident per SM; 0: not given (the streaming model)
  double clock = 0;             // Hz, the SM clock (arch.clock)
  friend bool operator==(const GpuFacts&, const GpuFacts&) = default;
};

// The facts for GEMMs at `precision` on `device` (matrix units when `matrix_unit` and the device's
// arch gives a matrix rate for the precision), or nothing when the device describes no
// microarchitecture, is not a GPU, or gives no per-clock rate for the precision: the caller then uses
// the flat model.
std::optional<GpuFacts> gpu_facts(const ir::Device& device, ir::Precision precision, bool matrix_unit);

// What limits the chosen kernel.
enum class Limit { Compute, L2, Dram };
std::string_view limit_name(Limit l);   // "compute", "l2", "dram"

// The chosen kernel and why it takes the time it does.
struct GemmPlan {
  Tile tile;
  int split_k = 1;
  double tiles = 0;
  double waves = 0;
  double wave_efficiency = 0;
  double mainloop_efficiency = 0;
  double compute_s = 0, l2_s = 0, dram_s = 0, reduction_s = 0;
  double fixed_s = 0;            // the kernels' fixed time (launch on the GPU, first loads, drain)
  double seconds = 0;            // the kernel's time on the GPU (launch overhead not included)
  double fraction_of_peak = 0;   // the GEMM's FLOPs / (seconds * SMs * SM peak)
  Limit limit = Limit::Compute;
  bool alignment_one = false;    // ran as the alignment-1 fallback (Gemm::unaligned; gemm.cpp)
  double sm_flops = 0;           // FLOP/s of one SM the main loop ran at (the facts' or the fallback's)
  double sustained = 0;          // and the fraction of it sustained
  friend bool operator==(const GemmPlan&, const GemmPlan&) = default;
};

// The best candidate for `gemm`. A GEMM with a zero dimension takes no time.
GemmPlan plan_gemm(const Gemm& gemm, const GpuFacts& facts);
// Plans already made, by device facts and GEMM: a sweep meets the same GEMM on devices built of the same
// GPU (a DGX and its card) and at precisions with the same rates and widths (fp16 and bf16), and a
// search is most of what the kernel model costs a configuration. Device::plan() equals plan_gemm().
class PlanCache {
 public:
  class Device {
   public:
    Device(const GpuFacts& facts) : family_(facts.family), facts_(facts) { facts_.family = family_; }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    const GpuFacts& facts() const { return facts_; }
    const GemmPlan& plan(const Gemm& gemm);

   private:
    struct GemmHash {
      std::size_t operator()(const Gemm& g) const;
    };
    std::string family_;   // owns what facts_.family views: the cache may outlive the device file
    GpuFacts facts_;
    std::unordered_map<Gemm, GemmPlan, GemmHash> plans_;
  };
  // The plans on a device with these facts (looked up once per simulation, not per GEMM).
  Device& device(const GpuFacts& facts);

 private:
  std::deque<Device> devices_;   // a handful, searched in order; a deque keeps each where it is
};

// One candidate: `tile` with K split `split` ways (the formulas above; dimensions must be positive).
GemmPlan plan_tile(const Gemm& gemm, const GpuFacts& facts, const Tile& tile, int split = 1);

// The candidate tiles of an architecture family at an input width (matrix or SIMT), in the order the
// model tries them (exposed for tests and --explain).
std::vector<Tile> candidate_tiles(std::string_view family, bool matrix, double in_bytes);

}  // namespace ridge::engine::kernels
