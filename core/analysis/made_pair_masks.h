#pragma once
// A long text's pairs from attention or the norm-based maps keep masks only up to a budget
// (AnalysisRun::long_pair_mask_bytes): a view's head past them has its mask made again from its whole
// map, n x n floats (268 MB at 8,192 tokens, some 0.7 s). One view asks for the same head's mask
// several times and from several threads (Fig. 9's coloured text, the map's outlines, the table,
// the table's values): those maps are made one at a time, and the last heads' masks kept (a mask
// takes n^2 / 16 bytes at most: 4 MB at 8,192 tokens), so a head's map is made once, and never two
// of them held at once by these callers.
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "analysis/pair_mask.h"

namespace attnscope {

class MadePairMasks {
 public:
  static constexpr size_t kKeptBytes = size_t{64} << 20;
  explicit MadePairMasks(size_t kept_bytes = kKeptBytes) : kept_bytes_(kept_bytes) {}

  // Held while a head's map is made and scanned: whoever asks for another waits.
  std::unique_lock<std::mutex> making() { return std::unique_lock<std::mutex>(making_); }
  // The head's mask if made already; never waits for one being made.
  std::optional<PairMask> find(int64_t layer, int64_t head) const;
  // Kept beside the last ones, the oldest let go past `kept_bytes` in all (the newest always kept).
  void keep(int64_t layer, int64_t head, const PairMask& mask);

 private:
  struct Made {
    int64_t layer = 0, head = 0;
    PairMask mask;
  };
  size_t kept_bytes_;
  std::mutex making_;
  mutable std::mutex kept_mutex_;
  std::deque<Made> kept_;  // newest first
};

}  // namespace attnscope
