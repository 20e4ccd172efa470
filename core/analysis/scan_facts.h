#pragma once
// What the scans for pairs read of a text, as plain arrays: vector<bool> cannot be read in a vector loop.
#include <cstdint>
#include <vector>

#include "analysis/head_stats.h"

namespace attnscope {

struct ScanFacts {
  std::vector<uint8_t> takes;
  std::vector<int32_t> ids, sentence;
  explicit ScanFacts(const TextFacts& f)
      : takes(f.takes_part.begin(), f.takes_part.end()), ids(f.ids), sentence(f.sentence.begin(), f.sentence.end()) {}
};

}  // namespace attnscope
