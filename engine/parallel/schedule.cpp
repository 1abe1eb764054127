#include "engine/parallel/schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ridge::engine::parallel {
namespace {

struct Op {
  bool forward;
  int chunk;
  std::int64_t micro_batch;
};

// Device `rank`'s order (Megatron-LM's interleaved schedule; with v = 1 it is plain 1F1B): a warm-up
// of forwards, then one forward and one backward in turn, then the remaining backwards. The k-th
// forward runs chunk (k mod Pv) / P of micro-batch (k / Pv) P + k mod P; backwards take the chunks in
// reverse.
std::vector<Op> device_order(int rank, int P, int v, std::int64_t m) {
  const std::int64_t total = m * v;
  const std::int64_t group = static_cast<std::int64_t>(P) * v;
  const std::int64_t warmup =
      std::min<std::int64_t>(total, v == 1 ? P - rank - 1 : static_cast<std::int64_t>(P - rank - 1) * 2 + (v - 1) * P);
  auto op = [&](std::int64_t k, bool forward) {
    const int in_group = static_cast<int>((k % group) / P);
    return Op{forward, forward ? in_group : v - 1 - in_group, (k / group) * P + k % P};
  };
  std::vector<Op> ops;
  ops.reserve(static_cast<std::size_t>(2 * total));
  std::int64_t f = 0, b = 0;
  for (; f < warmup; ++f) ops.push_back(op(f, true));
  while (f < total) {
    ops.push_back(op(f++, true));
    ops.push_back(op(b++, false));
  }
  while (b < total) ops.push_back(op(b++, false));
  return ops;
}

}  // namespace

PipelineSchedule pipeline_schedule(int P, int v, std::int64_t m, double forward_s, double backward_s, std::int64_t max_slices) {
  if (P < 1 || v < 1 || m < 1) throw std::invalid_argument("a pipeline schedule needs at least one stage, chunk and micro-batch");
  if (2 * m * P * v > max_slices)
    throw std::invalid_argument(std::to_string(P) + " stages x " + std::to_string(v) + " chunks x " + std::to_string(m) +
                                " micro-batches are more slices than a trace viewer opens; trace a smaller batch");
  if (v > 1 && m % P != 0)
    throw std::invalid_argument("the interleaved schedule needs the micro-batches to be a multiple of the stages");
  const int stages = P * v;   // virtual stages: chunk c of device d is stage c P + d
  const double tf = forward_s / v, tb = backward_s / v;
  std::vector<std::vector<Op>> order;
  for (int d = 0; d < P; ++d) order.push_back(device_order(d, P, v, m));
  // When each virtual stage's forward and backward of each micro-batch end; -1: not yet run.
  std::vector<std::vector<double>> f_end(stages, std::vector<double>(m, -1.0)), b_end = f_end;
  std::vector<std::size_t> next(P, 0);
  std::vector<double> free_at(P, 0.0);
  PipelineSchedule out;
  for (bool progress = true; progress;) {
    progress = false;
    for (int d = 0; d < P; ++d) {
      while (next[d] < order[d].size()) {
        const Op op = order[d][next[d]];
        const int j = op.chunk * P + d;
        const std::size_t mb = static_cast<std::size_t>(op.micro_batch);
        const double ready = op.forward ? (j == 0 ? 0.0 : f_end[j - 1][mb])
                                        : (j == stages - 1 ? f_end[j][mb] : b_end[j + 1][mb]);
        if (ready < 0) break;   // its input is not computed yet: another device goes first
        const double start = std::max(ready, free_at[d]);
        const double duration = op.forward ? tf : tb;
        (op.forward ? f_end : b_end)[j][mb] = start + duration;
        free_at[d] = start + duration;
        out.slices.push_back({d, op.chunk, op.micro_batch, op.forward, start, duration});
        ++next[d];
        progress = true;
      }
    }
  }
  for (int d = 0; d < P; ++d)
    if (next[d] != order[d].size()) throw std::logic_error("pipeline schedule: the device orders deadlock");
  out.end_s = *std::max_element(free_at.begin(), free_at.end());
  return out;
}

}  // namespace ridge::engine::parallel
