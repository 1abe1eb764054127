// Timing a layer on its own without the page faults its loop alone would pay (issue #37).
//
// A layer pass timed again and again allocates its outputs and frees them each run. Where glibc's
// malloc maps such a block afresh (above its mmap threshold), or trims the heap once the block is
// freed at its top, every run faults the block's pages in again: on a 2-core Xeon VM a batch-16 1x1
// convolution 32 -> 128 channels on 56x56 faulted in 51 MB a run and took 28-34 ms, against 6.6-7.7 ms
// for the same call on resident memory; whether it faulted turned on a few bytes of the trim threshold,
// so it changed from one process to the next. In a network the same blocks come from a heap in
// another state. The engine models a network's fresh pages apart (engine/host_allocator.hpp replays
// them), so a layer pass is timed on resident memory: a cushion of free heap below a live pin, which
// malloc serves the pass's blocks from (it looks in its free bins before it maps or grows anything)
// and which no trim can hand back to the kernel. What the pass still faults in is measured and
// charged at the measured first-touch rate (PassTiming::fresh_bytes).
#pragma once

#include <cstddef>

namespace ridge::validate {

// AddressSanitizer replaces glibc's malloc with its own allocator, which has no heap to lay out: there
// a cushion lays out nothing.
#if defined(__SANITIZE_ADDRESS__)
#define RIDGE_GLIBC_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RIDGE_GLIBC_MALLOC 0
#endif
#endif
#ifndef RIDGE_GLIBC_MALLOC
#define RIDGE_GLIBC_MALLOC 1
#endif

class HeapCushion {
 public:
  static constexpr bool kAvailable = RIDGE_GLIBC_MALLOC != 0;

  // One free chunk of heap memory of at least `bytes`, every page of it written once. 0: none.
  // Nothing where !kAvailable, or where malloc fails or the heap's holes take every chunk it may try.
  explicit HeapCushion(std::size_t bytes = 0);
  ~HeapCushion();
  HeapCushion(const HeapCushion&) = delete;
  HeapCushion& operator=(const HeapCushion&) = delete;
  HeapCushion(HeapCushion&& other) noexcept;
  HeapCushion& operator=(HeapCushion&& other) noexcept;

  std::size_t bytes() const { return bytes_; }   // the span of the free chunk laid out

  // Chunks below glibc's initial mmap threshold (128 KiB), so that malloc takes them from the heap
  // whatever threshold the process has reached; freed side by side, they merge into one free chunk.
  static constexpr std::size_t kChunk = std::size_t{64} << 10;

 private:
  void release();
  std::size_t bytes_ = 0;
  void* pin_ = nullptr;   // the chunk after the free run, freed last, so that the run never reaches the heap's top
};

}  // namespace ridge::validate
