#include "validate/heap_cushion.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace ridge::validate {

HeapCushion::HeapCushion(std::size_t bytes) {
  if (bytes == 0 || !kAvailable) return;
  std::vector<void*> chunks;
  // malloc and free, not new and delete: the cushion is glibc's heap itself, and must be laid out by
  // the allocator LibTorch's CPU tensors come from (c10's alloc_cpu: posix_memalign).
  const auto free_all = [&chunks] {
    for (void* p : chunks) std::free(p);
  };
  // malloc fills the heap's free holes first; a block of the pass needs one free chunk that holds it
  // whole, so chunks are taken until a run of them side by side spans `bytes` (holes filled meanwhile
  // are written too, and freed with the rest).
  constexpr std::uintptr_t kAdjacent = kChunk + 64;   // a chunk's header and alignment lie between neighbours
  const std::size_t most = 2 * (bytes / kChunk + 1) + (std::size_t{1} << 12);   // holes of up to 256 MiB
  chunks.reserve(most);   // grown as it goes, the list's own buffers would land between the chunks
  std::uintptr_t run_start = 0, previous = 0;
  while (chunks.size() < most) {
    void* const p = std::malloc(kChunk);
    if (!p) break;
    std::memset(p, 0, kChunk);   // fault its pages in now, not in a timed run
    chunks.push_back(p);
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    if (previous == 0 || address <= previous || address - previous > kAdjacent) run_start = address;
    previous = address;
    if (address - run_start >= bytes) {
      // The run's last chunk stays allocated: the pin. (A small malloc would come from a bin anywhere.)
      pin_ = p;
      chunks.pop_back();
      break;
    }
  }
  free_all();
  if (pin_) bytes_ = previous - run_start;
}

void HeapCushion::release() {
  std::free(pin_);   // the free chunks below now reach the top, where glibc may trim them
  pin_ = nullptr;
  bytes_ = 0;
}

HeapCushion::~HeapCushion() { release(); }

HeapCushion::HeapCushion(HeapCushion&& other) noexcept
    : bytes_(std::exchange(other.bytes_, 0)), pin_(std::exchange(other.pin_, nullptr)) {}

HeapCushion& HeapCushion::operator=(HeapCushion&& other) noexcept {
  if (this != &other) {
    release();
    bytes_ = std::exchange(other.bytes_, 0);
    pin_ = std::exchange(other.pin_, nullptr);
  }
  return *this;
}

}  // namespace ridge::validate
