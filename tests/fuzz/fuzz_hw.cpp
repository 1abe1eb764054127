// libFuzzer target for the `.hw` front end: bytes -> parse + check -> simulate a fixed small
// network on the device in every precision -> render; and the same bytes as a runtime (`.rt`).
#include "tests/fuzz/fuzz_common.hpp"

#include <optional>

namespace {

const ridge::ir::Network& network() {
  static const ridge::ir::Network n = ridge::lang::parse_network(R"(network tiny(classes = 10) {
  input x: [3, 32, 32]
  x = x -> conv(16, 3, pad: 1) -> batchnorm -> relu -> maxpool(2)
  return x -> flatten -> linear(classes)
}
)", "tiny.net");
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The same language describes runtimes (runtimes/*.rt): a `runtime` block is checked by its keys.
  try {
    (void)lang::parse_runtime(text, "fuzz.rt");
  } catch (const lang::Error&) {
  }
  std::optional<ir::Device> dev;
  try {
    dev = lang::parse_device(text, "fuzz.hw");
  } catch (const lang::Error&) {
    return 0;
  }
  for (const ir::Precision p : {ir::Precision::FP64, ir::Precision::FP32, ir::Precision::TF32, ir::Precision::FP16,
                                ir::Precision::BF16, ir::Precision::INT8})
    fuzz::simulate_and_render(network(), *dev, 64, p);
  return 0;
}
