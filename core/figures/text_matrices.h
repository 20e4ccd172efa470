#pragma once
// The matrices of one analysed text that figures and views draw: a head's (or a layer's) map of
// each kind (attention, S, cosine, the lenses' maps from analysis/lens_maps.h), the kinds' titles,
// and the token labels and checked options every text figure starts from.
#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/attention_rollout.h"
#include "base/progress.h"
#include "analysis/text_analysis.h"
#include "figures/figure_options.h"
#include "model/attention_rows.h"
#include "model/captures.h"
#include "tokenizer/encoding.h"

namespace attnscope {

// A long text's rollout after one layer, made beforehand (long_text_rollouts): its maps are never
// whole, and R_layer takes `layer` products of n x n matrices (minutes at 8,192 tokens), too long
// for a view to make while it draws.
struct KeptRollout {
  int layer = 0;
  bool of_norm = false;  // through the norm-based layer maps
  at::Tensor matrix;     // [n, n] float32 on the host
};

// One analysed text, as the explorer and the command line hold it.
struct AnalyzedTextView {
  const Encoding& encoding;
  const TextCaptures& captures;  // on the host
  const TextAnalysis& analysis;  // on the host
  // A long text's maps (captures.attention undefined): recomputed from its queries and keys by the
  // model that ran it. Unset: the text's maps are read from its captures, or are not to be had.
  AttentionRows attention_rows = {};
  // The same as blocks over the keys their rows may see (a head's map pooled for a view), the two
  // sharing one layout of the queries and keys; set with attention_rows by analyzed_text_view.
  AttentionBlockRows attention_blocks = {};
  // A long text's rollouts made beforehand (one lens, each after its layer): map_rows reads the one
  // of its layer, head_map_source the one of its layer and lens (another is refused in one line);
  // head_matrix makes any other.
  std::vector<KeptRollout> rollouts = {};

  bool keeps_maps() const { return captures.attention.defined(); }
  // The kept rollout after `layer` through this lens, or null.
  const KeptRollout* rollout_of(int layer, bool of_norm) const;
  // The kept rollout after `layer`, through the lens it was made by (map_rows': the caller's).
  const KeptRollout* rollout_after(int layer) const;
};

// What making a long text's rollout reports: the share of its layers done (stage "rollout"), and
// whether to go on (asked between blocks of rows; false throws Cancelled).
struct RolloutControl {
  ProgressReport progress = {};
  KeepGoing keep_going = {};
};
// A long text's rollouts after each of `layers` (each once, ascending), made in one pass up to the
// last of them, its layer maps made again a block of rows at a time (analysis/attention_rollout.h:
// two n x n matrices worked in, `last` products of n^3), the others kept as the pass goes by.
// Refused in one line when what they hold would pass kMostRolloutBytes, saying how many fit.
std::vector<KeptRollout> long_text_rollouts(const AnalyzedTextView& text, const std::vector<int>& layers, bool of_norm,
                                            const RolloutControl& control = {});
// The rollout after one layer (the Head view's).
KeptRollout long_text_rollout(const AnalyzedTextView& text, int layer, bool of_norm,
                              const RolloutControl& control = {});

// The view of a text analysed by `model`: a long text's maps made again by it (null: not to be
// had). Both must outlive the view, which is for one thread at a time (AttentionRows).
AnalyzedTextView analyzed_text_view(const Encoding& encoding, const TextCaptures& captures,
                                    const TextAnalysis& analysis, const Transformer* model);
// The same with the maps made again from how the model makes them (a result file's, without its
// weights: results/opened_text_run.h).
AnalyzedTextView analyzed_text_view(const Encoding& encoding, const TextCaptures& captures,
                                    const TextAnalysis& analysis, const AttentionScores* scores);

const char* matrix_title(MatrixKind kind);   // "attention A", "similarity S", ...
const char* matrix_symbol(MatrixKind kind);  // "A_ij", "S_ij", ... (a colorbar's label)

// A head's matrix (head -1: the layer's sum), n x n row-major float on the host.
// `rollout_of_norm`: rollout through the norm-based layer maps (docs/lenses.md) instead of the mean attention.
std::vector<float> head_matrix(const AnalyzedTextView& text, int layer, int head, MatrixKind kind,
                               bool rollout_of_norm = false);
// [heads, rows, n] float32 on the host: query rows `rows` of one head's map of one kind (heads 1)
// or of every head's (head -1, heads H), read from the maps a text keeps or made again for a long
// text (attention: AnalyzedTextView::attention_rows; S and cosine: from the head outputs its
// analysis keeps; the norm-based lens: attention rows and the kept value norms), equal to the bit
// either way. A long text's rollout is its kept one's rows (AnalyzedTextView::rollout, the lens the
// caller's), for each head; without it, refused in one line.
at::Tensor head_rows(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, RowSpan rows);
// [rows, n]: the same rows of the layer's own map, from `heads` (head_rows of every head): their
// sum, or the norm-based layer map (layer_own_map's rows, to the bit).
at::Tensor layer_rows(const AnalyzedTextView& text, int layer, MatrixKind kind, const at::Tensor& heads, RowSpan rows);
// [rows, n]: rows `rows` of one head's map of one kind, or (head -1) of its layer's own map, as head_matrix has
// them, made from a block of rows for a long text.
at::Tensor map_rows(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, RowSpan rows);
// The rows of the layer maps M_l a long text's rollout is made from (analysis/attention_rollout.h):
// the mean of the layer's recomputed attention, or its norm-based layer map.
LayerMapRows rollout_layer_rows(const AnalyzedTextView& text, bool rollout_of_norm);
// [H, n, n]: every head's map of one kind in one layer (rollout: the layer's map for each head).
at::Tensor layer_head_maps(const AnalyzedTextView& text, int layer, MatrixKind kind, bool rollout_of_norm);
// [n, n]: the layer's own map: the sum of its heads' (`heads`, from layer_head_maps), the norm-based layer map, or the
// rollout.
at::Tensor layer_own_map(const AnalyzedTextView& text, int layer, MatrixKind kind, const at::Tensor& heads);

std::vector<std::string> token_labels(const Encoding& encoding);

// Resolves layer -1 to the last layer and checks ranges; throws attnscope::Error.
FigureOptions resolved(const FigureOptions& options, const TextAnalysis& analysis);

// The matrix whose high elements are the pairs (AnalysisSettings::pairs_from), as a shown matrix;
// a map of it outlines the pairs, as maps of S and cosine always do.
MatrixKind pairs_matrix(PairInput from);

}  // namespace attnscope
