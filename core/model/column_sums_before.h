#pragma once
// A decoder's long text's column sums over the rows before a few of its blocks of attention rows:
// where a later forward of a text that shares its first tokens may start making its blocks again
// (ForwardPrefix::column_sums_before). Each layer's column sums are summed block by block in the
// order of the rows, so the sums before a block are the same bits in every run whose blocks before
// it are the same; a text typed on at its end resumes from its last block, an edit in its middle
// from the last of these rows before it.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace attnscope {

struct ColumnSumsBefore {
  int64_t block_step = 0;        // the rows of each block; 0: none kept
  std::vector<int64_t> rows;     // increasing, each a block's first row, none 0
  std::vector<at::Tensor> sums;  // per row r, the sums over rows [0, r): [L, B, H, r] in a batch, [L, H, r] a text's

  bool empty() const { return rows.empty(); }
  // The sums before `row`, or null where none are kept there.
  const at::Tensor* before(int64_t row) const;
  // The last row at or before `row` with sums kept; 0 where none is.
  int64_t last_at_or_before(int64_t row) const;
  // One text's of a batch's (its index b): the same rows, each [L, H, r].
  ColumnSumsBefore of_text(int64_t b) const;
};

// The rows a forward of n tokens in blocks of `step` rows keeps them before: the first row of the
// block holding each multiple of `every` tokens (`every` doubled until at most eight fit before
// the last block: 4 bytes a token a head each), and the last block's first row, where a text typed
// on at its end resumes. 40 MB for SmolLM2 at 8,192 tokens, 42 MB for Gemma 3 at 32,768.
std::vector<int64_t> column_sums_rows(int64_t n, int64_t step, int64_t every = 1024);

}  // namespace attnscope
