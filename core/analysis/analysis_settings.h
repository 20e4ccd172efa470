#pragma once
// The choices of the paper's analysis (docs METHOD.md), each with the default METHOD.md gives.
#include <iterator>
#include <optional>
#include <string_view>

namespace attnscope {

enum class SentenceMode {
  Punctuation,  // a sentence ends after a run of ".", "!" or "?" tokens (default)
  Segments,     // the segments cut by the separators of `segment_map`
};

// What the column attention of separators is summed from: the attention maps (METHOD.md), or a
// lens of them (docs/lenses.md): the norm-based maps, or each layer's rollout (for all its heads).
enum class SeparatorInput { Attention, Norm, Rollout };

// The matrix whose high elements are a head's pairs: S (METHOD.md), or another view of the head
// (docs/lenses.md): cosine, attention, the norm-based map, or its layer's rollout (the same for all
// its heads). One that is not symmetric is made so, (M + M^T) / 2, before the same threshold.
enum class PairInput { Similarity, Cosine, Attention, Norm, Rollout };
inline constexpr const char* kPairInputNames[] = {"similarity", "cosine", "attention", "norm", "rollout"};
inline const char* pair_input_name(PairInput input) { return kPairInputNames[static_cast<int>(input)]; }
// The PairInput of a name in kPairInputNames; nullopt for any other.
inline std::optional<PairInput> pair_input_by_name(std::string_view name) {
  for (int k = 0; k < static_cast<int>(std::size(kPairInputNames)); ++k)
    if (name == kPairInputNames[k]) return static_cast<PairInput>(k);
  return std::nullopt;
}
// Whether the pairs come from a map of every pair (attention, a lens) rather than from the head
// outputs (S and cosine, made from them).
inline bool pairs_from_a_map(PairInput input) { return input != PairInput::Similarity && input != PairInput::Cosine; }

// Which attention map the column attention of separators is taken from.
struct MapChoice {
  int layer = -1;  // -1: the last layer
  int head = -1;   // -1: the sum of the layer's heads
};

struct AnalysisSettings {
  double tau = 0.3;             // high-similarity threshold on S / max S (the paper's value)
  double tau_sep = 0.5;         // separator threshold on the max-normalised column attention
  bool include_special = true;  // [CLS], [SEP] (and typed specials) take part in S's analysis
  SentenceMode sentences = SentenceMode::Punctuation;
  MapChoice segment_map;  // for segments used by statistics: the last layer's summed map
  // Separators looked for among text tokens only: special tokens ([CLS], [SEP], <s>, ...) are
  // never separators and take no part in max_j a_j. Off by default, as METHOD.md defines them;
  // on, a last layer that attends mostly to [CLS] still shows where the text's own columns are.
  bool separators_text_only = false;
  SeparatorInput separators_from = SeparatorInput::Attention;
  PairInput pairs_from = PairInput::Similarity;
  // Everything on words instead of word pieces (analysis/word_level.h; Clark et al. 2019's maps):
  // the caller turns the run into words (to_words) before the analysis.
  bool words = false;
};

}  // namespace attnscope
