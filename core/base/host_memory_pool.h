#pragma once
// Large host tensors kept for reuse, pages and all. An edit in the explorer allocates a text's
// maps and similarities again (a 512-token text on SmolLM2: two blocks of 283 MB and more), a few
// tokens larger each time as the user types on. From glibc's heap those blocks rarely fit the ones
// freed before them (torch aligns each block, and each is a little larger than the last), so the
// heap grows and the kernel faults fresh pages in: on this machine's virtual CPUs 300 to 400 ms
// for 283 MB, a whole typed burst's latency again. Here a freed block is kept mapped; the next
// request takes the smallest kept block that holds it, or grows the largest smaller one in place
// (mremap: only the added pages are new), or maps a new one. Smaller requests, and every request
// while the pool is not keeping (a long text's run, which returns what it frees), go to the
// allocator it replaced.
#include <c10/core/Allocator.h>

#include <cstddef>
#include <list>
#include <mutex>

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
  struct Counts {
    size_t mapped = 0, reused = 0, grown = 0;  // requests served by a new mapping, a kept block, a kept block grown
    size_t kept_bytes = 0;                     // now
  };
  Counts counts() const;

 private:
  struct Block {
    void* address;
    size_t capacity;
  };
  // A block of a pool back to it; anything else to the allocator replaced. Its pointer is its
  // context, as torch's default allocator's is (raw_allocate asks for that).
  static void free_any(void* data);
  void* take(size_t bytes);
  void keep_block(void* address, size_t capacity);
  void* taken_or_grown(size_t bytes, size_t& capacity);
  c10::Allocator* replaced_;
  HostMemoryPoolOptions o_;
  mutable std::mutex mutex_;
  bool keeping_ = true;
  std::list<Block> kept_;  // oldest first
  Counts counts_;
};

// The process's pool, made torch's CPU allocator on the first call (the default allocator's
// requests below its smallest size), keeping at most an eighth of the machine's memory, 2 GiB at
// most. None under AddressSanitizer, which checks the tensors' memory only where it allocates it
// itself: the calls then do nothing.
void keep_host_tensors_for_reuse(bool keeping);
bool host_memory_pool_available();  // false under AddressSanitizer

}  // namespace attnscope
