#pragma once
// High-similarity elements (METHOD.md): S_hat = S / max_{i != j} S_ij over the tokens that take
// part; B_ij = 1 where S_hat_ij >= tau; the pairs are the (i < j) with B_ij = 1. A head whose
// maximum is <= 0 has no high-similarity elements.
//
// One pass over each head's S gives its mask and everything its statistics count, without ever
// building a pair list: a dense head of a 512-token text has a hundred thousand pairs, and only the
// head a view or a command shows needs them listed (list_pairs).
#include <ATen/core/Tensor.h>

#include <functional>
#include <span>
#include <vector>

#include "base/progress.h"
#include "analysis/head_stats.h"
#include "analysis/pair_mask.h"
#include "analysis/pair_mask_budget.h"
#include "analysis/pairs_before.h"

namespace attnscope {

struct HeadHighSimilarity {
  float scale = 0.0f;  // max_{i != j} S_ij over participating tokens (<= 0: no elements)
  PairMask mask;
  PairCounts counts;
};

// Heads [first, first + heads.size()) (layer-major) whose scan has ended, in order, handed over as
// a long text's scan goes on (minutes at 8,192 tokens): what a window shows of its statistics
// before the rest are scanned.
using HeadsScanned = std::function<void(int64_t first, std::span<const HeadHighSimilarity> heads)>;

// similarity: [K, n, n] with K heads, diagonal already 0; facts: token ids, sentences and who
// takes part (special tokens may be left out). The maxima are taken where the tensors live; the
// scan reads a host copy.
std::vector<HeadHighSimilarity> high_similarity(const at::Tensor& similarity, const TextFacts& facts, double tau);

// How high_similarity_in_blocks works: `heads` heads at a time, `rows` query rows each (0: about
// 32 MB of similarities per block, some 128 rows), and what it hands back beside the pairs.
struct InBlocksRun {
  int64_t rows = 0, heads = 0;
  at::Tensor* norms = nullptr;  // given: receives every token's ||c_i|| [K, n], as context_similarity gives them
  // The masks kept, up to this many bytes together (PairMaskBudget); the others left empty, their
  // counts alone made. 0: no mask is made.
  uint64_t mask_bytes = kEveryPairMask;
  ProgressReport progress = {};  // given: the share of heads scanned ("pairs"), after each group
  KeepGoing keep_going = {};     // asked before each group (seconds of work a group at 8,192 tokens)
  // The pairs of each head's cosine matrix S_ij / (||c_i|| ||c_j||) instead of S's, equal to
  // high_similarity of cosine_from_similarity's (a third pass over S takes the norms first).
  bool cosine = false;
  HeadsScanned scanned = {};  // given: each group of heads as its scan ends
  // Given (S's pairs, not cosine's): each head's pairs among the tokens before each of the rows
  // `splits` (ascending: pairs_before_rows) counted apart as well, into *before, for a scan of the
  // same text edited after them (pairs_before.h). Resumed, those at or before the resumed row are
  // kept where `resume` has them (taken, or counted again for a head scanned whole), dropped where not.
  PairsBefore* before = nullptr;
  std::vector<int64_t> splits;
  // Given: what a scan of the same heads before their text was edited left (`before`, cut to the
  // rows before the edit: pairs_before_up_to), whose first resume->row() tokens' head outputs are
  // these to the bit (the caller knows: text_analysis.cpp). The maxima are made over the later rows
  // alone; a head whose scale comes out as the one its earlier pairs were counted with takes them
  // and scans the later rows alone (their pairs with every token), making no mask
  // (TextAnalysis::pair_mask makes it when asked); any other is scanned whole.
  const PairsBefore* resume = nullptr;
};

// The same from the head outputs [K, n, d] alone, never holding an n x n matrix: each head's S
// made block by block of query rows, in two passes, the maxima first. Equal to high_similarity of
// context_similarity's S (a block's products are the whole product's rows to the bit). What a long
// text's analysis runs.
std::vector<HeadHighSimilarity> high_similarity_in_blocks(const at::Tensor& head_outputs, const TextFacts& facts,
                                                          double tau, const InBlocksRun& run = {});

// Rows [first, first + count) of one head's mask made again from its head outputs [n, d] (a long
// text's analysis keeps no mask: TextAnalysis::pair_mask): the bits high_similarity_in_blocks set
// in those rows, by the same products and the same comparison with tau * `scale` (the head's
// HeadHighSimilarity::scale), other rows empty. Never holds more than a block of rows of S.
// `cosine_norms` given ([n], the head's token norms): the rows of its cosine matrix instead.
PairMask pair_rows(const at::Tensor& head_outputs, const TextFacts& facts, double tau, float scale, int64_t first,
                   int64_t count, const at::Tensor& cosine_norms = {});

// One head's high-similarity elements of a lens's map (attention, the norm-based map, rollout;
// [n, n] float32 on the host, left as it is, not made symmetric): what high_similarity finds in
// symmetric_pair_map's matrix of it, found a block of rows at a time, each made symmetric as that
// matrix is, (M_ij + M_ji) / 2 in float, the same bits; never a second n x n matrix. A long
// text's rollout pairs (pipeline/long_text_lens_pairs.h).
HeadHighSimilarity high_similarity_of_map(const at::Tensor& map, const TextFacts& facts, double tau);

// Rows [first, first + count) of that head's mask alone, with `scale` (its HeadHighSimilarity::scale),
// other rows empty: what a long text's lens pairs are made again from when their masks are not
// kept (text_analysis.h).
PairMask map_pair_rows(const at::Tensor& map, const TextFacts& facts, double tau, float scale, int64_t first,
                       int64_t count);

// Which elements of one head's S are its pairs, as the scans decide: i < j, both taking part
// (`takes`, n flags of 0 or 1), S_ij >= static_cast<float>(tau) * scale; none where scale <= 0.
struct PairRule {
  float threshold = 0.0f;
  bool any = false;
  const uint8_t* takes = nullptr;
  PairRule(double tau, float scale, const uint8_t* takes_part)
      : threshold(static_cast<float>(tau) * scale), any(scale > 0), takes(takes_part) {}
};

// The pairs two heads of the same tokens share in rows [first, first + count) (i in those rows),
// from those rows of each one's S ([count, n] row-major, host float32): what count_both of their
// masks counts there, without the masks. A long text's comparison counts them from the rows its
// sums read (compare/text_comparison.h) instead of making each head's mask again.
int64_t pairs_in_both(const float* s_a, const PairRule& a, const float* s_b, const PairRule& b, int64_t first,
                      int64_t count, int64_t n);

// The pairs of one head with their S_hat, ordered by (i, j): `similarity` is that head's n x n
// S, row-major on the host.
std::vector<TokenPair> list_pairs(const PairMask& mask, const float* similarity, float scale);

}  // namespace attnscope
