#pragma once
// A block of query rows of an n x n map: what the forward, the maps made again and the views that
// walk a long text's maps hand each other.
#include <cstdint>

namespace attnscope {

// Query rows [first, first + count) of an n x n map; count < 0: to the last row.
struct RowSpan {
  int64_t first = 0, count = -1;
  int64_t size(int64_t n) const { return count < 0 ? n - first : count; }
};
// The same for columns: keys [first, first + count) of an n x n map (count < 0: to the last key).
using KeySpan = RowSpan;

}  // namespace attnscope
