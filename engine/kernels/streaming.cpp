#include "engine/kernels/streaming.hpp"

#include <algorithm>
#include <cmath>

namespace ridge::engine::kernels {

RowKernel softmax_rows(double rows, double elements, double bytes_per_element) {
  // SoftMax.cu's dispatch: dim_size <= 1024 && dim_size * sizeof(scalar_t) <= 4096 takes the warp
  // kernel (softmax_warp_forward), which holds the row in registers.
  if (elements <= 1024 && elements * bytes_per_element <= 4096) return {rows, elements, bytes_per_element, 1, 32};
  // SoftMax_getBlockSize: ILP = 16 B / element; the block is the power of two at or above half of
  // min(elements / ILP, 1024), and at least a warp.
  const double ilp = 16.0 / bytes_per_element;
  const double half = std::min(std::floor(elements / ilp), 1024.0) / 2.0;
  double block = 1;
  while (block < half) block *= 2;
  return {rows, elements, bytes_per_element, 3, std::max(block, 32.0)};
}

RowKernel layer_norm_rows(double rows, double elements, double bytes_per_element) {
  return {rows, elements, bytes_per_element, 2, 128};
}

StreamPlan plan_stream(const Stream& s, const GpuFacts& f, double vector_flops_per_s, double memory_factor,
                       double compute_factor) {
  StreamPlan p;
  if (s.kernels == 0 && s.flops == 0.0 && s.bytes == 0.0) return p;   // a view: nothing runs
  p.traffic = s.bytes;
  const RowKernel& r = s.rows;
  if (r.reads > 1 && r.elements > 0) {
    const double blocks_per_sm = f.threads_per_unit > 0 ? std::floor(f.threads_per_unit / r.block_threads) : 0.0;
    p.rows_in_flight = f.sms * std::max(1.0, blocks_per_sm);
    const double row_bytes = r.elements * r.bytes;
    p.rereads_in_l2 = f.l2_size > 0 && f.threads_per_unit > 0 && 2.0 * p.rows_in_flight * row_bytes <= f.l2_size;
    // The pass's bytes count each row once; a miss reads it again from DRAM.
    if (!p.rereads_in_l2) p.traffic += (r.reads - 1) * r.rows * row_bytes;
  }
  p.dram_s = p.traffic / (f.dram_efficiency * f.dram_bandwidth) / memory_factor;
  p.compute_s = vector_flops_per_s > 0 ? s.flops / vector_flops_per_s / compute_factor : 0.0;
  p.fixed_s = s.kernels * f.kernel_fixed_s;
  p.compute_limited = p.compute_s > p.dram_s;
  p.seconds = std::max(p.dram_s, p.compute_s) + p.fixed_s;
  return p;
}

}  // namespace ridge::engine::kernels
