#include "model/reproducible_products.h"

#include <algorithm>
#include <cstdlib>

namespace attnscope {

void ask_for_reproducible_products() {
  // overwrite = 0: a user's own MKL_CBWR (to compare branches, say) is kept.
  setenv("MKL_CBWR", "AUTO,STRICT", 0);
}

int64_t rows_per_block(int64_t row_elements) {
  return std::max(kFewestBlockRows, (int64_t{8} << 20) / std::max<int64_t>(row_elements, 1));
}

std::vector<std::pair<int64_t, int64_t>> row_blocks(int64_t n, int64_t step, int64_t from) {
  step = std::max(step, kFewestBlockRows);
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (int64_t first = from; first < n;) {
    int64_t end = std::min(n, (first / step + 1) * step);
    if (first == from && end - first < kFewestBlockRows) end = std::min(n, end + step);  // a short first piece
    if (n - end < kFewestBlockRows) end = n;                                             // a short rest
    blocks.emplace_back(first, end - first);
    first = end;
  }
  return blocks;
}

}  // namespace attnscope
