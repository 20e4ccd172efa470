#pragma once
// What a long text's scan for the pairs of S leaves for the scan of the same text edited: each
// head's pairs among its first `row` tokens (i < j < row), counted with the threshold of the head's
// scale, and the largest S_ij among those tokens, at a few rows (checkpoints). A decoder's head
// outputs of a token do not change when text after it changes (c_i mixes the tokens <= i alone),
// and S_ij = <c_i, c_j> is the same bits whichever product makes it, and the same as S_ji (each
// element is summed in one order: model/reproducible_products.h), so none of this changes either:
// the next scan starts from the last checkpoint before the edit, makes the rows of the later
// tokens alone (their pairs with the earlier tokens read from their own rows), and takes these
// counts where a head's scale comes out the same (where it does not, that head is scanned whole).
// The caller checks that those tokens' head outputs are the same bits.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/head_stats.h"

namespace attnscope {

struct HeadPairsBefore {
  float largest = -std::numeric_limits<float>::infinity();  // max S_ij, participants i != j, both < row
  float scale = 0.0f;  // the head's scale in the scan that counted them: their threshold is tau * scale
  PairCounts counts;   // the pairs i < j < row; `row` entries of distances and degrees
};

// One checkpoint: every head's pairs among the first `row` tokens.
struct PairsAt {
  int64_t row = 0;
  std::vector<HeadPairsBefore> heads;  // the scan's heads, in its order
};

struct PairsBefore {
  double tau = 0.0;
  std::vector<PairsAt> at;  // by row, ascending
  at::Tensor norms;         // [K, row()] the tokens' ||c_i||, as the scan takes them
  // The scan that counted these resumed the one before from this row (0: it read every row), its
  // earlier pairs taken in this many heads (the others' scales moved).
  int64_t resumed_from = 0, heads_resumed = 0;
  int64_t row() const { return at.empty() ? 0 : at.back().row; }  // the last checkpoint's
};

// Where a scan of n tokens counts its pairs apart for the next: every `step` rows (doubled until
// at most eight fit below the last), for an edit in the middle, and the last multiple of 64 below
// n (pairs_before_row), so that the scan after a token typed at the end reads 64 to 128 rows and
// the rows typed. Each checkpoint keeps 12 bytes a token a head (SmolLM2 at 8,192 tokens: 119 MB).
std::vector<int64_t> pairs_before_rows(int64_t n, int64_t step = 1024);
int64_t pairs_before_row(int64_t n);

// `p` cut to its checkpoints at or before `rows` (none: no checkpoint), its norms as far as the last.
PairsBefore pairs_before_up_to(const PairsBefore& p, int64_t rows);

// `counts` (of another length) as counts of n tokens: distances and degrees past its own length 0.
PairCounts counts_of_length(const PairCounts& counts, int64_t n);
// a + b, of the same length: the pairs counted in both, each counted in one of them.
void add_counts(PairCounts& a, const PairCounts& b);

}  // namespace attnscope
