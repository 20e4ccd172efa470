#pragma once
// The pairs of a causal map (a decoder's attention or norm-based map) found without the map whole.
// Row i of such a map weighs no key after i, so the element (i, j), i < j, of the symmetric matrix
// the pairs are found in, (M_ij + M_ji) / 2, is (0 + M_ji) / 2: row j alone holds it. A head's map
// handed out a block of rows at a time, first to last, gives its pairs in two passes (the scale,
// then the elements at or above tau times it): the bits of high_similarity of symmetric_pair_map's
// matrix, holding a block of rows and the mask's bits (n^2 / 16 bytes) where the whole map takes
// n^2 x 4 (at 32,768 tokens 64 MB against 4.3 GB).
#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "analysis/head_stats.h"
#include "analysis/high_similarity.h"
#include "analysis/pair_mask.h"
#include "model/row_span.h"

namespace attnscope {

// (M_ij + M_ji) / 2 at i < j where M_ij is exactly 0: symmetric_pair_map's sum and halving, so its bits.
inline float symmetric_of_lower(float m_ji) { return (0.0f + m_ji) * 0.5f; }

// Rows of a head's map over the keys they hold: values [rows.count, keys.count] float32 on the
// host, contiguous; every other key of those rows weighs exactly 0.
struct HeldMapRows {
  RowSpan rows;  // count given
  KeySpan keys;  // count given
  at::Tensor values;
};

// Hands a head's map out a block of rows at a time, from row 0 to the last, while `each` returns true.
using MapRowsVisitor = std::function<bool(const HeldMapRows&)>;
using CausalMapRows = std::function<void(const MapRowsVisitor& each)>;
// The same of any head of a text (a long decoder text's lens maps: pipeline/long_text_lens_pairs.h).
using HeadCausalMapRows = std::function<void(int64_t layer, int64_t head, const MapRowsVisitor& each)>;

// One head's high-similarity elements of a causal map of n tokens, its mask included: what
// high_similarity finds in symmetric_pair_map of the map whole, to the bit.
HeadHighSimilarity causal_map_high_similarity(const CausalMapRows& map, int64_t n, const TextFacts& facts, double tau);

// The second pass alone: the head's mask with its scale (HeadHighSimilarity::scale) known.
PairMask causal_map_pair_mask(const CausalMapRows& map, int64_t n, const TextFacts& facts, double tau, float scale);

// Sets each pair's value (M_ij + M_ji) / 2 / scale with the float operations of
// pairs_valued_from_map, reading the rows up to the last pair's alone.
void value_causal_map_pairs(const CausalMapRows& map, float scale, std::vector<TokenPair>& pairs);

}  // namespace attnscope
