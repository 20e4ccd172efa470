// keep_freed_memory_for_reuse: a large block freed and allocated again comes back from the heap,
// without the kernel faulting its pages in a second time (as the corpus loop's tensors do);
// return_freed_memory: what the heap keeps for a long text; tune_heap_for_run: one or the other
// as a run keeps its maps or not, whatever was set before.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/address_sanitizer.h"
#include "corpus/allocator_tuning.h"

namespace attnscope {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Page faults taken to allocate, fill and free a block.
long faults_for_block(size_t bytes) {
  const long before = minor_faults();
  auto* block = static_cast<volatile char*>(std::malloc(bytes));
  if (!block) return -1;
  for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;
  std::free(const_cast<char*>(block));
  return minor_faults() - before;
}

TEST(AllocatorTuning, FreedLargeBlocksAreReusedWithoutPageFaults) {
#if !defined(__GLIBC__) || defined(ATTNSCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "glibc's allocator only (AddressSanitizer brings its own)";
#endif
  constexpr size_t kBytes = size_t{64} << 20;  // 16,384 pages, above glibc's largest default mmap threshold
  EXPECT_GT(faults_for_block(kBytes), 8000);   // by default the block is mapped and unmapped each time
  keep_freed_memory_for_reuse();
  faults_for_block(kBytes);                   // the first time in the heap, its pages come from the kernel
  EXPECT_LT(faults_for_block(kBytes), 1000);  // then they are the heap's own
}

// The explorer's worker thread allocates a 512-token text's captures (about 100 MB for MiniLM):
// a block larger than a thread arena's 64 MB heaps, which by default is mapped and unmapped on
// every run whatever the thresholds.
TEST(AllocatorTuning, BlocksLargerThanAThreadsArenaAreReusedOnOtherThreadsToo) {
#if !defined(__GLIBC__) || defined(ATTNSCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "glibc's allocator only (AddressSanitizer brings its own)";
#endif
  keep_freed_memory_for_reuse();
  constexpr size_t kBytes = size_t{96} << 20;
  long again = -1;
  std::thread([&] {
    faults_for_block(kBytes);
    again = faults_for_block(kBytes);
  }).join();
  EXPECT_LT(again, 1000);
}

long resident_pages() {
  long size = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident;
}

// A long text's heap (return_freed_memory): what the heap kept is returned, blocks past 64 MB are
// mapped and unmapped each time again, a scan's blocks of rows (32 MB) still come from the heap.
TEST(AllocatorTuning, ALongTextsHeapKeepsOnlyBlocksOfRows) {
#if !defined(__GLIBC__) || defined(ATTNSCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "glibc's allocator only (AddressSanitizer brings its own)";
#endif
  keep_freed_memory_for_reuse();
  constexpr size_t kKept = size_t{200} << 20, kRows = size_t{32} << 20, kMap = size_t{128} << 20;
  faults_for_block(kKept);  // resident in the heap once freed
  const long kept = resident_pages();
  return_freed_memory();
  EXPECT_LT(resident_pages(), kept - 40000) << "200 MB are 51,200 pages";
  faults_for_block(kRows);
  EXPECT_LT(faults_for_block(kRows), 1000);
  EXPECT_GT(faults_for_block(kMap), 30000);
  EXPECT_GT(faults_for_block(kMap), 30000);
  keep_freed_memory_for_reuse();
  faults_for_block(kMap);
  EXPECT_LT(faults_for_block(kMap), 1000) << "kept again";
}

// The command line and the explorer set the heap before each forward, from any state before.
TEST(AllocatorTuning, ARunsHeapIsTheOneItsKeptMapsWant) {
#if !defined(__GLIBC__) || defined(ATTNSCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "glibc's allocator only (AddressSanitizer brings its own)";
#endif
  constexpr size_t kRows = size_t{32} << 20, kMap = size_t{128} << 20;
  for (const bool maps_kept : {false, true, false}) {
    SCOPED_TRACE(maps_kept ? "maps kept" : "a long text");
    tune_heap_for_run(maps_kept);
    faults_for_block(kRows);
    EXPECT_LT(faults_for_block(kRows), 1000) << "a block of rows from the heap";
    faults_for_block(kMap);
    if (maps_kept)
      EXPECT_LT(faults_for_block(kMap), 1000) << "a map kept in the heap";
    else
      EXPECT_GT(faults_for_block(kMap), 30000) << "a long text's large block returned";
  }
}

}  // namespace
}  // namespace attnscope
