#include "model/column_sums_before.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "model/reproducible_products.h"

namespace attnscope {

const at::Tensor* ColumnSumsBefore::before(int64_t row) const {
  const auto at = std::find(rows.begin(), rows.end(), row);
  return at == rows.end() ? nullptr : &sums[static_cast<size_t>(at - rows.begin())];
}

int64_t ColumnSumsBefore::last_at_or_before(int64_t row) const {
  const auto after = std::upper_bound(rows.begin(), rows.end(), row);
  return after == rows.begin() ? 0 : *(after - 1);
}

ColumnSumsBefore ColumnSumsBefore::of_text(int64_t b) const {
  ColumnSumsBefore text{block_step, rows, {}};
  for (const at::Tensor& s : sums) text.sums.push_back(s.select(1, b));
  return text;
}

std::vector<int64_t> column_sums_rows(int64_t n, int64_t step, int64_t every) {
  if (n <= 0 || step <= 0 || every <= 0) return {};
  const std::vector<std::pair<int64_t, int64_t>> blocks = row_blocks(n, step);
  const int64_t last = blocks.back().first;
  while (last / every > 8) every *= 2;
  std::vector<int64_t> rows;
  int64_t next = every;  // the next multiple of `every` whose block is wanted
  for (size_t b = 0; b < blocks.size(); ++b) {
    const int64_t first = blocks[b].first, following = b + 1 < blocks.size() ? blocks[b + 1].first : n;
    if (first > 0 && (first == last || (first <= next && following > next))) rows.push_back(first);
    while (next < following) next += every;
  }
  return rows;
}

}  // namespace attnscope
