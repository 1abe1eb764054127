// libFuzzer target for the `.net` front end: bytes -> parse + elaborate -> simulate on a fixed
// device at a few batches and precisions -> render.
#include "tests/fuzz/fuzz_common.hpp"
#include "tests/support/fixed_device.hpp"

#include <optional>

namespace {

// A small fixed device with every precision, so the network is what varies.
const ridge::ir::Device& device() {
  static const ridge::ir::Device d = ridge::lang::parse_device(ridge::testing::kFixedDeviceHw, "fuzz.hw");
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<ir::Network> net;
  try {
    net = lang::parse_network(text, "fuzz.net");
  } catch (const lang::Error&) {
    return 0;  // a diagnostic: the right answer for most inputs
  }
  fuzz::simulate_and_render(*net, device(), 1, ir::Precision::FP32);
  fuzz::simulate_and_render(*net, device(), 256, ir::Precision::FP16);
  fuzz::simulate_and_render(*net, device(), engine::kMaxBatch, ir::Precision::INT8);
  return 0;
}
