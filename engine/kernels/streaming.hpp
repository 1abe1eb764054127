// The streaming-op kernel model (issue #32): the time of a kernel that streams its operands through
// DRAM and does little arithmetic on each element (elementwise ops, norms, softmax, pooling,
// reductions, copies) on a GPU, from the facts its device file gives. Every formula is in
// streaming.cpp; this header says what it computes.
//
//   traffic = the pass's bytes + the row re-reads that miss L2 (below)
//   DRAM    = traffic / (dram_efficiency * bandwidth)        (the GEMM model's achieved bandwidth)
//   compute = FLOPs / the vector peak the op runs at
//   time    = max(DRAM, compute) + kernels * fixed            (the GEMM model's fixed time per kernel)
// The fixed time is why a small tensor never reaches stream bandwidth: half of it at about
// fixed * bandwidth (9 MB on an A100).
//
// A row kernel (softmax over the last axis, layer norm, as PyTorch's CUDA kernels run them) gives each
// row to one thread block and reads the row more than once. The reads after the first come from L2
// when the rows in flight fit there beside the traffic that passes while they are in flight (each row
// read once more and written once): 2 * rows in flight * row bytes <= L2 size, where rows in flight =
// SMs * (threads per SM / threads per block). Otherwise they come from DRAM and count as traffic.
#pragma once

#include "engine/kernels/gemm.hpp"

#include <string_view>

namespace ridge::engine::kernels {

// How a library kernel walks the rows of one pass, where it is a row kernel (reads > 1).
struct RowKernel {
  double rows = 0;            // of the pass (its batch included)
  double elements = 0;        // per row
  double bytes = 0;           // per element of the rows read
  double reads = 1;           // times each row is read from memory (1: not a row kernel)
  double block_threads = 0;   // threads of the block that takes one row
  friend bool operator==(const RowKernel&, const RowKernel&) = default;
};

// PyTorch's CUDA row kernels (aten/src/ATen/native/cuda, version 2.1, the version NeuSight's
// measurements of validate/streaming_published.csv ran):
//  softmax over the last axis: a row of at most 1024 elements and 4 KB is one warp's and sits in its
//    registers (one read); a longer row is one block's (cunn_SoftMaxForward), read three times (its
//    maximum, the sum of exponentials, then the output), the block SoftMax_getBlockSize's.
RowKernel softmax_rows(double rows, double elements, double bytes_per_element);
//  layer norm (vectorized_layer_norm_kernel): one 32 x 4 block per row, read twice (Welford's
//    statistics, then the normalised output).
RowKernel layer_norm_rows(double rows, double elements, double bytes_per_element);

// The work of one pass, as the streaming model reads it.
struct Stream {
  double flops = 0;
  double bytes = 0;          // read + written, each element once
  int kernels = 1;
  RowKernel rows;            // the pass's row kernel, where it is one
};

struct StreamPlan {
  double traffic = 0;             // B through DRAM
  double rows_in_flight = 0;      // a row kernel's rows resident at once (0: not a row kernel)
  bool rereads_in_l2 = true;      // a row kernel's re-reads hit L2
  double dram_s = 0, compute_s = 0, fixed_s = 0;
  double seconds = 0;             // the kernels' time on the GPU (launch overhead not included)
  bool compute_limited = false;
  friend bool operator==(const StreamPlan&, const StreamPlan&) = default;
};

// The time of `stream` on the GPU `facts` describe, its arithmetic at `vector_flops_per_s`.
// `memory_factor` and `compute_factor` divide the DRAM and compute terms (a calibrated PPP; 1 when
// none). A device that gives no L2 size or no threads per SM takes every re-read from DRAM.
StreamPlan plan_stream(const Stream& stream, const GpuFacts& facts, double vector_flops_per_s,
                       double memory_factor = 1.0, double compute_factor = 1.0);

}  // namespace ridge::engine::kernels
