// The pipeline schedule of one training step: 1F1B (Narayanan et al. SC'21, Figure 4 top) and its
// interleaved form over v model chunks per device (Figure 4 bottom; Megatron-LM's
// forward_backward_pipelining_with_interleaving). Each device runs its forward and backward slices in
// the order the schedule gives it; a slice starts when its device is free and its input is ready (the
// previous virtual stage's forward of the micro-batch, or the next one's backward).
//
// strategy.cpp's pipeline time, (m + (P - 1)/v)(t_f + t_b), is this schedule's length in closed form
// for stages that take equal time (tests/engine/parallel_schedule_test.cpp holds them equal); the trace
// (render/pipeline_trace.cpp) draws this schedule, so what it shows is the step the plan timed.
#pragma once

#include <cstdint>
#include <vector>

namespace ridge::engine::parallel {

struct PipelineSlice {
  int device = 0;                 // pipeline rank, 0 .. P-1
  int chunk = 0;                  // model chunk on the device, 0 .. v-1 (virtual stage chunk * P + device)
  std::int64_t micro_batch = 0;
  bool forward = true;
  double start_s = 0.0, duration_s = 0.0;
};

struct PipelineSchedule {
  std::vector<PipelineSlice> slices;   // in the order they were scheduled
  double end_s = 0.0;                  // when the last slice ends
};

// P stages (devices), v chunks each, m micro-batches per step; forward_s and backward_s per
// micro-batch on one device (all its chunks: each chunk's slice takes 1/v of it). Interleaving needs m
// to be a multiple of P, as Megatron-LM's does (strategy.hpp's check()). Throws std::invalid_argument
// for counts below 1, and when P x v x m x 2 passes `max_slices`.
PipelineSchedule pipeline_schedule(int stages, int interleave, std::int64_t micro_batches, double forward_s,
                                   double backward_s, std::int64_t max_slices = 200'000);

}  // namespace ridge::engine::parallel
