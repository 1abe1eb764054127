// Fresh pages on a CPU: what an eager LibTorch inference forward asks glibc's malloc for, and which of
// those bytes the kernel must fault in afresh each step (issue #37).
//
// A Python script's forward on a CPU faults in pages the allocator handed back to the kernel since
// the last step: blocks above the mmap threshold every time, and the heap as far as glibc trimmed it
// and grew it again. On torchvision's networks at batch 16 the fault volume decides the inference
// prediction: with the volume Python measured (getrusage) in place of the engine's earlier estimate
// (blocks above the threshold plus the heap's growth to the forward's peak), each network's inference
// in six runs of the protocol's batch-16 set came within 10 %, where mobilenet_v2 and densenet121
// had been 18-37 % fast (docs/results/2026-11-27-fault-volume.md). So the inference forward's fresh
// pages are replayed here: the requests LibTorch makes (eager_cpu_inference_requests) through a model
// of glibc's main arena (MainArena), step after step until it settles. The training step keeps
// FreshMemory's charges: replayed through the same arena, the requests of a training step that
// alloc_trace.c recorded fault in 3-5 times what Python measures. Its convolutions and max pools,
// which map several blocks a pass, are charged those blocks instead (eager_cpu_training_mapped_bytes).
#pragma once

#include "lang/ir/device.hpp"
#include "lang/ir/network.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ridge::engine {

// One request to malloc or free, made while `layer` runs.
struct HostRequest {
  bool allocate = true;     // false: free
  std::size_t block = 0;    // names the block across its allocation and its free
  double bytes = 0.0;       // allocations only
  std::size_t layer = 0;
};

// The blocks an inference forward (torch.no_grad(), fp32 or the precision given, NCHW) allocates and
// frees in eager LibTorch 1.13 on a CPU, in order. Measured with validate/scripts/alloc_trace.c on
// Debian's torch 1.13, one and two threads, batch 8 and 16 (docs/results/2026-11-27-fault-volume.md):
// - a convolution runs through oneDNN (mkldnn_convolution): a copy of its input in oneDNN's blocked
//   layout, its output in that layout, the input copy freed, the NCHW output, the blocked one freed.
//   Every convolution takes that path except a 1x1 stride-1 one at one thread below batch 16
//   (aten/src/ATen/native/Convolution.cpp, use_mkldnn); that one is counted so too, an upper bound;
// - a max pool allocates its output and its int64 indices, then frees the indices
//   (max_pool2d_with_indices);
// - an activation whose input no later layer reads runs in place, as torchvision builds them
//   (ReLU(inplace=True) and Conv2dNormActivation's default); a view allocates nothing;
// - every other layer allocates its output;
// - a value is freed once its last reader has run; the network's input lives outside the step and its
//   result is freed at the step's end (a timed forward discards it).
// Blocks below 64 KiB are left out: glibc serves them from bins the large blocks never touch.
std::vector<HostRequest> eager_cpu_inference_requests(const ir::Network& network, std::int64_t batch, ir::Precision precision);

// The bytes of blocks mapped afresh every step, whatever the heap holds (those above twice
// `mmap_threshold`, glibc's cap: see the .cpp), that a training step's passes of each layer allocate
// in eager LibTorch 1.13 on a CPU, where they are more than the pass's output: a convolution through oneDNN
// (mkldnn_convolution and its backward) and a max pool. Counted with getrusage's minor faults around
// one layer's passes in Debian's torch 1.13, batch 16, two threads (docs/results/2026-11-28-training-blocks.md):
// - a convolution's training forward: its input copied to oneDNN's blocked layout, its output in that
//   layout, its output in NCHW (input + 2 x output, as at inference);
// - its backward: the input's gradient in NCHW, then for the data gradient the output's gradient
//   blocked and the input's gradient blocked, and for the weight gradient the input blocked and the
//   output's gradient blocked again (3 x input + 2 x output); where the input needs no gradient (the
//   first convolution), the weight gradient's two (input + output). Depthwise and grouped
//   convolutions take the same path;
// - a max pool's training forward: its output and its int64 indices, kept for the backward; its
//   backward, its input's gradient.
// Every other layer: nullopt (FreshMemory's charge, the pass's output as one block, stands).
struct TrainingMappedBytes {
  double forward_train = 0.0;
  double backward = 0.0;
};
std::vector<std::optional<TrainingMappedBytes>> eager_cpu_training_mapped_bytes(const ir::Network& network, std::int64_t batch,
                                                                                ir::Precision precision, double mmap_threshold);

// glibc 2.36's main arena (malloc/malloc.c) for blocks of 64 KiB and more, where tcache and fast bins
// never hold them: a request takes the smallest free chunk that fits, else the top chunk; at or above
// the mmap threshold, where the top chunk cannot serve it, pages of its own; else the heap grows (brk)
// by the shortfall plus M_TOP_PAD. A freed chunk merges with its free neighbours; a mapped one is
// unmapped and, up to DEFAULT_MMAP_THRESHOLD_MAX, raises the mmap threshold to its size and the trim
// threshold to twice that. Once the top chunk passes the trim threshold the heap shrinks to M_TOP_PAD
// above its last used byte. Pages below the highest byte used since the last shrink stay resident;
// every other byte a request touches is fresh. validate/scripts/alloc_trace.py replays traced Python
// steps through this one (the ridge module's _ridge.replay_host_requests).
class MainArena {
 public:
  explicit MainArena(std::int64_t mmap_threshold_max = std::int64_t{32} * 1024 * 1024) : mmap_threshold_max_(mmap_threshold_max) {}
  // The bytes of fresh pages the allocation faults in (once written).
  std::int64_t allocate(std::size_t block, std::int64_t bytes);
  void release(std::size_t block);

 private:
  struct Block {
    bool mapped = false;
    std::int64_t address = 0;   // heap blocks: offset from the heap's start
    std::int64_t size = 0;
  };
  std::int64_t mmap_threshold_max_;
  std::int64_t mmap_threshold_ = 128 * 1024;   // M_MMAP_THRESHOLD's starting value
  std::int64_t trim_threshold_ = 128 * 1024;
  std::int64_t top_ = 0;        // start of the top chunk
  std::int64_t brk_ = 0;        // end of the heap
  std::int64_t resident_ = 0;   // pages below this have been touched since the heap last shrank
  std::map<std::int64_t, std::int64_t> free_chunks_;   // address -> size, in address order
  std::unordered_map<std::size_t, Block> blocks_;
};

// The bytes of fresh pages `requests` fault in, per step and per layer: the requests replayed `steps`
// times from an empty heap. A request's `layer` at or past `layers` counts in no layer.
std::vector<std::vector<double>> replay_fresh_bytes(const std::vector<HostRequest>& requests, std::size_t layers,
                                                    double mmap_threshold_max, int steps);

// Per layer, the fresh bytes in the step where the arena has settled: the last of `steps` replays
// (the first stand for a script's warm-up runs; the arena settles after one).
std::vector<double> steady_fresh_bytes(const std::vector<HostRequest>& requests, std::size_t layers,
                                       double mmap_threshold_max, int steps = 4);

}  // namespace ridge::engine
