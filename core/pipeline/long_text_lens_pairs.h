#pragma once
// A long text's pairs from a lens (AnalysisSettings::pairs_from: attention, the norm-based maps or
// rollout). Its maps are not kept, and the symmetric matrix (M + M^T) / 2 the pairs are found in
// needs M's columns as well as its rows. A decoder's attention and norm-based maps are causal, so
// row j holds every element (i, j), i < j: their pairs are found a block of rows at a time, one
// head at a time, in two passes (analysis/causal_map_pairs.h), holding a block and the head's
// mask. No block of rows gives an encoder's columns, nor a rollout's (R_l is made whole either
// way): each such head's map is made whole again here, a block of rows at a time, made symmetric
// in place (a layer's rollout, which the next layer's reads, symmetric a block of rows at a time
// instead: high_similarity_of_map) and scanned as a short text's is. Either way the pairs equal
// the short path's to the bit. A whole map is one n x n matrix at a time (a layer's rollout two),
// never a layer's maps: 268 MB at 8,192 tokens; past kMostRolloutBytes (some 31,000 tokens,
// rollout's 22,000; a causal map's masks 178,000) it is refused in one line.
#include <ATen/core/Tensor.h>

#include <memory>

#include "analysis/text_analysis.h"
#include "base/progress.h"
#include "model/architecture.h"
#include "model/attention_rows.h"
#include "model/captures.h"

namespace attnscope {

// Makes a text's maps again: fresh AttentionBlockRows at each call (one is not shared between threads).
using AttentionBlocksMaker = std::function<AttentionBlockRows()>;

// What makes a long text's lens maps again: the maker, and the captures it reads (value norms for
// the norm-based maps), shared so that the maps can be made as long as the analysis lives.
struct LensMapsOf {
  AttentionBlocksMaker blocks;
  std::shared_ptr<const TextCaptures> captures;
  int64_t block_rows = 0;  // query rows made again at a time (0: some 32 MB of floats)
};

// One head's whole map of `input` [n, n] float32 on the host: its attention, its norm-based map,
// or the rollout after its layer (the same for every head of a layer).
at::Tensor long_text_lens_map(const LensMapsOf& of, PairInput input, int64_t layer, int64_t head);

// What the scan of a long text's lens pairs is told and tells as it goes.
struct LensPairsScan {
  KeepGoing keep_going = {};     // asked between heads (false throws Cancelled)
  ProgressReport progress = {};  // its share of heads ("pairs")
  HeadsScanned scanned = {};     // each head as it ends (a layer's heads together for rollout)
  // Attention's and the norm-based maps' masks kept up to this many bytes together
  // (PairMaskBudget; a dense head's are 4 MB at 8,192 tokens); the others' counts and statistics
  // alone, TextAnalysis::pair_mask makes a head's again from its map. Rollout's are kept either way
  // (its map takes minutes), one a layer, shared by its heads.
  uint64_t mask_bytes = kEveryPairMask;
};

// Every head's high-similarity elements of `input` (layer-major), with their masks (scan.mask_bytes):
// what analyze_text finds in pair_maps(captures, input) of the same text with every map kept.
std::vector<HeadHighSimilarity> long_text_lens_pairs(const LensMapsOf& of, PairInput input, const TextFacts& facts,
                                                     double tau, const LensPairsScan& scan = {});

// What the lens pairs of a text of n tokens hold at once (of a model whose attention runs in
// `direction`), and the one-line refusal past the most they may (kMostRolloutBytes).
double long_text_lens_pairs_bytes(PairInput input, int64_t n, AttentionDirection direction = AttentionDirection::Both);
void require_long_text_lens_pairs_fit(PairInput input, int64_t n,
                                      AttentionDirection direction = AttentionDirection::Both);

// A long text's analysis run (its similarity in blocks) made to find its pairs in a lens: sets
// run.lens_pairs and run.pair_map, and run.pair_map_rows where its maps are causal. Nothing where
// the pairs come from S or its cosine.
void find_long_text_pairs_in_lens(AnalysisRun& run, const LensMapsOf& of, PairInput input);

}  // namespace attnscope
