#pragma once
// Everything METHOD.md computes for one text, as one immutable snapshot: per head the context
// similarity, its high-similarity pairs, its separators and statistics; per layer the summed
// similarity, pooled distances and distinct anchors; the text's segments and sentences.
#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <limits>
#include <memory>
#include <vector>

#include "analysis/analysis_settings.h"
#include "analysis/causal_map_pairs.h"
#include "analysis/context_similarity.h"
#include "analysis/head_stats.h"
#include "analysis/high_similarity.h"
#include "analysis/made_pair_masks.h"
#include "analysis/separators.h"
#include "model/captures.h"
#include "model/row_span.h"
#include "tokenizer/encoding.h"

namespace attnscope {

// One head's whole map of a lens, [n, n] float32 on the host, made again when asked (a long text's).
using HeadMapSource = std::function<at::Tensor(int64_t layer, int64_t head)>;

// Every head's high-similarity elements (layer-major) of a long text's lens (the norm-based maps,
// attention, rollout), found by whoever can make its maps again (pipeline/long_text_lens_pairs.h)
// once the analysis knows its tokens' facts; `scanned` handed each head as it ends. Their masks
// are kept up to `mask_bytes` together (AnalysisRun::long_pair_mask_bytes), rollout's always.
using LensPairs = std::function<std::vector<HeadHighSimilarity>(const TextFacts& facts, double tau, uint64_t mask_bytes,
                                                                const HeadsScanned& scanned)>;

struct HeadAnalysis {
  // max_{i != j} S_ij (or of settings.pairs_from's matrix) over participating tokens; <= 0: no pairs
  float scale = 0.0f;
  // S_hat >= tau, i < j (listed with their values by head_pairs); empty (no tokens) where a long
  // text's analysis does not keep it (AnalysisRun::long_pair_mask_bytes): TextAnalysis::pair_mask.
  // A long text's pairs from rollout are always kept (made again, the rollout would take minutes),
  // each layer's one mask shared by its heads' copies.
  PairMask pairs;
  int64_t pair_count = 0;  // |P|, kept or not
  Separators separators;   // from this head's own attention map (the separator view)
  HeadStats stats;
};

struct LayerAnalysis {
  std::vector<int64_t> distance_histogram;  // pooled over the layer's heads
  int distinct_anchors = 0;                 // distinct anchor token ids among its heads (0 .. H)
  Separators separators;                    // from the layer's summed attention map
};

struct TextAnalysis {
  AnalysisSettings settings;
  int64_t num_layers = 0, num_heads = 0, length = 0;
  // [L, H, n, n], [L, H, n]; for a long text (AnalysisRun::similarity_in_blocks) the norms alone,
  // S made from head_outputs when asked.
  ContextSimilarity similarity;
  at::Tensor head_outputs;  // [L, H, n, d] float32, kept only where S is not
  at::Tensor pair_matrix;  // [L, H, n, n] the pairs' symmetric matrix when settings.pairs_from is not S; else undefined
  // A long text's pairs from a lens: one head's map they come from, [n, n], made again when asked
  // (pipeline/long_text_lens_pairs.h; pair_matrix is never whole), for head_pairs' values.
  HeadMapSource pair_map;
  // Set with pair_map where those maps are causal (a decoder's attention and norm-based maps): a
  // head's map a block of rows at a time, from which pair_mask and head_pairs make its mask and
  // values without the map whole (causal_map_pairs.h).
  HeadCausalMapRows pair_map_rows;
  // Set with pair_map where masks are not kept: the masks of the heads a view asked for, made once
  // (pair_mask and head_pairs make those maps one at a time). Shared by the analysis's copies.
  std::shared_ptr<MadePairMasks> made_masks;
  std::vector<HeadAnalysis> heads;  // layer-major: index l * H + h
  std::vector<LayerAnalysis> layers;
  Separators segment_separators;  // from settings.segment_map
  std::vector<Segment> segments;
  TextFacts facts;  // ids, sentences, who takes part, chance level
  // A long text's pairs of S among its first tokens, counted apart for the analysis of the same
  // text edited after them (AnalysisRun::keeps_pairs_before, AnalysisRun::resume); else null.
  std::shared_ptr<const PairsBefore> pairs_before;
  // Set on a long text's analysis so far alone (AnalysisRun::so_far): its first heads (layer-major)
  // scanned for pairs, whose scales, pair counts and statistics are set; the others' are not, and
  // it has no layers, S, head outputs or masks.
  std::optional<int64_t> heads_scanned;

  const HeadAnalysis& head(int64_t layer, int64_t h) const {
    return heads.at(static_cast<size_t>(layer * num_heads + h));
  }
  int sentence_count() const { return facts.sentence.empty() ? 0 : facts.sentence.back() + 1; }
  // [n, n]: the summed similarity of a layer's heads, diagonal 0 (Fig. 12), computed when asked.
  at::Tensor summed_similarity(int64_t layer) const;
  // [n, n]: one head's S, diagonal 0 (a view of the whole, or made from its head outputs).
  at::Tensor head_similarity(int64_t layer, int64_t head) const;
  // One head's pairs as a mask: the one kept, or made again by the scan that found them, the same
  // bits: from its head outputs (high_similarity.h: pair_rows), or a lens's from the head's map made
  // again whole (pair_map, whatever `rows`: map_pair_rows; a causal one's a block of rows at a
  // time: pair_map_rows), once, then kept in made_masks; of `rows` only, the other rows empty. A
  // head with no pairs: its empty mask, nothing made.
  PairMask pair_mask(int64_t layer, int64_t head, RowSpan rows = {}) const;
  // The head's whole mask where it is at hand, kept or made before (made_masks); never made here,
  // so never slow: a window's UI thread asks this, and leaves the making to a job.
  std::optional<PairMask> pair_mask_at_hand(int64_t layer, int64_t head) const;

 private:
  PairMask made_lens_mask(int64_t layer, int64_t head) const;
};

// The high-similarity pairs of one head with their S_hat (or the normalised value of the matrix
// they come from), ordered by (i, j), the first `limit` of them; made when asked (the explorer asks
// for the head it shows), from the head's mask and its matrix (a long text's S a block of rows at a
// time: its head outputs are kept, not S). `made`: the head's whole mask where the caller has made
// it already (TextAnalysis::pair_mask), not to be made again.
std::vector<TokenPair> head_pairs(const TextAnalysis& analysis, int64_t layer, int64_t head,
                                  int64_t limit = std::numeric_limits<int64_t>::max(), const PairMask* made = nullptr);

// Whether head_pairs' values take minutes: a long text's pairs of rollout, valued from the rollout
// after the head's layer made whole again (a product of n x n matrices for each layer before it).
// A window lists such pairs without values (pairs_without_values) until it has that rollout made
// (pairs_valued_from_map), rather than make it a second time.
bool pair_values_are_slow(const TextAnalysis& analysis);
// The first `limit` pairs of one head, ordered by (i, j), their values NaN (not made).
std::vector<TokenPair> pairs_without_values(const TextAnalysis& analysis, int64_t layer, int64_t head, int64_t limit);
// The same of a mask given (TextAnalysis::pair_mask_at_hand).
std::vector<TokenPair> pairs_without_values(const PairMask& mask, int64_t limit);
// A long text's pairs from a lens (TextAnalysis::pair_map), the first `limit` of one head, valued
// from `map`, the head's map as pair_map makes it ([n, n] float32 on the host, left as it is):
// (M_ij + M_ji) / 2 over the head's scale, the same float operations, and so the same bits, as
// symmetric_pair_map and the scan. The explorer passes the rollout its view has made already.
std::vector<TokenPair> pairs_valued_from_map(const TextAnalysis& analysis, int64_t layer, int64_t head,
                                             const at::Tensor& map, int64_t limit);
// The head's mask kept or made before, else made from `map` (as pairs_valued_from_map takes it,
// which is checked) rather than from its map made once more, and kept in made_masks.
PairMask pair_mask_of_map(const TextAnalysis& analysis, int64_t layer, int64_t head, const at::Tensor& map);
// The value of pair (i, j) of a lens map `v` ([n, n], row-major) over the head's scale, as
// symmetric_pair_map makes the matrix and list_pairs divides it: a float sum, halved, then divided.
inline float map_pair_value(const float* v, int64_t n, int64_t i, int64_t j, float scale) {
  return (v[i * n + j] + v[j * n + i]) * 0.5f / scale;
}
// The whole matrix a head's pairs are valued from where the analysis keeps it (the pair matrix, or
// S): [n, n] float32 on the host, contiguous.
at::Tensor kept_pair_values(const TextAnalysis& analysis, int64_t layer, int64_t head);
// Rows [first, first + count) of the matrix a long text's pairs of S (or of its cosine) are valued
// from, made from the head's outputs: [count, n] float32 on the host, contiguous; taken
// pair_value_row_step(n) rows at a time (8 M values).
at::Tensor pair_value_rows(const TextAnalysis& analysis, int64_t layer, int64_t head, int64_t first, int64_t count);
int64_t pair_value_row_step(int64_t n);

// A head's pairs found before (a result file's analysis): what the scan of S would find again.
struct FoundPairs {
  float scale = 0.0f;
  // The head's mask; or none (no tokens) for a long text whose masks are not kept
  // (AnalysisRun::long_pair_mask_bytes), with their count alone: TextAnalysis::pair_mask makes a
  // view's head's again, as after a scan.
  PairMask mask;
  int64_t count = 0;  // pairs in the mask, whether it is given or not
  HeadStats stats;
};

struct AnalysisRun {
  // The analysis is computed where the captures live (the model's device); to_host brings the
  // matrices to the CPU as float32.
  bool to_host = true;
  KeepGoing keep_going = {};  // asked between the analysis's stages, and between groups of heads of a long text's scan
  // Never make every head's S whole: the pairs are found block by block of rows
  // (high_similarity_in_blocks) and S of a head is made when asked. What a long text needs (the
  // TextCaptures overload sets it when the captures hold no maps); pairs then come from S only.
  bool similarity_in_blocks = false;
  // Every head's pairs (layer-major), found before: taken (moved) instead of scanning S, the
  // costly part of a long text's analysis; with pairs of S only. A long text's norms ||c_i|| are
  // then summed directly (the scan takes them from S's diagonal: equal to float rounding), and
  // its masks dropped past what is kept (long_pair_mask_bytes), as the scan's are.
  std::vector<FoundPairs>* found = nullptr;
  // A long text's (similarity_in_blocks) pair masks kept in HeadAnalysis::pairs up to this many
  // bytes together (PairMaskBudget: the first heads that fit). They take up to n^2 / 16 bytes a
  // head (1.1 GB for a ModernBERT-base-sized model at 8,192 tokens, 4.8 GB for Gemma 3 at 32,768;
  // a trained model's far less), and a view reads one head's: one not kept, TextAnalysis::pair_mask
  // makes again (some 0.1 s at 8,192 tokens from S, a lens's map made again 0.7 s). A result file
  // of every head's keeps them all (kEveryPairMask). Masks found before (`found`) are kept up to
  // the same bytes; rollout's always.
  uint64_t long_pair_mask_bytes = 0;
  // A long text's (similarity_in_blocks) pairs from a lens: without it they are refused, since its
  // maps are not whole. Their masks are kept as S's are (rollout's always); pair_map gives
  // head_pairs the values and TextAnalysis::pair_mask the masks not kept.
  LensPairs lens_pairs = {};
  HeadMapSource pair_map = {};
  HeadCausalMapRows pair_map_rows = {};  // where the lens's maps are causal (TextAnalysis::pair_map_rows)
  ProgressReport progress =
      {};  // given: a long text's scan for pairs its share of heads done; a whole text "analysis" begun
  // A long text's pairs of S among its first tokens counted apart as well (TextAnalysis::pairs_before),
  // for the analysis of the same text edited after them: what the explorer's runs keep.
  bool keeps_pairs_before = false;
  int64_t pairs_before_step = 1024;  // the rows they are counted apart at: pairs_before_rows' step (tests take 64)
  // Given with keeps_pairs_before: an analysis of this text before it was edited (its settings,
  // facts, head outputs and pairs_before are read). Where its tokens before one of pairs_before's
  // rows have this text's facts and head outputs to the bit (a decoder's before the edit:
  // text_analysis.cpp checks), each head's pairs among them are taken from the last such row's, not
  // found again (analysis/pairs_before.h).
  const TextAnalysis* resume = nullptr;
  // Given: a long text's analysis so far (TextAnalysis::heads_scanned), each time its scan for pairs
  // ends a group of heads: what a window shows of their statistics while the rest are scanned.
  std::function<void(const TextAnalysis& so_far)> so_far = {};
  // [L, H, n]: the column attention the separators are found in, made before (a long text's from a
  // lens, pipeline/long_text_separators.h); undefined: separator_columns of the captures.
  at::Tensor separator_columns = {};
};

// What AnalysisRun::resume reads of an analysis (its settings, facts, head outputs, shared, and
// pairs_before), the rest left out: what a caller keeps for the next text's analysis. Empty where
// the analysis has no pairs counted apart.
TextAnalysis resume_point(const TextAnalysis& analysis);

// Throws attnscope::Error for settings out of range.
TextAnalysis analyze_text(const Encoding& encoding, const TextCaptures& captures, const AnalysisSettings& settings,
                          const AnalysisRun& run = {});

// [L, H, n]: the column sums a_j the separators are found in, from the maps `input` names (rollout:
// each layer's, for every head of it). Throws attnscope::Error when a lens's captures are missing.
at::Tensor separator_columns(const TextCaptures& captures, SeparatorInput input);

// (M + M^T) / 2 over the last two dimensions, its diagonal 0 (as S's is): the matrix the pairs of
// a map M are found in. Equal to the bit whether M is one head's or every head's.
at::Tensor symmetric_pair_map(const at::Tensor& maps);
// The same of one square map [n, n] in its own memory, tile by tile (`tile` rows and columns):
// each pair of tiles (I, J), (J, I) takes (M_IJ + M_JI^T) / 2 and its transpose, the same sums and
// halves element by element, so the same bits, without a second n x n matrix (a long text's).
void symmetric_pair_map_in_place(at::Tensor& map, int64_t tile = 512);

// [L, H, n, n]: the maps the pairs come from when settings.pairs_from names attention, the
// norm-based maps or rollout (before they are made symmetric); undefined for S and cosine, which
// the analysis makes from the head outputs. Throws attnscope::Error when a lens's captures are missing.
at::Tensor pair_maps(const TextCaptures& captures, PairInput input);

// The same from the only parts of the captures it reads: the head outputs [L, H, n, d] and the
// column attention a_j of every head [L, H, n] (see column_attention), e.g. for a whole batch;
// and `maps` from pair_maps when the pairs come from attention, the norm-based maps or rollout.
TextAnalysis analyze_text(const Encoding& encoding, const at::Tensor& head_outputs, const at::Tensor& column_attention,
                          const AnalysisSettings& settings, const AnalysisRun& run = {}, const at::Tensor& maps = {});

}  // namespace attnscope
