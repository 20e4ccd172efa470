#include "base/host_memory_pool.h"

#include <c10/core/CPUAllocator.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <vector>

#include "base/address_sanitizer.h"
#include "base/machine_memory.h"

namespace attnscope {
namespace {

// The blocks handed out by every pool, by address: what free_any gives back, and to which pool.
struct Handed {
  HostMemoryPool* pool;
  size_t capacity;
  size_t asked;   // page-rounded: a block taken or grown for a request may hold more
  uint64_t mark;  // the pool's mark when it was handed
};
struct HandedBlocks {
  std::mutex mutex;
  std::unordered_map<void*, Handed> blocks;
  c10::DeleterFnPtr replaced = nullptr;  // the allocator pools replace (torch's default) frees the rest
};
// Never destroyed: tensors may be freed after every static object is.
HandedBlocks& handed() {
  static auto* const blocks = new HandedBlocks;
  return *blocks;
}

size_t page_size() {
  static const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

size_t page_rounded(size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }

// A new private mapping of `bytes`, its pages not yet faulted in; null where there is no memory.
void* map_fresh(size_t bytes) {
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return address == MAP_FAILED ? nullptr : address;
}

void unmap(const std::vector<std::pair<void*, size_t>>& blocks) {
  for (const auto& [address, capacity] : blocks) munmap(address, capacity);
}

// Faults the pages of `bytes` at `address` in, a slice of some milliseconds at a time, while
// `keep_going`, by writing a byte of each. Whether it went through. Measured in the explorer on
// SmolLM2's blocks at 512 tokens (about 500 MB): writing 0.3 s; madvise(MADV_POPULATE_WRITE) 5.1 s,
// and 4.3 s with huge pages asked (MADV_HUGEPAGE), though alone in a small program it took 0.1 s.
bool fault_in(void* address, size_t bytes, const std::function<bool()>& keep_going) {
  constexpr size_t kSlice = size_t{8} << 20;
  const size_t page = page_size();
  auto* const start = static_cast<char*>(address);
  for (size_t done = 0; done < bytes; done += kSlice) {
    if (keep_going && !keep_going()) return false;
    const size_t count = std::min(kSlice, bytes - done);
    auto* const bytes_at = static_cast<volatile char*>(start + done);
    for (size_t i = 0; i < count; i += page) bytes_at[i] = 0;
  }
  return true;
}

}  // namespace

HostMemoryPool::HostMemoryPool(c10::Allocator* replaced, HostMemoryPoolOptions options)
    : replaced_(replaced), o_(options) {
  std::lock_guard lock(handed().mutex);
  handed().replaced = replaced->raw_deleter();
}

c10::DataPtr HostMemoryPool::allocate(size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (bytes < o_.smallest || !keeping_) return replaced_->allocate(bytes);
  }
  void* block = take(page_rounded(bytes));
  if (!block) return replaced_->allocate(bytes);  // no memory to map: the usual allocator's error
  return {block, block, &HostMemoryPool::free_any, c10::Device(c10::DeviceType::CPU)};
}

void* HostMemoryPool::take(size_t bytes) {
  size_t capacity = 0;
  void* address = taken_or_grown(bytes, capacity);
  const bool fresh = !address;
  if (fresh) {
    address = map_fresh(bytes);
    if (!address) return nullptr;
    capacity = bytes;
  }
  uint64_t mark = 0;
  {
    std::lock_guard lock(mutex_);
    if (fresh) ++counts_.mapped;
    mark = handed_++;
  }
  std::lock_guard lock(handed().mutex);
  handed().blocks[address] = {this, capacity, bytes, mark};
  return address;
}

// The smallest kept block that holds `bytes` without wasting more than largest_waste of itself;
// else the largest smaller one, grown (its pages kept, wherever the kernel moves it); else none.
void* HostMemoryPool::taken_or_grown(size_t bytes, size_t& capacity) {
  std::unique_lock lock(mutex_);
  auto fit = kept_.end(), smaller = kept_.end();
  for (auto k = kept_.begin(); k != kept_.end(); ++k) {
    if (k->capacity >= bytes && (fit == kept_.end() || k->capacity < fit->capacity)) fit = k;
    if (k->capacity < bytes && (smaller == kept_.end() || k->capacity > smaller->capacity)) smaller = k;
  }
  if (fit != kept_.end() && serves(fit->capacity, bytes)) {
    capacity = fit->capacity;
    void* address = fit->address;
    counts_.kept_bytes -= capacity;
    ++counts_.reused;
    kept_.erase(fit);
    return address;
  }
  if (smaller == kept_.end()) return nullptr;
  void* address = smaller->address;
  const size_t had = smaller->capacity;
  counts_.kept_bytes -= had;
  kept_.erase(smaller);
  lock.unlock();
  void* grown = mremap(address, had, bytes, MREMAP_MAYMOVE);
  if (grown == MAP_FAILED) {
    munmap(address, had);
    return nullptr;
  }
  capacity = bytes;
  lock.lock();
  ++counts_.grown;
  return grown;
}

void HostMemoryPool::free_any(void* data) {
  Handed block{};
  c10::DeleterFnPtr replaced = nullptr;
  {
    std::lock_guard lock(handed().mutex);
    const auto found = handed().blocks.find(data);
    if (found == handed().blocks.end()) {
      replaced = handed().replaced;
    } else {
      block = found->second;
      handed().blocks.erase(found);
    }
  }
  if (block.pool)
    block.pool->keep_block({data, block.capacity, block.mark});
  else if (replaced)
    replaced(data);
}

bool HostMemoryPool::serves(size_t capacity, size_t bytes) const {
  return capacity >= bytes && static_cast<double>(capacity - bytes) <= o_.largest_waste * capacity;
}

void HostMemoryPool::keep_block(Block block) {
  std::vector<std::pair<void*, size_t>> unmapped;
  {
    std::lock_guard lock(mutex_);
    if (keeping_ && block.capacity <= o_.kept_bytes) {
      kept_.push_back(block);
      counts_.kept_bytes += block.capacity;
    } else {
      unmapped.emplace_back(block.address, block.capacity);
    }
    while (counts_.kept_bytes > o_.kept_bytes) {
      unmapped.emplace_back(kept_.front().address, kept_.front().capacity);
      counts_.kept_bytes -= kept_.front().capacity;
      kept_.pop_front();
    }
  }
  unmap(unmapped);  // outside the lock: unmapping hundreds of megabytes takes milliseconds
}

void HostMemoryPool::keep(bool keeping) {
  std::vector<std::pair<void*, size_t>> unmapped;
  {
    std::lock_guard lock(mutex_);
    keeping_ = keeping;
    if (keeping) return;
    for (const Block& b : kept_) unmapped.emplace_back(b.address, b.capacity);
    kept_.clear();
    counts_.kept_bytes = 0;
  }
  unmap(unmapped);
}

uint64_t HostMemoryPool::mark() const {
  std::lock_guard lock(mutex_);
  return handed_;
}

std::vector<HostMemoryPool::Block> HostMemoryPool::kept_before(uint64_t since) const {
  std::vector<Block> blocks;
  std::lock_guard lock(mutex_);
  for (const Block& b : kept_)
    if (b.handed < since) blocks.push_back(b);
  return blocks;
}

std::vector<size_t> HostMemoryPool::held_since(uint64_t since) const {
  std::vector<size_t> asked;
  std::lock_guard lock(handed().mutex);
  for (const auto& [address, block] : handed().blocks)
    if (block.pool == this && block.mark >= since) asked.push_back(block.asked);
  std::sort(asked.rbegin(), asked.rend());
  return asked;
}

namespace {

// Room made for the next run's request: a text typed on at its end asks each run's blocks a few
// tokens larger than the last's (SmolLM2's maps at 512 tokens: 1 MB more a token). A spare block
// with less room than a sixteenth (some 16 tokens at 512, 4 at 128) is grown to an eighth.
size_t least_room(size_t bytes) { return bytes + bytes / 16; }
size_t room_made(size_t bytes) { return page_rounded(bytes + bytes / 8); }

}  // namespace

std::vector<HostMemoryPool::Readying> HostMemoryPool::readying(const std::vector<size_t>& held,
                                                               std::vector<Block> spare, size_t budget) const {
  const auto ready = [this](size_t capacity, size_t bytes) {
    return capacity >= least_room(bytes) && serves(capacity, bytes);
  };
  const auto growable = [](size_t capacity, size_t bytes) {
    return capacity < least_room(bytes) && capacity >= bytes - bytes / 8;
  };
  std::vector<Readying> plan;
  for (const size_t bytes : held) {  // largest first, each taking the smallest spare block ready for it
    auto fit = spare.end(), grow = spare.end();
    for (auto s = spare.begin(); s != spare.end(); ++s) {
      if (ready(s->capacity, bytes) && (fit == spare.end() || s->capacity < fit->capacity)) fit = s;
      if (growable(s->capacity, bytes) && (grow == spare.end() || s->capacity > grow->capacity)) grow = s;
    }
    if (fit != spare.end()) {
      spare.erase(fit);
      continue;
    }
    const size_t capacity = room_made(bytes);
    const size_t added = grow == spare.end() ? capacity : capacity - grow->capacity;
    if (added > budget) continue;
    budget -= added;
    plan.push_back({grow == spare.end() ? nullptr : grow->address, capacity});
    if (grow != spare.end()) spare.erase(grow);
  }
  return plan;
}

size_t HostMemoryPool::map_ready(size_t capacity, const std::function<bool()>& keep_going) {
  void* address = map_fresh(capacity);
  if (!address) return 0;
  if (!fault_in(address, capacity, keep_going)) {
    // Kept, it would count as ready at the next call: unmapped, that call makes it again.
    munmap(address, capacity);
    return 0;
  }
  keep_block({address, capacity, 0});
  return capacity;
}

size_t HostMemoryPool::grow_ready(void* address, size_t capacity, const std::function<bool()>& keep_going) {
  size_t had = 0;
  {
    std::lock_guard lock(mutex_);
    const auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const Block& b) { return b.address == address; });
    if (kept == kept_.end()) return 0;  // taken since it was chosen
    had = kept->capacity;
    counts_.kept_bytes -= had;
    kept_.erase(kept);
  }
  void* grown = mremap(address, had, capacity, MREMAP_MAYMOVE);
  if (grown == MAP_FAILED) {
    keep_block({address, had, 0});
    return 0;
  }
  if (!fault_in(static_cast<char*>(grown) + had, capacity - had, keep_going)) {
    // As a new block stopped in part: what was added goes again (shrinking stays in place).
    void* shrunk = mremap(grown, capacity, had, 0);
    if (shrunk == MAP_FAILED)
      munmap(grown, capacity);
    else
      keep_block({shrunk, had, 0});
    return 0;
  }
  keep_block({grown, capacity, 0});
  return capacity - had;
}

size_t HostMemoryPool::prepare_like_held(uint64_t since, const std::function<bool()>& keep_going) {
  size_t budget = 0;
  {
    std::lock_guard lock(mutex_);
    if (!keeping_) return 0;
    budget = o_.kept_bytes - counts_.kept_bytes;
  }
  size_t prepared = 0;
  for (const Readying& r : readying(held_since(since), kept_before(since), budget)) {
    if (keep_going && !keep_going()) break;
    const size_t made = r.spare ? grow_ready(r.spare, r.capacity, keep_going) : map_ready(r.capacity, keep_going);
    if (made == 0) break;
    {
      std::lock_guard lock(mutex_);
      ++counts_.prepared;
    }
    prepared += made;
  }
  std::lock_guard lock(mutex_);
  ++counts_.preparations;
  return prepared;
}

HostMemoryPool::Counts HostMemoryPool::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

namespace {

// The process's pool once made (keep_host_tensors_for_reuse), else null.
std::atomic<HostMemoryPool*> process_pool{nullptr};

}  // namespace

void keep_host_tensors_for_reuse(bool keeping) {
#if defined(ATTNSCOPE_ADDRESS_SANITIZER)
  (void)keeping;
#else
  // Made once and never destroyed: tensors may outlive every static object.
  static HostMemoryPool* const pool = [] {
    const auto machine = static_cast<size_t>(physical_memory());
    auto* made = new HostMemoryPool(c10::GetCPUAllocator(), {.kept_bytes = std::min(size_t{2} << 30, machine / 8)});
    c10::SetCPUAllocator(made, 1);  // above the default's priority (0)
    process_pool = made;
    return made;
  }();
  pool->keep(keeping);
#endif
}

uint64_t host_tensors_mark() {
  HostMemoryPool* pool = process_pool;
  return pool ? pool->mark() : 0;
}

size_t prepare_host_tensors_like_held(uint64_t since, const std::function<bool()>& keep_going) {
  HostMemoryPool* pool = process_pool;
  return pool && since > 0 ? pool->prepare_like_held(since, keep_going) : 0;
}

HostMemoryPool::Counts host_tensors_counts() {
  HostMemoryPool* pool = process_pool;
  return pool ? pool->counts() : HostMemoryPool::Counts{};
}

bool host_memory_pool_available() {
#if defined(ATTNSCOPE_ADDRESS_SANITIZER)
  return false;
#else
  return true;
#endif
}

}  // namespace attnscope
