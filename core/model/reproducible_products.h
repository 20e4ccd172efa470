#pragma once
// The explorer's forward cuts its products into slices so that a stale run stops soon
// (bert_model.cpp), and its captures must be those of the command line's forward in one piece,
// bit for bit: the same text must show the same pairs in both. MKL does not promise that by
// default: with two threads it splits the inner (summed) dimension of a product whose outputs are
// few, as a slice's are, so a slice of the feed-forward's down projection summed in another order
// (found on torch 2.15's MKL 2024.2; a fixed thread count did not help). MKL's strict conditional
// numerical reproducibility sums every output in one order whatever the threads and the shape.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace attnscope {

// The same holds for a block of rows of a product, equal to those rows of the whole product, but
// only from 4 rows up: MKL multiplies a matrix of 1 to 3 rows by other kernels, which sum in
// another order (measured: blocks of 1 to 3 rows differed from the whole in the last bit, blocks
// of 4 and more never did, on the shapes of every family here). A block is never shorter than
// this unless the whole is.
inline constexpr int64_t kFewestBlockRows = 4;
// And only for products of enough output columns: MKL multiplies a product of fewer than some two
// dozen columns by kernels whose sums hang on the rows beside (measured with AVX2, strict: blocks of
// 4 and more rows of products of 5 to 23 columns differed from the whole in the last bit, of 24 to
// 71 never did). This many leaves a margin for other vector widths, and every real family's key
// projection has it (at least one head of 64).
inline constexpr int64_t kFewestBlockColumns = 64;

// Rows per block when each row holds `row_elements` float32 numbers: about 32 MB a block.
int64_t rows_per_block(int64_t row_elements);
// The same, or `asked` rows where asked (> 0: a test's or a benchmark's blocks).
inline int64_t rows_per_block(int64_t row_elements, int64_t asked) {
  return asked > 0 ? asked : rows_per_block(row_elements);
}

// Rows `from` .. n - 1 cut into blocks (first, count) where the blocks of `step` rows (at least
// kFewestBlockRows) from row 0 start; a piece too short to stand alone, at either end, joins its
// neighbour. From a row inside a block (a continued forward's later rows) the cuts stay where a run
// from row 0 makes them, so each block lies within the blocks made at fixed positions.
std::vector<std::pair<int64_t, int64_t>> row_blocks(int64_t n, int64_t step, int64_t from = 0);

// `rows` rounded up to whole groups of `group` rows (at least one group): blocks of rows that
// start where groups made at fixed positions do (model/context_in_blocks.h, the rollout's).
inline int64_t in_whole_groups(int64_t rows, int64_t group) {
  return (std::max<int64_t>(rows, 1) + group - 1) / group * group;
}

// Asks MKL for strict reproducibility (MKL_CBWR=AUTO,STRICT) unless the user set MKL_CBWR. MKL
// reads it once, at its first call: call this before any product. Other BLAS libraries ignore it.
void ask_for_reproducible_products();

}  // namespace attnscope
