#include "analysis/made_pair_masks.h"

namespace attnscope {

std::optional<PairMask> MadePairMasks::find(int64_t layer, int64_t head) const {
  std::lock_guard<std::mutex> lock(kept_mutex_);
  for (const Made& m : kept_)
    if (m.layer == layer && m.head == head) return m.mask;
  return std::nullopt;
}

void MadePairMasks::keep(int64_t layer, int64_t head, const PairMask& mask) {
  std::lock_guard<std::mutex> lock(kept_mutex_);
  std::erase_if(kept_, [&](const Made& m) { return m.layer == layer && m.head == head; });
  kept_.push_front({layer, head, mask});
  size_t bytes = 0, kept = 0;
  for (const Made& m : kept_) {
    bytes += m.mask.stored_bytes();
    if (kept > 0 && bytes > kept_bytes_) break;
    ++kept;
  }
  kept_.resize(kept);
}

}  // namespace attnscope
