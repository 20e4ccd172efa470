#pragma once
// Two analysed text runs compared head by head (docs/compare.md): model A and model B on one
// text, or one model on texts A and B. Changes are B - A.
//   - where both runs have the same tokens: the cosine between the attention maps, their largest
//     difference, the relative change of S, the Jaccard index of the pair sets, and (on demand)
//     the difference maps; for a long text (no map or S kept whole) summed over blocks of rows,
//     its maps made again and its S made from its head outputs, never a whole n x n map a head;
//   - always: linear CKA of the head outputs C on the tokens the runs share (token_alignment.h),
//     for the same (layer, head) and within each layer, and the heads of B matched one to one to
//     the heads of A when both have as many heads; the change of every statistic of METHOD.md.
// A result crossing threads is this immutable struct.
#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/text_analysis.h"
#include "base/progress.h"
#include "compare/token_alignment.h"
#include "model/attention_rows.h"

namespace attnscope {

// One analysed run, as compare_texts reads it (nothing is copied).
struct ComparedRun {
  const Encoding& encoding;
  std::string_view text;
  const TextCaptures& captures;
  const TextAnalysis& analysis;
  // A long text's maps (captures.attention undefined), made again a block of rows at a time by its
  // model over the keys the rows may see (model/attention_rows.h); unset, such a run has no
  // attention measures. One thread at a time.
  AttentionBlockRows attention_blocks = {};
};

// B - A of the statistics of one head; nullopt where either side is undefined (no pairs).
struct StatsChange {
  int count = 0;
  std::optional<double> density, repeat_share, same_sentence_share, mean_distance, anchor_share;
  std::optional<bool> same_anchor;  // the anchors are the same token (by vocabulary entry)
};

struct HeadChange {
  double cka = 0.0;  // linear CKA of C_A and C_B of this (layer, head); NaN where undefined
  // Only where the tokens are the same (nullopt otherwise, and for the Jaccard index where
  // neither head has a pair, for the relative change where S_A = 0).
  std::optional<double> attention_cosine, attention_max_difference, similarity_relative_change, jaccard;
  StatsChange stats;

  // The one number of the "what changed" grid: 1 - CKA (0: the head's outputs carry the same
  // geometry; 1: nothing in common). NaN where CKA is undefined.
  double change() const { return 1.0 - cka; }
};

struct CompareSettings {
  // CKA of every pair of heads within a layer and the matching of B's heads to A's: for two models
  // (seeds, fine-tuning). One model on two texts keeps its heads' identity, and compares head h
  // with head h alone (a twelfth of the work for 12 heads).
  bool match_heads = true;
  // A long text's maps summed this many query rows at a time (at least 4); 0: some 32 MB of floats a side.
  int64_t block_rows = 0;
  // Given: the share done (stage "compare"), reported between a long text's layers, whose maps are
  // made again, and between heads whose pair masks are made again (minutes at 8,192 tokens).
  ProgressReport progress = {};
  KeepGoing keep_going = {};  // asked at the same steps: false throws Cancelled
};

struct TextComparison {
  int64_t layers_a = 0, heads_a = 0, layers_b = 0, heads_b = 0;
  int64_t layers = 0, heads = 0;  // the grid both have: min of each
  TokenAlignment alignment;
  std::vector<HeadChange> changes;  // layer-major over the common grid
  // With match_heads: [layers, heads_a, heads_b] float64 CPU, CKA within each common layer; else undefined.
  at::Tensor layer_cka;
  // With match_heads, when both runs have as many layers and heads: matching[l][h] = the head of B
  // matched to head h of A in layer l (max_weight_matching of the layer's CKA; NaN counts as 0).
  std::vector<std::vector<int>> matching;

  const HeadChange& change(int64_t layer, int64_t head) const {
    return changes.at(static_cast<size_t>(layer * heads + head));
  }
  bool same_shape() const { return layers_a == layers_b && heads_a == heads_b; }
  // For models of different shapes, which heads a head-by-head view covers: "the 18 layers x 4 heads
  // both have (A 30 x 9, B 18 x 4)"; empty for one shape.
  std::string shared_grid() const;
};

// Throws attnscope::Error when a run's parts disagree (tokens, captures and analysis), or when
// no token is shared (no measure is defined).
TextComparison compare_texts(const ComparedRun& a, const ComparedRun& b, const CompareSettings& settings = {});

// CKA of every head of A with every head of B, [L_A * H_A, L_B * H_B] float64 CPU (layer-major on
// both sides): where a head of one model lives in another of a different depth. Costs what the
// heads' Gram matrices cost, so it is asked for, not computed by compare_texts.
at::Tensor all_heads_cka(const ComparedRun& a, const ComparedRun& b, const TokenAlignment& alignment);

// |P_A ∩ P_B| / |P_A ∪ P_B| of two heads' pair sets over the same tokens; nullopt when neither has
// a pair. Throws attnscope::Error when the masks are over different numbers of tokens.
std::optional<double> jaccard_index(const PairMask& a, const PairMask& b);
// The same from the counts: the pairs in both sets, in A's, in B's.
std::optional<double> jaccard_of_counts(int64_t both, int64_t a, int64_t b);

enum class ComparedMatrix { Attention, Similarity, Cosine };

// B - A of one head's matrix, [n, n] float32 on the host, computed when a view or a command asks.
// Throws attnscope::Error unless both runs have the same tokens.
at::Tensor difference_map(const ComparedRun& a, const ComparedRun& b, ComparedMatrix matrix, int64_t layer,
                          int64_t head);

}  // namespace attnscope
