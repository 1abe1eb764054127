// libFuzzer target for the ONNX front end: bytes -> protobuf -> import (free unknown ops on every
// other input) -> simulate and render -> the .net text it writes, which must elaborate to the same
// layers (a mismatch aborts, so the fuzzer keeps the input).
#include "tests/fuzz/fuzz_common.hpp"
#include "tests/support/fixed_device.hpp"

#include <optional>

namespace {

const ridge::ir::Device& device() {
  static const ridge::ir::Device d = ridge::lang::parse_device(ridge::testing::kFixedDeviceHw, "fuzz.hw");
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  lang::OnnxOptions options;
  options.dims = {{"seq_len", 16}, {"batch", 2}, {"N", 3}};
  options.allow_unknown = size % 2 == 1;
  // Initializers named as buffers (ridge.from_torch's, Swin V2's coordinates) on every third input.
  if (size % 3 == 0) options.buffers = {"features.1.0.attn.relative_coords_table", "coords"};
  std::optional<ir::Network> net;
  // A binding that names no axis of the input is refused: drop it and import again, so that inputs
  // with other axis names still reach the importer's depths.
  for (int attempt = 0; attempt <= 3 && !net; ++attempt) {
    try {
      net = lang::parse_onnx(bytes, "fuzz.onnx", options).network;
    } catch (const lang::Error& e) {
      const std::string what = e.what();
      const auto end = what.find("' binds no axis");
      const auto start = end == std::string::npos ? end : what.rfind("'", end - 1);
      if (start == std::string::npos) return 0;
      options.dims.erase(what.substr(start + 1, what.find('=', start) - start - 1));
    }
  }
  if (!net) return 0;
  fuzz::simulate_and_render(*net, device(), 1, ir::Precision::FP32);
  fuzz::simulate_and_render(*net, device(), engine::kMaxBatch, ir::Precision::INT8);
  if (net->layers.size() <= 2000) {
    const std::string text = lang::to_net_text(*net);
    try {
      const ir::Network again = lang::parse_network(text, "fuzz-emitted.net");
      bool same = again.layers.size() == net->layers.size();
      for (std::size_t i = 0; same && i < again.layers.size(); ++i)
        same = again.layers[i].op == net->layers[i].op && again.layers[i].attrs == net->layers[i].attrs &&
               again.layers[i].inputs == net->layers[i].inputs && again.layers[i].output == net->layers[i].output;
      if (!same) {
        std::fprintf(stderr, "fuzz: the emitted .net elaborates to other layers\n%s", text.c_str());
        std::abort();
      }
    } catch (const lang::Error& e) {
      std::fprintf(stderr, "fuzz: the emitted .net does not parse: %s\n%s", e.what(), text.c_str());
      std::abort();
    }
  }
  return 0;
}
