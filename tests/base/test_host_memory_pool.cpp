// HostMemoryPool: a freed block serves the next request that fits it, or grows for a larger one
// keeping its pages; small requests and requests while not keeping go to the allocator replaced;
// at most kept_bytes stay kept. And the process's pool as torch's CPU allocator: a tensor a little
// larger than one freed before takes that one's pages, without the kernel faulting them in again.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>

#include "base/host_memory_pool.h"
#include "corpus/allocator_tuning.h"

namespace attnscope {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Page faults taken to write every page of `bytes` at `data`.
long faults_to_fill(void* data, size_t bytes) {
  const long before = minor_faults();
  auto* bytes_at = static_cast<volatile char*>(data);
  for (size_t i = 0; i < bytes; i += 4096) bytes_at[i] = 1;
  return minor_faults() - before;
}

struct Pool : ::testing::Test {
  HostMemoryPool pool{c10::GetDefaultCPUAllocator(), {.smallest = kMiB, .kept_bytes = 64 * kMiB}};
};

TEST_F(Pool, AFreedBlockServesTheNextRequestThatFitsIt) {
  void* first = nullptr;
  {
    c10::DataPtr a = pool.allocate(8 * kMiB);
    first = a.get();
    EXPECT_GT(faults_to_fill(a.get(), 8 * kMiB), 1000) << "a new mapping's pages come from the kernel";
  }
  EXPECT_EQ(pool.counts().kept_bytes, 8 * kMiB);
  c10::DataPtr b = pool.allocate(7 * kMiB);
  EXPECT_EQ(b.get(), first);
  EXPECT_LT(faults_to_fill(b.get(), 7 * kMiB), 50);
  EXPECT_EQ(pool.counts().reused, 1u);
  EXPECT_EQ(pool.counts().kept_bytes, 0u);
}

TEST_F(Pool, ABlockFarLargerThanTheRequestIsLeftForALargerOne) {
  { c10::DataPtr a = pool.allocate(16 * kMiB); }
  c10::DataPtr b = pool.allocate(2 * kMiB);  // 16 MiB would waste seven eighths of itself
  EXPECT_EQ(pool.counts().reused, 0u);
  EXPECT_EQ(pool.counts().mapped, 2u);
  EXPECT_EQ(pool.counts().kept_bytes, 16 * kMiB);
}

TEST_F(Pool, ALargerRequestGrowsAKeptBlockWhichKeepsItsPagesAndContents) {
  {
    c10::DataPtr a = pool.allocate(8 * kMiB);
    std::memset(a.get(), 7, 8 * kMiB);
  }
  c10::DataPtr b = pool.allocate(9 * kMiB);
  EXPECT_EQ(pool.counts().grown, 1u);
  auto* data = static_cast<unsigned char*>(b.get());
  EXPECT_EQ(data[0], 7);
  EXPECT_EQ(data[8 * kMiB - 1], 7);
  // AddressSanitizer faults in the shadow of the addresses the block moved to (an eighth of them):
  // its pages are counted where there is none.
  if (!host_memory_pool_available()) return;
  EXPECT_LT(faults_to_fill(b.get(), 8 * kMiB), 50) << "the pages it had";
  EXPECT_GT(faults_to_fill(data + 8 * kMiB, kMiB), 200) << "the megabyte added is new";
}

TEST_F(Pool, SmallRequestsGoToTheAllocatorReplaced) {
  c10::DataPtr a = pool.allocate(kMiB - 1);
  EXPECT_NE(a.get(), nullptr);
  EXPECT_EQ(pool.counts().mapped, 0u);
  a.clear();
  EXPECT_EQ(pool.counts().kept_bytes, 0u);
}

TEST_F(Pool, AtMostKeptBytesAreKeptTheOldestUnmappedFirst) {
  {
    c10::DataPtr a = pool.allocate(40 * kMiB), b = pool.allocate(30 * kMiB);
    a.clear();  // kept: 40 MiB
  }             // b too: 70 MiB > 64, so a (the older) goes
  EXPECT_EQ(pool.counts().kept_bytes, 30 * kMiB);
  { c10::DataPtr too_large = pool.allocate(65 * kMiB); }  // the 30 MiB grown
  EXPECT_EQ(pool.counts().grown, 1u);
  EXPECT_EQ(pool.counts().kept_bytes, 0u) << "a block larger than what may be kept is unmapped";
}

TEST_F(Pool, NotKeepingUnmapsWhatWasKeptAndPassesRequestsOn) {
  c10::DataPtr held = pool.allocate(4 * kMiB);
  { c10::DataPtr a = pool.allocate(8 * kMiB); }
  pool.keep(false);
  EXPECT_EQ(pool.counts().kept_bytes, 0u);
  c10::DataPtr b = pool.allocate(8 * kMiB);
  EXPECT_EQ(pool.counts().mapped, 2u) << "from the allocator replaced";
  held.clear();
  EXPECT_EQ(pool.counts().kept_bytes, 0u) << "given back while not keeping: unmapped";
  pool.keep(true);
  { c10::DataPtr c = pool.allocate(8 * kMiB); }
  EXPECT_EQ(pool.counts().kept_bytes, 8 * kMiB);
}

// Torch allocates some buffers raw and frees them with the allocator's raw deleter.
TEST_F(Pool, RawBlocksLargeOrSmallAreFreedByItsRawDeleter) {
  void* large = pool.raw_allocate(4 * kMiB);
  void* small = pool.raw_allocate(1000);
  pool.raw_deallocate(large);
  pool.raw_deallocate(small);
  EXPECT_EQ(pool.counts().kept_bytes, 4 * kMiB);
}

// A run's result held (its maps), the run's own blocks freed: a block like the held one, with
// room for an eighth more, is made ready, its pages in, and the next run's request a little larger
// takes it without faults.
TEST_F(Pool, BlocksLikeThoseHeldSinceAMarkAreMadeReadyWithTheirPages) {
  const uint64_t since = pool.mark();
  c10::DataPtr held = pool.allocate(8 * kMiB);
  { c10::DataPtr own = pool.allocate(8 * kMiB); }  // freed in the run: its next run's same step
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 9 * kMiB);
  EXPECT_EQ(pool.counts().prepared, 1u);
  EXPECT_EQ(pool.counts().kept_bytes, 17 * kMiB);
  c10::DataPtr step = pool.allocate(8 * kMiB), next = pool.allocate(8 * kMiB + kMiB / 2);
  EXPECT_EQ(pool.counts().mapped, 2u) << "both from kept blocks";
  EXPECT_EQ(pool.counts().grown, 0u) << "the prepared block has room for it";
  if (!host_memory_pool_available()) return;  // AddressSanitizer faults in the shadow of a grown block
  EXPECT_LT(faults_to_fill(next.get(), 8 * kMiB + kMiB / 2), 50) << "the prepared block's pages were in";
}

TEST_F(Pool, ABlockKeptFromBeforeTheMarkServesAHeldOneOneFreedSinceDoesNot) {
  {
    c10::DataPtr a = pool.allocate(8 * kMiB), b = pool.allocate(8 * kMiB);  // the result shown before, freed
  }
  const uint64_t since = pool.mark();
  c10::DataPtr held = pool.allocate(7 * kMiB);  // takes one: the other is spare, with room
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 0u);
  { c10::DataPtr own = pool.allocate(8 * kMiB); }  // takes the spare one, freed in the run
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 7 * kMiB + 7 * kMiB / 8)
      << "a block of the run is no spare";
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 0u) << "the one prepared serves it";
  EXPECT_EQ(pool.counts().prepared, 1u);
  EXPECT_EQ(pool.counts().mapped, 2u);
}

// Typed on at its end, each run's blocks are a little larger than the last's: a spare block with
// too little room for the next is grown now, its contents and pages kept, the pages added faulted
// in; stopped, it is as it was.
TEST_F(Pool, ASpareALittleSmallerIsGrownWithRoomForTheNextRun) {
  {
    c10::DataPtr a = pool.allocate(8 * kMiB), b = pool.allocate(8 * kMiB);
    std::memset(a.get(), 7, 8 * kMiB);
    std::memset(b.get(), 7, 8 * kMiB);
  }
  const uint64_t since = pool.mark();
  c10::DataPtr held = pool.allocate(8 * kMiB + kMiB / 4);  // grows one; the other has too little room
  ASSERT_EQ(pool.counts().grown, 1u);
  int looks = 0;
  EXPECT_EQ(pool.prepare_like_held(since, [&] { return ++looks < 2; }), 0u) << "stopped in its first slice";
  EXPECT_EQ(pool.counts().kept_bytes, 8 * kMiB) << "what it added unmapped again";
  const size_t room = (8 * kMiB + kMiB / 4) / 8 * 9;  // page-rounded already
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), room - 8 * kMiB);
  EXPECT_EQ(pool.counts().kept_bytes, room);
  EXPECT_EQ(pool.counts().prepared, 1u);
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 0u) << "it has room now";
  c10::DataPtr next = pool.allocate(8 * kMiB + kMiB / 2);
  EXPECT_EQ(pool.counts().reused, 1u);
  EXPECT_EQ(pool.counts().grown, 1u) << "not grown by the request";
  EXPECT_EQ(static_cast<unsigned char*>(next.get())[8 * kMiB - 1], 7) << "its contents kept";
  if (!host_memory_pool_available()) return;  // AddressSanitizer faults in the shadow of a grown block
  EXPECT_LT(faults_to_fill(next.get(), 8 * kMiB + kMiB / 2), 50) << "its pages, old and added, in";
}

TEST_F(Pool, PreparingStopsWhenAskedAndStaysWithinWhatMayBeKept) {
  const uint64_t since = pool.mark();
  c10::DataPtr held = pool.allocate(40 * kMiB), second = pool.allocate(30 * kMiB);
  EXPECT_EQ(pool.prepare_like_held(since, [] { return false; }), 0u);
  EXPECT_EQ(pool.counts().kept_bytes, 0u);
  int slices = 0;  // a slice is 8 MiB: the 45 MiB block stopped in its third
  EXPECT_EQ(pool.prepare_like_held(since, [&] { return ++slices <= 3; }), 0u);
  EXPECT_EQ(pool.counts().kept_bytes, 0u) << "a block stopped in part is not kept as ready";
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 45 * kMiB) << "made again, with room";
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 0u) << "33.75 MiB more would pass 64";
  pool.keep(false);
  EXPECT_EQ(pool.prepare_like_held(since, [] { return true; }), 0u) << "not keeping: nothing";
}

// What the explorer's edits do: a text's maps freed, then a few tokens longer allocated again.
TEST(HostMemoryPoolInTorch, ATensorALittleLargerThanOneFreedTakesItsPages) {
  if (!host_memory_pool_available()) GTEST_SKIP() << "no pool under AddressSanitizer";
  keep_freed_memory_for_reuse();
  auto map = at::empty({9, 200, 200, 30}, at::kFloat);  // 41 MiB
  map.fill_(1);
  map.reset();
  long faults = minor_faults();
  map = at::empty({9, 202, 202, 30}, at::kFloat);
  map.fill_(2);
  faults = minor_faults() - faults;
  EXPECT_LT(faults, 2000) << "41.9 MiB are 10,700 pages: only the ones added may be new";
  EXPECT_EQ(map.sum().item<double>(), 2.0 * 9 * 202 * 202 * 30);
  return_freed_memory();  // as the other tests of this process expect glibc's heap
}

}  // namespace
}  // namespace attnscope
