#include "base/host_memory_pool.h"

#include <c10/core/CPUAllocator.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

size_t page_rounded(size_t bytes) {
  static const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

void unmap(const std::vector<std::pair<void*, size_t>>& blocks) {
  for (const auto& [address, capacity] : blocks) munmap(address, capacity);
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
  if (!address) {
    address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED) return nullptr;
    capacity = bytes;
    std::lock_guard lock(mutex_);
    ++counts_.mapped;
  }
  std::lock_guard lock(handed().mutex);
  handed().blocks[address] = {this, capacity};
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
  if (fit != kept_.end() && static_cast<double>(fit->capacity - bytes) <= o_.largest_waste * fit->capacity) {
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
    block.pool->keep_block(data, block.capacity);
  else if (replaced)
    replaced(data);
}

void HostMemoryPool::keep_block(void* address, size_t capacity) {
  std::vector<std::pair<void*, size_t>> unmapped;
  {
    std::lock_guard lock(mutex_);
    if (keeping_ && capacity <= o_.kept_bytes) {
      kept_.push_back({address, capacity});
      counts_.kept_bytes += capacity;
    } else {
      unmapped.emplace_back(address, capacity);
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

HostMemoryPool::Counts HostMemoryPool::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

void keep_host_tensors_for_reuse(bool keeping) {
#if defined(ATTNSCOPE_ADDRESS_SANITIZER)
  (void)keeping;
#else
  // Made once and never destroyed: tensors may outlive every static object.
  static HostMemoryPool* const pool = [] {
    const auto machine = static_cast<size_t>(physical_memory());
    auto* made = new HostMemoryPool(c10::GetCPUAllocator(), {.kept_bytes = std::min(size_t{2} << 30, machine / 8)});
    c10::SetCPUAllocator(made, 1);  // above the default's priority (0)
    return made;
  }();
  pool->keep(keeping);
#endif
}

bool host_memory_pool_available() {
#if defined(ATTNSCOPE_ADDRESS_SANITIZER)
  return false;
#else
  return true;
#endif
}

}  // namespace attnscope
