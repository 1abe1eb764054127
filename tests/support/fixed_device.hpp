// One small device with every precision, shared by the fuzz targets and the hostile-input tests, so
// a fuzz finding replayed as a test runs against exactly the device the fuzzer used.
#pragma once

namespace ridge::testing {

inline constexpr const char* kFixedDeviceHw = R"(device "fixed" {
  kind = gpu
  source = "a fixed device for fuzzing and tests"
  peak.fp64 = 1 TFLOP/s
  peak.fp32 = 10 TFLOP/s
  matrix.fp16 = 100 TFLOP/s
  matrix.bf16 = 100 TFLOP/s
  matrix.tf32 = 50 TFLOP/s
  matrix.int8 = 200 TOP/s
  memory.size = 16 GiB
  memory.bandwidth = 1 TB/s
  launch_overhead = 5 us
}
)";

}  // namespace ridge::testing
