// What CUPTI's activity API hands back, reduced to plain records, and the logic that turns them into
// per-layer GPU time. Kept free of CUDA headers so it is unit-tested on synthetic records on machines
// without a GPU; cupti_tracer.cpp only translates CUPTI's structs into these.
//
// The join (DESIGN.md "CUPTI"): each layer's ops run between a push and a pop of an external
// correlation id (the layer id). CUPTI then emits, for every runtime/driver API call made inside, an
// EXTERNAL_CORRELATION record {external id, correlation id}; the kernel, memcpy and memset records
// carry the same correlation id. So: correlation id -> external id -> layer.
//
// That join sees only work launched on the thread that pushed the id: CUPTI keeps the external id
// stack per CPU thread, and LibTorch runs a CUDA backward on its autograd engine's device thread,
// never on the caller's. So each push/pop also records its time window on CUPTI's clock, and a
// record that no correlation claims is attributed to the window it ran in. The measurement waits
// for the device before each push and before each pop, so windows never overlap and a record lies
// inside the window of the run that launched it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::validate::cupti {

enum class ActivityKind { Kernel, Memcpy, Memset };

struct ActivityRecord {
  ActivityKind kind = ActivityKind::Kernel;
  std::string name;               // kernel name (demangled where CUPTI gives it), "memcpy HtoD", "memset"
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t bytes = 0;        // memcpy/memset only
};

struct ExternalCorrelation {
  std::uint64_t external_id = 0;
  std::uint32_t correlation_id = 0;
};

// One run between a push and a pop: its external id and its span on CUPTI's clock (the clock of the
// records' timestamps).
struct Window {
  std::uint64_t external_id = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// Families the report breaks GPU time down by.
enum class KernelFamily { Gemm, Conv, Elementwise, Reduction, Copy, Communication, Other };
std::string_view family_name(KernelFamily f);

// The family of a record, from its kind and (for kernels) its name: memcpy/memset are Copy; NCCL
// kernels Communication; cuDNN/cutlass convolution kernels Conv; cuBLAS/cutlass GEMMs Gemm; ATen's
// reduce/norm/softmax/pool kernels Reduction; ATen's elementwise/vectorized kernels Elementwise.
KernelFamily classify(const ActivityRecord& record);

// For convolution kernels, the algorithm the name reveals ("implicit_gemm", "winograd", "fft",
// "precomputed", "direct"); empty when it says none.
std::string conv_algorithm(std::string_view kernel_name);

struct LayerActivity {
  double busy_s = 0.0;                               // sum of record durations
  int kernels = 0;                                   // kernel records (memcpy/memset not counted)
  int copies = 0;                                    // memcpy and memset records
  std::map<KernelFamily, double> by_family;          // seconds per family
  std::map<std::string, double> by_kernel;           // seconds per kernel name
};

struct JoinResult {
  std::map<std::uint64_t, LayerActivity> layers;     // by external id
  LayerActivity unattributed;                        // records with no external correlation and no window
  int by_window = 0;                                 // records attributed by their window alone
};

// Joins activity records to external ids on correlation id, else (for work launched on another
// thread) on the window that holds the record, and sums them per id.
JoinResult join(const std::vector<ActivityRecord>& records, const std::vector<ExternalCorrelation>& correlations,
                const std::vector<Window>& windows = {});

// Adds b into a (for summing repeats or layers).
void accumulate(LayerActivity& a, const LayerActivity& b);

}  // namespace ridge::validate::cupti
