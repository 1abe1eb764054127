// engine/cpu_dispatch.hpp's rule against LibTorch's own choice of convolution backend
// (at::native::select_conv_backend, which at::convolution calls): where the engine says LibTorch runs
// a 1x1 convolution natively, LibTorch picks its slow_conv2d; everywhere else on the grid, oneDNN.
#include "engine/cpu_dispatch.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/native/ConvUtils.h>

#include <catch2/catch.hpp>

namespace engine = ridge::engine;
namespace ir = ridge::ir;

TEST_CASE("LibTorch runs a 1x1 convolution natively exactly where engine/cpu_dispatch.hpp says") {
  const int threads_before = at::get_num_threads();
  for (const int threads : {1, 2}) {
    at::set_num_threads(threads);
    ir::Device cpu;
    cpu.kind = ir::DeviceKind::CPU;
    cpu.measured_threads = ir::Figure{static_cast<double>(threads), "test"};
    // Batch 1 is left out: LibTorch runs small maps natively there at any kernel (cpu_dispatch.hpp).
    for (const std::int64_t batch : {2, 8, 15, 16, 32})
      for (const std::int64_t kernel : {1, 3})
        for (const std::int64_t stride : {1, 2}) {
          CAPTURE(threads, batch, kernel, stride);
          const at::Tensor input = at::empty({batch, 32, 28, 28});
          const at::Tensor weight = at::empty({64, 32, kernel, kernel});
          const std::int64_t pad = kernel / 2;
          const auto backend = at::native::select_conv_backend(input, weight, c10::nullopt, {stride, stride}, {pad, pad},
                                                               {1, 1}, false, {0, 0}, 1);
          const bool native = kernel == 1 && stride == 1 && engine::libtorch_runs_1x1_natively(cpu, batch, ir::Precision::FP32);
          CHECK(backend == (native ? at::native::ConvBackend::Slow2d : at::native::ConvBackend::Mkldnn));
        }
  }
  at::set_num_threads(threads_before);
}
