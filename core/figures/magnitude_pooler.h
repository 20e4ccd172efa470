#pragma once
// Pools an n x n map to ceil(n / k) x ceil(n / k) cells, each block of k x k keeping its value of
// largest magnitude, with its sign, so that a single strong entry still shows in a thumbnail. The
// map's rows come in order, any number at a time (a long text's in blocks as they are made). A band
// of a map's rows (figures/map_pyramid.h) pools the same way, to ceil(rows / k) x ceil(n / k) cells.
#include <cstdint>
#include <vector>

#include "model/row_span.h"

namespace attnscope {

class MagnitudePooler {
 public:
  // Writes the pooled cells, row-major, to `pooled` (ceil(rows / k) x ceil(n / k) floats, kept by the
  // caller); `rows` (-1: n) is how many rows of n columns will come.
  MagnitudePooler(int64_t n, int64_t k, float* pooled, int64_t rows = -1);
  // The map's next `count` rows, row-major, over the columns `columns` alone (the others zero; a
  // long text's block of rows holds the keys its rows may see): `columns.count` floats a row.
  void add_rows(const float* rows, int64_t count, RowSpan columns);
  void add_rows(const float* rows, int64_t count) { add_rows(rows, count, {0, n_}); }

  // What it holds of the block row its next row falls in: that row, and that block row's rows so
  // far folded into one, column by column.
  struct OpenRow {
    int64_t row = 0;
    std::vector<float> high, low;
  };
  OpenRow open_row() const { return {row_, high_, low_}; }
  // Picks up where a pooler of the same k over a map with the same rows before open.row stopped
  // (open_row(); the cells of the block rows before its own already in `pooled`): a text typed on,
  // whose map has as many columns or more or fewer (each row's columns past its own token zero).
  void resume(const OpenRow& open);

 private:
  void close_block_row(int64_t block);

  int64_t n_, k_, rows_, row_ = 0;
  float* pooled_;
  std::vector<float> high_, low_;  // the open block row folded into one, column by column
};

}  // namespace attnscope
