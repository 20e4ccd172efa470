#pragma once
// High-similarity elements (METHOD.md): S_hat = S / max_{i != j} S_ij over the tokens that take
// part; B_ij = 1 where S_hat_ij >= tau; the pairs are the (i < j) with B_ij = 1. A head whose
// maximum is <= 0 has no high-similarity elements.
//
// One pass over each head's S gives its mask and everything its statistics count, without ever
// building a pair list: a dense head of a 512-token text has a hundred thousand pairs, and only the
// head a view or a command shows needs them listed (list_pairs).
#include <ATen/core/Tensor.h>

#include <vector>

#include "analysis/head_stats.h"
#include "analysis/pair_mask.h"

namespace attnscope {

struct HeadHighSimilarity {
  float scale = 0.0f;  // max_{i != j} S_ij over participating tokens (<= 0: no elements)
  PairMask mask;
  PairCounts counts;
};

// similarity: [K, n, n] with K heads, diagonal already 0; facts: token ids, sentences and who
// takes part (special tokens may be left out). The maxima are taken where the tensors live; the
// scan reads a host copy.
std::vector<HeadHighSimilarity> high_similarity(const at::Tensor& similarity, const TextFacts& facts, double tau);

// The pairs of one head with their S_hat, ordered by (i, j): `similarity` is that head's n x n
// S, row-major on the host.
std::vector<TokenPair> list_pairs(const PairMask& mask, const float* similarity, float scale);

}  // namespace attnscope
