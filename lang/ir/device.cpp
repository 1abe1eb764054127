#include "lang/ir/device.hpp"

#include <array>
#include <utility>

namespace ridge::ir {
namespace {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Precision, 12> kPrecisions{{{Precision::FP64, "fp64"}, {Precision::FP32, "fp32"},
                                                {Precision::TF32, "tf32"}, {Precision::FP16, "fp16"},
                                                {Precision::BF16, "bf16"}, {Precision::FP8, "fp8"},
                                                {Precision::INT8, "int8"}, {Precision::FP6, "fp6"},
                                                {Precision::FP4, "fp4"}, {Precision::MXFP8, "mxfp8"},
                                                {Precision::MXFP6, "mxfp6"}, {Precision::MXFP4, "mxfp4"}}};
constexpr NameTable<DeviceKind, 5> kKinds{{{DeviceKind::GPU, "gpu"}, {DeviceKind::CPU, "cpu"},
                                           {DeviceKind::TPU, "tpu"}, {DeviceKind::SoC, "soc"},
                                           {DeviceKind::Accelerator, "accelerator"}}};
constexpr NameTable<Pass, 3> kPasses{{{Pass::Forward, "forward"}, {Pass::Backward, "backward"}, {Pass::ForwardTrain, "forward_train"}}};

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> from_name(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return std::nullopt;
}

template <class E, std::size_t N>
std::vector<E> values_of(const NameTable<E, N>& table) {
  std::vector<E> v;
  for (const auto& [e, name] : table) v.push_back(e);
  return v;
}

}  // namespace

std::string_view precision_name(Precision p) { return name_of(kPrecisions, p); }
std::optional<Precision> precision_from_name(std::string_view n) { return from_name(kPrecisions, n); }
const std::vector<Precision>& all_precisions() {
  static const std::vector<Precision> all = values_of(kPrecisions);
  return all;
}
const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> all = values_of(kPasses);
  return all;
}
std::string precision_names(std::string_view separator) {
  std::string s;
  for (const auto& [p, name] : kPrecisions) s.append(s.empty() ? "" : separator).append(name);
  return s;
}
std::string_view device_kind_name(DeviceKind k) { return name_of(kKinds, k); }
std::optional<DeviceKind> device_kind_from_name(std::string_view n) { return from_name(kKinds, n); }
std::string_view pass_name(Pass p) { return name_of(kPasses, p); }
std::optional<Pass> pass_from_name(std::string_view n) { return from_name(kPasses, n); }

double bytes_per_element(Precision p) {
  constexpr double kScalePerElement = 1.0 / 32.0;   // one 8-bit scale per block of 32 (OCP MX v1.0)
  switch (p) {
    case Precision::FP64: return 8;
    case Precision::FP32: case Precision::TF32: return 4;
    case Precision::FP16: case Precision::BF16: return 2;
    case Precision::FP8: case Precision::INT8: return 1;
    case Precision::FP6: return 0.75;
    case Precision::FP4: return 0.5;
    case Precision::MXFP8: return 1 + kScalePerElement;
    case Precision::MXFP6: return 0.75 + kScalePerElement;
    case Precision::MXFP4: return 0.5 + kScalePerElement;
  }
  return 4;
}

Precision element_precision(Precision p) {
  switch (p) {
    case Precision::MXFP8: return Precision::FP8;
    case Precision::MXFP6: return Precision::FP6;
    case Precision::MXFP4: return Precision::FP4;
    default: return p;
  }
}

}  // namespace ridge::ir
