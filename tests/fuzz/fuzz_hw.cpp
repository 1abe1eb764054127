// libFuzzer target for the `.hw` front end: bytes -> parse + check -> simulate a fixed small
// network on the device in every precision -> render; and the same bytes as a runtime (`.rt`).
#include "tests/fuzz/fuzz_common.hpp"

#include <memory>
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

// A residual block with views between its layers and a squeeze-excite scale: what fusion patterns
// (a runtime's fuse.NAME) match against.
const ridge::ir::Network& residual_network() {
  static const ridge::ir::Network n = ridge::lang::parse_network(R"(network residual {
  input x: [8, 8, 8]
  y = x -> conv(8, 3, pad: 1) -> batchnorm -> relu -> dropout(p: 0.1) -> conv(8, 1) -> layernorm(dims: 2)
  s = y -> adaptive_avgpool(1) -> conv(8, 1) -> sigmoid
  y = mul(y, s) -> gelu
  return add(y, x) -> relu -> flatten -> linear(4) -> softmax
}
)", "residual.net");
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ridge;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The same language describes runtimes (runtimes/*.rt): a `runtime` block is checked by its keys.
  try {
    auto runtime = std::make_shared<const ir::Runtime>(lang::parse_runtime(text, "fuzz.rt"));
    // Its fusion patterns over a network they may match: every pass's bytes stay counts.
    for (const bool training : {false, true}) {
      ir::Runtime r = *runtime;
      r.fuse_training = training;
      const engine::Workload w = engine::workload(residual_network(), {.batch = 4, .precision = ir::Precision::FP16,
                                                                         .runtime = std::make_shared<const ir::Runtime>(r)});
      for (const engine::OpCost& c : w.costs)
        for (const engine::PassCost* pass : {&c.forward, &c.forward_train, &c.backward})
          if (!(pass->bytes_read >= 0 && pass->bytes_written >= 0 && pass->kernels >= 0)) __builtin_trap();
    }
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
