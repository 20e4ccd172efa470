#pragma once
// Large host tensors kept for reuse, pages and all. An edit in the explorer allocates a text's
// maps and similarities again (a 512-token text on SmolLM2: two blocks of 283 MB and more), a few
// tokens larger each time as the user types on. From glibc's heap those blocks rarely fit the ones
// freed before them (torch aligns each block, and each is a little larger than the last), so the
// heap grows and the kernel faults fresh pages in: on this machine's virtual CPUs 300 to 400 ms
// for 283 MB, a whole typed burst's latency again. Here a freed block is kept mapped; the next
// request takes the smallest kept block that holds it, or grows the largest smaller one in place
// (mremap: only the added pages are new), or maps a new one; blocks like those a result holds can
// be made ready before they are asked for (prepare_like_held). Smaller requests, and every request
// while the pool is not keeping (a long text's run, which returns what it frees), go to the
// allocator it replaced.
#include <c10/core/Allocator.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <vector>

namespace attnscope {

struct HostMemoryPoolOptions {
  size_t smallest = size_t{1} << 20;    // bytes: requests below go to the allocator replaced
  size_t kept_bytes = size_t{2} << 30;  // freed blocks kept, at most this many bytes (oldest unmapped first)
  double largest_waste = 0.5;           // a kept block serves a request at most this share smaller than it
};

class HostMemoryPool final : public c10::Allocator {
 public:
  HostMemoryPool(c10::Allocator* replaced, HostMemoryPoolOptions options);
  c10::DataPtr allocate(size_t bytes) override;
  void copy_data(void* dest, const void* src, size_t count) const override { default_copy_data(dest, src, count); }
  // Torch frees some buffers it allocated raw (at::Allocator::raw_allocate) with this, ours or not.
  c10::DeleterFnPtr raw_deleter() const override { return &free_any; }
  // Keeping (the default) or not: not, requests go to the allocator replaced and every kept block
  // is unmapped, as are blocks given back later.
  void keep(bool keeping);
  // Where the handing out has come to: blocks handed from now on are handed `since` it.
  uint64_t mark() const;
  // Blocks kept ready, their pages faulted in, for a run like the last one (`since` its start). The
  // blocks handed since then and still in use are what its result holds (a text's maps and
  // similarities), which the next run allocates again while that result is shown: the first edit
  // after a text is opened found no kept block for them and faulted every page in (SmolLM2 at 512
  // tokens: 1 to 4 s of its latency), and each edit after it that made the text a few tokens
  // longer grew the blocks it found, their added pages faulted in by the run. For each such block,
  // a block kept from before `since` with room for a run a sixteenth larger serves (the run's own
  // freed blocks serve the next run's same steps); else one a little smaller is grown, or a new
  // one mapped, with room for an eighth more, and the pages added faulted in now, a slice at a
  // time while `keep_going` (what a block stopped in part added is unmapped), within kept_bytes.
  // Returns the bytes made ready.
  size_t prepare_like_held(uint64_t since, const std::function<bool()>& keep_going);
  struct Counts {
    size_t mapped = 0, reused = 0, grown = 0;  // requests served by a new mapping, a kept block, a kept block grown
    size_t prepared = 0;                       // blocks mapped or grown by prepare_like_held
    size_t preparations = 0;                   // prepare_like_held calls returned
    size_t kept_bytes = 0;                     // now
  };
  Counts counts() const;

 private:
  struct Block {
    void* address;
    size_t capacity;
    uint64_t handed = 0;  // the mark it was last handed at (a prepared block: never handed, 0)
  };
  // The kept blocks handed before `since` (or never); the sizes asked of those handed since and in
  // use, largest first (what they hold beyond it would make each preparation's room larger).
  std::vector<Block> kept_before(uint64_t since) const;
  std::vector<size_t> held_since(uint64_t since) const;
  // A block to make ready: a kept one (`spare`) grown to `capacity`, or a new one (spare null).
  struct Readying {
    void* spare;
    size_t capacity;
  };
  // For each of `held`, a block of `spare` ready for it (each serving one), or one to make ready,
  // within `budget` bytes more.
  std::vector<Readying> readying(const std::vector<size_t>& held, std::vector<Block> spare, size_t budget) const;
  // Each makes a block ready, its pages faulted in while `keep_going`, and keeps it; returns the
  // bytes added, 0 where it could not (no memory, the spare taken, stopped).
  size_t map_ready(size_t capacity, const std::function<bool()>& keep_going);
  size_t grow_ready(void* spare, size_t capacity, const std::function<bool()>& keep_going);
  // A block of a pool back to it; anything else to the allocator replaced. Its pointer is its
  // context, as torch's default allocator's is (raw_allocate asks for that).
  static void free_any(void* data);
  void* take(size_t bytes);
  void keep_block(Block block);
  void* taken_or_grown(size_t bytes, size_t& capacity);
  bool serves(size_t capacity, size_t bytes) const;
  c10::Allocator* replaced_;
  HostMemoryPoolOptions o_;
  mutable std::mutex mutex_;
  bool keeping_ = true;
  std::list<Block> kept_;  // oldest first
  uint64_t handed_ = 1;    // blocks handed so far, plus one (0 marks a block never handed)
  Counts counts_;
};

// The process's pool, made torch's CPU allocator on the first call (the default allocator's
// requests below its smallest size), keeping at most an eighth of the machine's memory, 2 GiB at
// most. None under AddressSanitizer, which checks the tensors' memory only where it allocates it
// itself: the calls then do nothing.
void keep_host_tensors_for_reuse(bool keeping);
bool host_memory_pool_available();  // false under AddressSanitizer
// The process's pool's mark(), prepare_like_held() and counts(); 0 where it has none (not made
// yet, or under AddressSanitizer).
uint64_t host_tensors_mark();
size_t prepare_host_tensors_like_held(uint64_t since, const std::function<bool()>& keep_going);
HostMemoryPool::Counts host_tensors_counts();

}  // namespace attnscope
