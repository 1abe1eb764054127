#include "validate/cupti/records.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <unordered_map>

namespace ridge::validate::cupti {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool has_any(const std::string& s, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return s.find(n) != std::string::npos; });
}

}  // namespace

std::string_view family_name(KernelFamily f) {
  switch (f) {
    case KernelFamily::Gemm: return "gemm";
    case KernelFamily::Conv: return "conv";
    case KernelFamily::Elementwise: return "elementwise";
    case KernelFamily::Reduction: return "reduction";
    case KernelFamily::Copy: return "copy";
    case KernelFamily::Communication: return "communication";
    case KernelFamily::Other: return "other";
  }
  return "other";
}

KernelFamily classify(const ActivityRecord& r) {
  if (r.kind != ActivityKind::Kernel) return KernelFamily::Copy;
  const std::string n = lower(r.name);
  // Order matters: cuDNN names its implicit-GEMM convolutions "..._gemm_...", and NCCL's kernels
  // reduce; the more specific family is tested first.
  if (has_any(n, {"nccl"})) return KernelFamily::Communication;
  if (has_any(n, {"conv", "cudnn", "winograd", "fft2d", "fft_", "dgrad", "wgrad", "fprop", "implicit_gemm",
                  "precomputed_convolve", "scudnn", "xmma_fprop", "xmma_dgrad", "xmma_wgrad"}))
    return KernelFamily::Conv;
  if (has_any(n, {"gemm", "gemv", "sgemm", "hgemm", "cublas", "cutlass", "matmul", "dot_kernel", "ampere_", "volta_",
                  "turing_", "sm80_", "sm90_", "nvjet"}))
    return KernelFamily::Gemm;
  if (has_any(n, {"reduce", "norm", "softmax", "pool", "welford", "batch_norm", "layer_norm", "mean", "sum", "argmax",
                  "max_", "cub::"}))
    return KernelFamily::Reduction;
  if (has_any(n, {"copy", "memcpy", "memset", "cat_", "catarray", "transpose", "index", "gather", "scatter",
                  "fill"}))
    return KernelFamily::Copy;
  if (has_any(n, {"elementwise", "vectorized", "unrolled", "pointwise", "activation", "relu", "sigmoid", "silu",
                  "hardswish", "gelu", "tanh", "add", "mul", "dropout", "fused_"}))
    return KernelFamily::Elementwise;
  return KernelFamily::Other;
}

std::string conv_algorithm(std::string_view kernel_name) {
  const std::string n = lower(kernel_name);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kAlgorithms{{
      {"winograd", "winograd"},
      {"fft", "fft"},
      {"precomputed", "precomputed"},
      {"implicit_gemm", "implicit_gemm"},
      {"implicit_convolve", "implicit_gemm"},
      {"direct", "direct"},
      {"1x1", "1x1"},
  }};
  for (const auto& [needle, name] : kAlgorithms)
    if (n.find(needle) != std::string::npos) return std::string(name);
  if (n.find("gemm") != std::string::npos && n.find("conv") != std::string::npos) return "gemm";
  return {};
}

void accumulate(LayerActivity& a, const LayerActivity& b) {
  a.busy_s += b.busy_s;
  a.kernels += b.kernels;
  a.copies += b.copies;
  for (const auto& [f, s] : b.by_family) a.by_family[f] += s;
  for (const auto& [k, s] : b.by_kernel) a.by_kernel[k] += s;
}

JoinResult join(const std::vector<ActivityRecord>& records, const std::vector<ExternalCorrelation>& correlations,
                const std::vector<Window>& windows) {
  std::unordered_map<std::uint32_t, std::uint64_t> owner;
  for (const auto& c : correlations) owner.emplace(c.correlation_id, c.external_id);
  std::vector<Window> by_start = windows;
  std::sort(by_start.begin(), by_start.end(), [](const Window& a, const Window& b) { return a.start_ns < b.start_ns; });
  // The window wholly containing [start, end], if any: the last one to open at or before start.
  const auto window_of = [&](const ActivityRecord& r) -> const Window* {
    const auto after = std::upper_bound(by_start.begin(), by_start.end(), r.start_ns,
                                        [](std::uint64_t t, const Window& w) { return t < w.start_ns; });
    if (after == by_start.begin()) return nullptr;
    const Window& w = *std::prev(after);
    return std::max(r.start_ns, r.end_ns) <= w.end_ns ? &w : nullptr;
  };
  JoinResult result;
  for (const auto& r : records) {
    LayerActivity* into = &result.unattributed;
    if (const auto it = owner.find(r.correlation_id); it != owner.end()) {
      into = &result.layers[it->second];
    } else if (const Window* w = window_of(r)) {
      into = &result.layers[w->external_id];
      ++result.by_window;
    }
    // A record whose end precedes its start (CUPTI reports 0 for one it could not time) adds nothing.
    const double seconds = r.end_ns > r.start_ns ? static_cast<double>(r.end_ns - r.start_ns) * 1e-9 : 0.0;
    into->busy_s += seconds;
    if (r.kind == ActivityKind::Kernel) ++into->kernels;
    else ++into->copies;
    into->by_family[classify(r)] += seconds;
    into->by_kernel[r.name] += seconds;
  }
  return result;
}

}  // namespace ridge::validate::cupti
