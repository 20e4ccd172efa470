#include "figures/magnitude_pooler.h"

#include <algorithm>

namespace attnscope {

MagnitudePooler::MagnitudePooler(int64_t n, int64_t k, float* pooled, int64_t rows)
    : n_(n),
      k_(k),
      rows_(rows < 0 ? n : rows),
      pooled_(pooled),
      high_(static_cast<size_t>(n)),
      low_(static_cast<size_t>(n)) {}

// A plain loop over the rows: tensor reductions over such small blocks measured several times
// slower. A column left out is zero, which pools as the zero each block row starts from.
void MagnitudePooler::add_rows(const float* rows, int64_t count, RowSpan columns) {
  const int64_t first = columns.first, width = columns.size(n_);
  if (k_ == 1) {  // nothing to pool
    for (int64_t r = 0; r < count; ++r, ++row_) {
      float* out = pooled_ + row_ * n_;
      if (width < n_) std::fill(out, out + n_, 0.0f);  // a short text's rows hold every column
      std::copy(rows + r * width, rows + (r + 1) * width, out + first);
    }
    return;
  }
  for (int64_t r = 0; r < count; ++r, ++row_) {
    if (row_ % k_ == 0) {  // a new block row: the zero of the padding, as at the ragged edge
      std::fill(high_.begin(), high_.end(), 0.0f);
      std::fill(low_.begin(), low_.end(), 0.0f);
    }
    // The block's rows folded into one, column by column (a vector loop), then its k columns.
    const float* row = rows + r * width;
    float* high = high_.data() + first;
    float* low = low_.data() + first;
    for (int64_t j = 0; j < width; ++j) {
      high[j] = std::max(high[j], row[j]);
      low[j] = std::min(low[j], row[j]);
    }
    if ((row_ + 1) % k_ == 0 || row_ + 1 == rows_) close_block_row(row_ / k_);
  }
}

void MagnitudePooler::resume(const OpenRow& open) {
  row_ = open.row;
  const auto columns = static_cast<std::ptrdiff_t>(std::min(high_.size(), open.high.size()));
  std::copy(open.high.begin(), open.high.begin() + columns, high_.begin());
  std::copy(open.low.begin(), open.low.begin() + columns, low_.begin());
}

void MagnitudePooler::close_block_row(int64_t block) {
  const int64_t cells = (n_ + k_ - 1) / k_;
  float* out = pooled_ + block * cells;
  int64_t c = 0;
  // Pairs of columns (every overview up to twice its cells in tokens, 128 tokens and fewer) in a
  // loop of fixed shape, which the compiler makes a vector loop: cell by cell, the loop over a
  // block's columns took most of the overview's time at 128 tokens.
  if (k_ == 2)
    for (; c < n_ / 2; ++c) {
      const float hi = std::max(high_[2 * c], high_[2 * c + 1]), lo = std::min(low_[2 * c], low_[2 * c + 1]);
      out[c] = hi >= -lo ? hi : lo;
    }
  for (; c < cells; ++c) {
    float hi = 0, lo = 0;
    for (int64_t j = c * k_; j < std::min(n_, (c + 1) * k_); ++j) {
      hi = std::max(hi, high_[j]);
      lo = std::min(lo, low_[j]);
    }
    out[c] = hi >= -lo ? hi : lo;
  }
}

}  // namespace attnscope
