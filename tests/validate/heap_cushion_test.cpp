// The heap cushion calibrate times a CPU layer pass on (validate/heap_cushion.hpp), against glibc's
// malloc (malloc/malloc.c): a block above DEFAULT_MMAP_THRESHOLD_MAX (32 MiB on 64-bit) is mapped
// afresh on every malloc, so each run of a pass that writes one faults its pages in again; with a
// cushion, malloc finds a free chunk in its bins first, and the pages are already resident.
#include "validate/heap_cushion.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>

using ridge::validate::HeapCushion;

namespace {

// Under AddressSanitizer malloc is not glibc's: nothing here holds there.
constexpr bool kGlibcMalloc = HeapCushion::kAvailable;

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Pages faulted in by allocating `bytes`, writing every byte and freeing the block, as a pass's output is.
long faults_of_a_block(std::size_t bytes) {
  const long before = minor_faults();
  void* const block = std::malloc(bytes);
  REQUIRE(block != nullptr);
  std::memset(block, 1, bytes);
  asm volatile("" : : "r"(block) : "memory");   // the writes are observed: no compiler may drop the block
  std::free(block);
  return minor_faults() - before;
}

constexpr std::size_t kBlock = std::size_t{40} << 20;   // above glibc's largest mmap threshold

}  // namespace

TEST_CASE("a block above the mmap threshold faults its pages in afresh on every allocation", "[heap_cushion]") {
  if (!kGlibcMalloc) {
    SUCCEED("not glibc's malloc under AddressSanitizer: nothing to check");
    return;
  }
  const long pages = static_cast<long>(kBlock) / sysconf(_SC_PAGESIZE);
  (void)faults_of_a_block(kBlock);
  CHECK(faults_of_a_block(kBlock) > pages / 2);
}

TEST_CASE("on a cushion, the same block is served from resident heap memory", "[heap_cushion]") {
  if (!kGlibcMalloc) {
    SUCCEED("not glibc's malloc under AddressSanitizer: nothing to check");
    return;
  }
  const long pages = static_cast<long>(kBlock) / sysconf(_SC_PAGESIZE);
  const HeapCushion cushion(kBlock + (std::size_t{1} << 20));
  CHECK(cushion.bytes() >= kBlock);
  // After one run to settle (its first placement may still fault in a part), as calibrate does it.
  (void)faults_of_a_block(kBlock);
  for (int run = 0; run < 3; ++run) CHECK(faults_of_a_block(kBlock) < pages / 20);
}

TEST_CASE("a cushion of nothing lays out nothing, and a moved cushion is released once", "[heap_cushion]") {
  const HeapCushion none;
  CHECK(none.bytes() == 0);
  HeapCushion first(std::size_t{1} << 20);
  if (!kGlibcMalloc) {
    CHECK(first.bytes() == 0);
    return;
  }
  CHECK(first.bytes() >= (std::size_t{1} << 20));
  const std::size_t laid = first.bytes();
  HeapCushion second(std::move(first));
  CHECK(second.bytes() == laid);
  CHECK(first.bytes() == 0);   // NOLINT(bugprone-use-after-move): a moved-from cushion holds nothing
  first = std::move(second);
  CHECK(first.bytes() == laid);
}
