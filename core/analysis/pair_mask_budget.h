#pragma once
// How much of a long text's pair masks its analysis keeps. A long text's analysis makes each
// head's mask as its scan goes; a mask is kept while the masks kept before it and itself take at
// most the budget's bytes (PairMask::stored_bytes: a trained model's heads, whose masks are mostly
// empty chunks, take little; a dense head takes up to n^2 / 16 bytes), and dropped past it, its
// count kept: TextAnalysis::pair_mask then makes that head's again when a view asks. A head that
// does not fit leaves the budget to the heads after it that do (heads are scanned in layer-major
// order: which are kept does not hang on threads).
#include <cstdint>
#include <limits>

#include "analysis/pair_mask.h"

namespace attnscope {

// Bytes of masks: every mask kept, whatever it takes (a result file writes them all).
inline constexpr uint64_t kEveryPairMask = std::numeric_limits<uint64_t>::max();

class PairMaskBudget {
 public:
  explicit PairMaskBudget(uint64_t bytes) : left_(bytes) {}
  // Whether a scan should make masks at all (a budget of 0 keeps none).
  bool any() const { return left_ > 0; }
  // Keeps `mask` (true), its bytes counted, where they fit in what is left; else empties it.
  bool keep(PairMask& mask) {
    const uint64_t bytes = mask.stored_bytes();
    if (bytes <= left_) {
      if (left_ != kEveryPairMask) left_ -= bytes;
      return true;
    }
    mask = PairMask();
    return false;
  }

 private:
  uint64_t left_;
};

}  // namespace attnscope
