#include "corpus/allocator_tuning.h"

#include "base/host_memory_pool.h"

#include <cstdlib>  // defines __GLIBC__ on glibc: without a libc header first, the test below is always false

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnscope {

void keep_freed_memory_for_reuse() {
  keep_host_tensors_for_reuse(true);  // tensors of a megabyte and more, whatever their sizes
#if defined(__GLIBC__)
  constexpr int kOneGiB = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kOneGiB);  // large blocks come from the heap ...
  mallopt(M_TRIM_THRESHOLD, kOneGiB);  // ... and stay there when freed
  // Every thread in the main heap: another thread's arena is made of 64 MB heaps, and a larger
  // block (a 512-token text's captures on the explorer's worker) is mapped and unmapped each time
  // whatever the thresholds. The threads that allocate here are few, so one arena's lock costs nothing.
  mallopt(M_ARENA_MAX, 1);
#endif
}

void return_freed_memory() {
  keep_host_tensors_for_reuse(false);
#if defined(__GLIBC__)
  // Blocks past two of a scan's blocks of rows (32 MB, allocated and freed thousands of times,
  // which stay in the heap: mapped each time, their page faults took a third of the time) are
  // mapped for themselves again, and what the heap holds free now is returned.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  malloc_trim(0);
#endif
}

void tune_heap_for_run(bool maps_kept) {
  keep_freed_memory_for_reuse();
  if (!maps_kept) return_freed_memory();
}

}  // namespace attnscope
