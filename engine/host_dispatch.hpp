// The host that issues a GPU's kernels one op at a time (issue #35): eager PyTorch's Python loop, its
// dispatcher and the CUDA launch cost the host a fixed time per op, and the GPU runs an op's kernels
// no earlier than the host has issued them. A runtime that gives `host.forward_op` (every layer of a
// forward: a call from Python, views included) and `host.backward_op` (every layer with a backward:
// autograd's node and its launches) is timed by this clock; without them the GPU is taken as always
// fed (the device's own launch overhead per kernel, as timing.hpp has it), as under CUDA graphs or a
// large enough batch. runtimes/pytorch-python.rt gives them.
//
//   host_i  = host_{i-1} + h_i                      the host's clock once it has issued op i
//   gpu_i   = max(gpu_{i-1}, host_i) + d_i          the GPU's clock once it has run op i (d_i: its time)
//
// A pass's time is gpu_n: max(sum h, sum d) <= gpu_n <= sum h + sum d. The host runs ahead while the
// GPU is busy with long kernels (cudaLaunchKernel returns at once) and the GPU idles behind a host
// issuing short ones, which a per-op max(h_i, d_i) would not see. The figures' fit and the rows it
// was checked on are in docs/gpu.md ("The eager host").
#pragma once

#include <algorithm>

namespace ridge::engine {

class HostClock {
 public:
  // The host issues one op (host_s) and the GPU runs it (device_s) once both are ready; returns when
  // the GPU starts it.
  double issue(double host_s, double device_s) {
    host_ += host_s;
    const double start = std::max(gpu_, host_);
    gpu_ = start + device_s;
    return start;
  }
  double gpu_s() const { return gpu_; }
  double host_s() const { return host_; }

 private:
  double host_ = 0.0;
  double gpu_ = 0.0;
};

}  // namespace ridge::engine
