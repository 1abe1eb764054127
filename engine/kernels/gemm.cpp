#include "engine/kernels/gemm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ridge::engine::kernels {
namespace {

// The fraction of an SM's peak a large tile's steady main loop reaches, per architecture family and
// unit (tensor cores or SIMT lanes): instruction issue, power and clock limits that no datasheet figure
// gives. Fitted by validate/scripts/gemm_compare.py --fit on the rows of validate/gemm_published.csv
// marked `fit`, and on no other row: tensor cores on the best-shape matmuls of stas00/ml-engineering's
// "maximum achievable matmul FLOPS" table (A100 SXM and PCIe bf16; H100 SXM bf16 and fp8; H200 fp8), SIMT
// on the largest fp32 GEMM NeuSight measured on each GPU (A100 PCIe, H100 SXM, T4, V100 PCIe). The
// median over a family's fit rows is taken. A family with no fitted row takes kDefaultSustained, an
// assumption between the fitted tensor-core fractions (0.82, 0.89), used by Kepler, Maxwell and Pascal
// (SIMT) and by Volta and Turing tensor cores, which no fit row measures. A family's tensor-core
// fraction serves every precision its tensor cores run: no fit row is TF32 or int8, so those take the
// fraction fitted on bf16/fp16 (and fp8 on Hopper), an assumption the whole-network TF32 rows
// (predicted 33-62 % fast) put in doubt.
struct Sustained {
  std::string_view family;
  bool matrix;
  double fraction;
};
constexpr std::array<Sustained, 6> kSustained{{{"ampere", true, 0.888},
                                               {"hopper", true, 0.813},   // 0.820 before the persistent fill
                                               {"ampere", false, 0.957},
                                               {"hopper", false, 0.829},
                                               {"turing", false, 0.499},   // T4's 70 W cap: clocks fall under load
                                               {"volta", false, 0.978}}};
constexpr double kDefaultSustained = 0.85;

// A kernel's fixed time on the GPU beside its work: the grid's launch and scheduling, the first loads'
// DRAM latency before the pipeline fills, the last wave's drain. A small matrix-vector product shows
// it (a 16 MB weight read takes 9 us on an H100 against 5.8 us at stream bandwidth). Fitted
// (validate/scripts/gemm_compare.py --fit) on the `fit` rows that are DRAM-bound: Vidur's one-token
// Llama-2-7B projections on the A100 and the H100 (8 rows), the median of measured less modelled time,
// with each device's DRAM rate as its .hw gives it (the A100 PCIe's measured.bandwidth since the streaming
// validation set; 5.12 us before it).
constexpr double kKernelFixedSeconds = 5.43e-6;

// The fraction of the datasheet's DRAM bandwidth a large streaming kernel reaches where the device
// gives no measured bandwidth: H100 SXM copies reach 2,903 of 3,350 GB/s (github.com/aigatech/
// vpbenchmarking), the figure engine/timing.hpp's memory default also rests on.
constexpr double kDramEfficiency = 0.87;

// cuBLAS's alignment-1 fallback: a tensor-core GEMM whose rows are not whole 16-byte vectors cannot use
// vector loads (nor Hopper's TMA), and cuBLAS runs a Turing-era kernel that loads an element at a time
// (cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1 on the H100 and the H200, by its name in
// calibrate's CUPTI records). Its main loop is bound by those loads, not by the tensor cores: the same
// rate whatever the precision (bf16, fp16 and tf32 within 20 % on the H100). The FLOP per SM per clock it
// sustains was fitted (validate/scripts/measured_compare.py --fit) on the H200's four GPT-2 `lm_head`
// passes in validate/measured/h200-sxm-2026-11-26/layers/ (vocabulary 50,257; bf16 and tf32, forward
// and backward; the median of what each implies), and on no H100 row. Other families are assumed to
// run the same kernel at the same rate per SM and clock (no row measures them).
constexpr double kAlignOneFlopsPerClock = 575.0;
// A product with an output side under one tile (a matrix-vector product) runs cuBLAS's GEMV-like
// kernels, which read element-wise anyway and are DRAM-bound: it keeps the regular model.
constexpr double kAlignOneMinSide = 64.0;

// Bytes of K one main-loop step of a tensor-core tile loads per row: 32 fp16 elements on Volta,
// Turing and Ampere (CUTLASS's ThreadblockShape<..., 32> for 16-bit sm70-sm80 kernels, 16 for tf32, 64
// for int8), 64 on Hopper (its warpgroup kernels' 128x256x64 for 16-bit).
double k_step_bytes(std::string_view family) { return family == "hopper" ? 128.0 : 64.0; }

struct Shape {
  int m, n, stages;
};

// CUTLASS's default tensor-op tile shapes per architecture (its profiler's kernel list, which
// cuBLAS's kernel names such as ampere_h16816gemm_256x128_ldg8_stages_64x3 and
// sm90_xmma_gemm_..._tilesize128x256x64 mirror).
constexpr std::array<Shape, 8> kAmpere{{{256, 128, 3}, {128, 256, 3}, {256, 64, 4}, {64, 256, 4},
                                        {128, 128, 4}, {128, 64, 6}, {64, 128, 6}, {64, 64, 10}}};
constexpr std::array<Shape, 6> kHopper{{{128, 256, 4}, {256, 128, 4}, {128, 128, 5}, {128, 64, 6}, {64, 128, 6}, {64, 64, 8}}};
constexpr std::array<Shape, 6> kVolta{{{256, 128, 2}, {128, 256, 2}, {128, 128, 2}, {128, 64, 2}, {64, 128, 2}, {64, 64, 2}}};
// SIMT (CUDA-core) tiles: CUTLASS's sgemm shapes, K step 8.
constexpr std::array<Shape, 5> kSimt{{{128, 128, 2}, {128, 64, 2}, {64, 128, 2}, {64, 64, 2}, {32, 64, 2}}};
// The alignment-1 fallback's one tile (its kernel name's 128x128, K step 32, two stages).
constexpr std::array<Shape, 1> kAlignOne{{{128, 128, 2}}};

// The K splits tried when the unsplit GEMM has fewer tiles than SMs (as cuBLAS's split-K kernels).
constexpr std::array<int, 8> kSplits{{1, 2, 3, 4, 6, 8, 12, 16}};

double sustained_fraction(std::string_view family, bool matrix) {
  for (const auto& s : kSustained)
    if (s.family == family && s.matrix == matrix) return s.fraction;
  return kDefaultSustained;
}

// The shapes a family tries, and the K step of its tiles at an input width.
struct Shapes {
  const Shape* begin;
  const Shape* end;
  int k;
};
Shapes shapes_of(std::string_view family, bool matrix, double in_bytes) {
  if (!matrix) return {kSimt.data(), kSimt.data() + kSimt.size(), 8};
  const int k = std::max(8, static_cast<int>(k_step_bytes(family) / in_bytes));
  if (family == "hopper") return {kHopper.data(), kHopper.data() + kHopper.size(), k};
  if (family == "ampere") return {kAmpere.data(), kAmpere.data() + kAmpere.size(), k};
  return {kVolta.data(), kVolta.data() + kVolta.size(), k};
}

double figure_or(const std::optional<ir::Figure>& f, double fallback) { return f && f->value > 0 ? f->value : fallback; }

}  // namespace

namespace {

// cuBLAS 13 on an H200 ran persistent cooperative kernels for bf16 (nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB)
// and classic per-tile ones for tf32 (sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32), by
// their names in calibrate's CUPTI records (docs/results/2026-11-26-h200-measured.md).
bool persistent(const GpuFacts& f) { return f.matrix && f.family == "hopper" && f.in_bytes <= 2; }

// The kernel one GEMM runs: the tiles it tries and its main loop's rate.
struct MainLoop {
  Shapes shapes;
  double sm_flops;     // FLOP/s of one SM
  double sustained;    // the fraction of it a steady main loop reaches
  bool persistent;     // the fill paid once per SM (persistent())
  bool alignment_one;  // the alignment-1 fallback (kAlignOneFlopsPerClock)
};

MainLoop main_loop(const Gemm& g, const GpuFacts& f) {
  if (f.matrix && g.unaligned && std::min(g.m, g.n) >= kAlignOneMinSide && f.clock > 0) {
    const double rate = kAlignOneFlopsPerClock * f.clock;
    if (rate < f.sm_flops * f.sustained)
      return {{kAlignOne.data(), kAlignOne.data() + kAlignOne.size(), 32}, rate, 1.0, false, true};
  }
  // 2:4-sparse weights: the sparse tensor-core instructions do a dense step's work in half the time.
  const double rate = g.sparse && f.matrix ? 2.0 * f.sm_flops : f.sm_flops;
  return {shapes_of(f.family, f.matrix, f.in_bytes), rate, f.sustained, persistent(f), false};
}

// What every candidate of one GEMM on one device shares, worked out once per search: the rates as
// reciprocals (the search is a sweep's inner loop) and the unsplit DRAM traffic.
struct Shared {
  MainLoop loop;
  double per_compute;   // s per FLOP on one SM at the sustained fraction
  double per_l2;        // s per B through L2 (0: no L2 term)
  double per_dram;      // s per B from DRAM at the achieved rate
  double operands;      // B of A and B
  double output;        // B of C
  Shared(const Gemm& g, const GpuFacts& f)
      : loop(main_loop(g, f)),
        per_compute(1.0 / (loop.sm_flops * loop.sustained)),
        per_l2(f.l2_bandwidth > 0 ? 1.0 / f.l2_bandwidth : 0.0),
        per_dram(1.0 / (f.dram_efficiency * f.dram_bandwidth)),
        operands(g.operand_elements() * f.in_bytes * g.count),
        output(g.m * g.n * f.out_bytes * g.count) {}
};

// The model's terms for one candidate (the formulas of gemm.hpp, in this one place).
struct Terms {
  double tiles, waves, iters, fill, compute_s, l2_s, dram_s, reduction_s, fixed_s;
  double seconds() const { return std::max({compute_s, l2_s, dram_s}) + reduction_s + fixed_s; }
};

// Tile sides and K steps are powers of two, so x * (1 / side) is x / side exactly (a sweep's inner
// loop saves the divisions).
double over(double x, int power_of_two) { return x * (1.0 / power_of_two); }

// A candidate's terms in two parts that the search works out once each: what depends on the tile
// alone, and what depends on the split of K alone.
struct TileTerms {
  double tiles;   // output tiles of the unsplit GEMM
  double fill;    // main-loop steps outside the steady loop: the stages, and the epilogue's store
  double flops;   // FLOPs of one main-loop step of one tile
};
TileTerms tile_terms(const Gemm& g, const GpuFacts& f, const Tile& t) {
  return {std::ceil(over(g.m, t.m)) * std::ceil(over(g.n, t.n)) * g.count,
          t.stages + (static_cast<double>(t.m) * t.n * f.out_bytes) / (static_cast<double>(t.m + t.n) * t.k * f.in_bytes),
          2.0 * t.m * t.n * t.k};
}
struct SplitTerms {
  int split;
  double k;                                // K of one slice
  double dram_s, reduction_s, fixed_s;
};
SplitTerms split_terms(const Gemm& g, const GpuFacts& f, const Shared& s, int split) {
  const double partials = split > 1 ? split * g.m * g.n * 4.0 * g.count : 0.0;   // fp32 partial sums
  return {split, split == 1 ? g.k : std::ceil(g.k / split), (s.operands + (split > 1 ? partials : s.output)) * s.per_dram,
          split > 1 ? (partials + s.output) * s.per_dram : 0.0,
          (split > 1 ? 2 : 1) * f.kernel_fixed_s};   // split-K's reduction is a kernel of its own
}

Terms terms(const GpuFacts& f, const Shared& s, const Tile& t, const TileTerms& tt, const SplitTerms& st) {
  Terms r;
  r.tiles = tt.tiles * st.split;
  r.waves = std::ceil(r.tiles / f.sms);
  r.iters = std::ceil(over(st.k, t.k));
  r.fill = tt.fill;
  // Hopper's 16- and 8-bit tensor-core GEMMs are persistent and warp-specialised (CUTLASS 3's sm90 TMA
  // kernels, cuBLAS's nvjet_sm90_*): an SM keeps its block and walks its tiles, the producer warps load the next
  // tile's first stages while the consumers store the last one, so an SM pays the fill once, not once
  // per tile. Earlier architectures launch a block per tile, each filling its pipeline and storing its
  // output in turn.
  const double steps = s.loop.persistent ? r.waves * r.iters + r.fill : r.waves * (r.iters + r.fill);
  r.compute_s = steps * tt.flops * s.per_compute;
  r.l2_s = r.tiles * static_cast<double>(t.m + t.n) * t.k * r.iters * f.in_bytes * s.per_l2;
  r.dram_s = st.dram_s;
  r.reduction_s = st.reduction_s;
  r.fixed_s = st.fixed_s;
  return r;
}

GemmPlan plan_from(const Gemm& g, const GpuFacts& f, const Shared& s, const Tile& t, int split, const Terms& r) {
  GemmPlan p;
  p.alignment_one = s.loop.alignment_one;
  p.sm_flops = s.loop.sm_flops;
  p.sustained = s.loop.sustained;
  p.tile = t;
  p.split_k = split;
  p.tiles = r.tiles;
  p.waves = r.waves;
  p.wave_efficiency = r.tiles / (r.waves * f.sms);
  p.mainloop_efficiency = s.loop.persistent ? r.waves * r.iters / (r.waves * r.iters + r.fill) : r.iters / (r.iters + r.fill);
  p.compute_s = r.compute_s;
  p.l2_s = r.l2_s;
  p.dram_s = r.dram_s;
  p.reduction_s = r.reduction_s;
  p.fixed_s = r.fixed_s;
  p.seconds = r.seconds();
  p.limit = p.compute_s >= p.l2_s && p.compute_s >= p.dram_s ? Limit::Compute
            : p.l2_s >= p.dram_s                              ? Limit::L2
                                                              : Limit::Dram;
  p.fraction_of_peak = p.seconds > 0 ? g.flops() / (p.seconds * f.sms * f.sm_flops) : 0.0;
  return p;
}

}  // namespace

GemmPlan plan_tile(const Gemm& g, const GpuFacts& f, const Tile& t, int split) {
  const Shared shared(g, f);
  return plan_from(g, f, shared, t, split, terms(f, shared, t, tile_terms(g, f, t), split_terms(g, f, shared, split)));
}

std::string_view limit_name(Limit l) {
  switch (l) {
    case Limit::Compute: return "compute";
    case Limit::L2: return "l2";
    case Limit::Dram: return "dram";
  }
  return "compute";
}

std::vector<Tile> candidate_tiles(std::string_view family, bool matrix, double in_bytes) {
  std::vector<Tile> out;
  const Shapes shapes = shapes_of(family, matrix, in_bytes);
  for (const Shape* s = shapes.begin; s != shapes.end; ++s) out.push_back(Tile{s->m, s->n, shapes.k, s->stages});
  return out;
}

std::optional<GpuFacts> gpu_facts(const ir::Device& device, ir::Precision precision, bool matrix_unit) {
  if (!device.arch || device.kind != ir::DeviceKind::GPU) return std::nullopt;
  const ir::Microarchitecture& a = *device.arch;
  if (!(a.units.value >= 1) || !(a.clock.value > 0)) return std::nullopt;
  GpuFacts f;
  f.family = a.family;
  f.sms = a.units.value;
  const auto rate = [&](const std::map<ir::Precision, ir::Figure>& table, ir::Precision p) -> double {
    const auto it = table.find(p);
    return it == table.end() ? 0.0 : it->second.value;
  };
  if (matrix_unit && rate(a.matrix_per_clock, precision) > 0) {
    f.matrix = true;
    f.sm_flops = rate(a.matrix_per_clock, precision) * a.matrix_clock_hz();
  } else if (rate(a.vector_per_clock, precision) > 0) {
    f.sm_flops = rate(a.vector_per_clock, precision) * a.clock.value;
  } else {
    return std::nullopt;
  }
  f.in_bytes = ir::bytes_per_element(precision);
  f.out_bytes = f.in_bytes;
  f.l2_bandwidth = figure_or(a.l2_bandwidth, 0.0);
  f.dram_bandwidth = figure_or(device.memory_bandwidth, 0.0);
  if (!(f.dram_bandwidth > 0)) return std::nullopt;
  f.dram_efficiency = device.measured_bandwidth && device.measured_bandwidth->value > 0
                          ? std::min(1.0, device.measured_bandwidth->value / f.dram_bandwidth)
                          : kDramEfficiency;
  f.sustained = sustained_fraction(f.family, f.matrix);
  f.kernel_fixed_s = kKernelFixedSeconds;
  f.shared_memory = figure_or(a.shared_memory, 0.0);
  f.l2_size = figure_or(device.l2_size, 0.0);
  f.threads_per_unit = figure_or(a.threads, 0.0);
  f.clock = a.clock.value;
  return f;
}

namespace {

// The best candidate: every tile that fits and every K split worth trying, each timed by plan_tile's
// formulas. The search keeps only the time; the winner's whole plan is made once at the end.
GemmPlan search(const Gemm& g, const GpuFacts& f) {
  const Shared shared(g, f);
  const Shapes& shapes = shared.loop.shapes;
  Tile best_tile{};
  int best_split = 1;
  Terms best{};
  bool have = false;
  // No candidate beats every SM computing at the sustained rate with no idle lane, nor the unsplit
  // DRAM traffic (a split only adds partial sums), each kernel paying its fixed time. A candidate that
  // reaches this bound ends the search: a later one could at best tie, and a tie keeps the earlier.
  const double bound = std::max(g.flops() * shared.per_compute / f.sms, (shared.operands + shared.output) * shared.per_dram) +
                       f.kernel_fixed_s;
  // Each split's terms, worked out the first time a tile tries it.
  std::array<SplitTerms, kSplits.size()> splits;
  std::size_t known = 0;
  const auto split = [&](std::size_t i) -> const SplitTerms& {
    for (; known <= i; ++known) splits[known] = split_terms(g, f, shared, kSplits[known]);
    return splits[i];
  };
  double best_s = 0.0;
  for (const Shape* s = shapes.begin; s != shapes.end && !(have && best_s <= bound); ++s) {
    const Tile t{s->m, s->n, shapes.k, s->stages};
    // A tile whose pipeline does not fit the SM's shared memory is no candidate there.
    if (f.shared_memory > 0 && static_cast<double>(t.stages) * (t.m + t.n) * t.k * f.in_bytes > f.shared_memory) continue;
    const TileTerms tile = tile_terms(g, f, t);
    for (std::size_t i = 0; i < kSplits.size(); ++i) {
      const Terms r = terms(f, shared, t, tile, split(i));
      const double seconds = r.seconds();
      if (!have || seconds < best_s) best = r, best_s = seconds, best_tile = t, best_split = kSplits[i], have = true;
      // Split further only while the tiles leave SMs idle and the next split keeps two K steps a slice.
      if (r.tiles >= f.sms || i + 1 == kSplits.size() || split(i + 1).k < 2.0 * t.k) break;
    }
  }
  return have ? plan_from(g, f, shared, best_tile, best_split, best) : GemmPlan{};
}

}  // namespace

GemmPlan plan_gemm(const Gemm& g, const GpuFacts& f) {
  if (!(g.m > 0 && g.n > 0 && g.k > 0 && g.count > 0)) return {};
  return search(g, f);
}

std::size_t PlanCache::Device::GemmHash::operator()(const Gemm& g) const {
  std::uint64_t h = 14695981039346656037u;   // FNV-1a over the dimensions' bit patterns
  for (const double x : {g.m, g.n, g.k, g.count, g.a_stored, g.b_stored, g.unaligned ? 1.0 : 0.0, g.sparse ? 1.0 : 0.0})
    h = (h ^ std::bit_cast<std::uint64_t>(x)) * 1099511628211u;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

const GemmPlan& PlanCache::Device::plan(const Gemm& gemm) {
  const auto [it, added] = plans_.try_emplace(gemm);
  if (added) it->second = plan_gemm(gemm, facts_);
  return it->second;
}

PlanCache::Device& PlanCache::device(const GpuFacts& facts) {
  for (Device& d : devices_)
    if (d.facts() == facts) return d;
  return devices_.emplace_back(facts);
}

}  // namespace ridge::engine::kernels
