#include "view_state.h"

#include <algorithm>

#include "base/error.h"

namespace attnscope::ui {
namespace {

struct ViewText {
  View view;
  const char* name;
  const char* title;
  const char* summary;
  const char* help;
};

const ViewText kViews[kViewCount] = {
    {View::Grid, "grid", "Overview",
     "Every layer and head at a glance; the last column sums each layer. Click a map to focus it.",
     "Thumbnails of one matrix for every head: the attention map A (row i: the querying token, column j: the attended "
     "token; rows sum to 1), the context similarity S = C C^T of the head's output vectors C = A V with its diagonal "
     "set to 0, or the cosine similarity S_ij / (|c_i| |c_j|). The extra column is the sum over the layer's heads."},
    {View::Head, "head", "Head",
     "One head's matrix in detail: hover for values, Ctrl + wheel to zoom, outlines mark S_hat >= tau.",
     "The focused head's matrix with the tokens on both axes. S is signed, so it uses a diverging colormap centred at "
     "0. "
     "Outlined cells are the high-similarity elements: S_hat = S / max_{i != j} S_ij >= tau (METHOD.md), or the pairs "
     "of the "
     "matrix chosen in \"pairs from\" (Pairs view)."},
    {View::Separators, "separators", "Separators",
     "Fig. 5: attention, similarity, the separator mask and block averages.",
     "Column attention a_j = sum_i A_ij of the head's own map, divided by its maximum; tokens with a_hat_j >= tau_sep "
     "are "
     "separators. The mask marks their rows and columns; the separators cut the text into segments, and the last panel "
     "shows the mean of S over each pair of segments (i != j)."},
    {View::Pairs, "pairs", "Pairs",
     "Fig. 9: the pairs the focused head binds together, and where they sit in the text.",
     "Pairs (i < j) with S_hat_ij >= tau (or of another matrix, chosen in \"pairs from\"). Tokens taking part are "
     "coloured one "
     "colour per token value. Hover a row to light the pair in the text and in the similarity map."},
    {View::Stats, "stats", "Statistics", "Fig. 6, 7, 8, 11 for this text: per head of the focused layer.",
     "Repeat share: pairs of the same token id. Same-sentence share beside its chance level (the share of all pairs in "
     "one "
     "sentence). Anchor: the token in most pairs, with its share. Mean distance j - i and the focused head's distance "
     "histogram. A head without pairs shows n/a, never 0."},
    {View::Layers, "layers", "Layers", "Fig. 12 and 13: summed similarity and pair distances, layer by layer.",
     "The sum of S over a layer's heads (diagonal 0), and the distances j - i of all pairs of the layer's heads "
     "pooled."},
    {View::Lines, "lines", "Lines", "For teaching: who attends to whom. Hover or click a token to see only its lines.",
     "A line from token i (left) to token j (right) whose opacity is A_ij of the focused head (or the mean of the "
     "layer's "
     "heads); tick more heads to see them together, one colour each. Hover a token on the left for the tokens it "
     "attends "
     "to, on the right for the tokens that attend to it; click to keep it. Lines under 0.02 are left out. The view of "
     "bertviz's head view (Vig 2019)."},
    {View::Corpus, "corpus", "Corpus", "Run over many texts, or open a saved run: Fig. 2, 3, 6, 7, 8, 10, 11, 13.",
     "A corpus is cut into windows of N tokens, the model's special ones included ([CLS] ... [SEP], or a "
     "decoder's start token); their attention maps, high-similarity masks and "
     "per-text statistics are accumulated (METHOD.md, Over a corpus). Runs can be cancelled; the result is saved as "
     "JSON "
     "and CSV and can be reopened here."},
    {View::Compare, "compare", "Compare",
     "A beside B, head by head: another model on this text, or this model on another text.",
     "B is another model (a seed, a fine-tuned copy, another architecture) on this text, or this model on another "
     "text. "
     "Side by side: the focused head's matrix in A and in B, and B - A where both have the same tokens. What changed: "
     "one "
     "cell per head, 1 - CKA of the head outputs C (linear CKA, Kornblith et al. 2019, on the tokens both runs share) "
     "and "
     "1 - the cosine of the attention maps. Statistics: Fig. 6, 7, 8, 11 of the focused layer with A's and B's bars. "
     "The measures are defined in docs/compare.md; attnscope-cli compare prints the same numbers."},
};

const ViewText& text(View v) { return kViews[static_cast<int>(v)]; }

}  // namespace

const char* view_name(View v) { return text(v).name; }
const char* view_title(View v) { return text(v).title; }
const char* view_summary(View v) { return text(v).summary; }
const char* view_help(View v) { return text(v).help; }

View view_by_name(const std::string& name) {
  for (const ViewText& t : kViews)
    if (name == t.name) return t.view;
  throw Error("unknown view \"" + name +
              "\": expected grid, head, separators, pairs, stats, layers, lines, corpus or compare");
}

ViewState stepped(ViewState s, Step step, int layers, int heads) {
  s = clamped(s, layers, heads);
  switch (step) {
    case Step::NextHead:
      if (s.head + 1 < heads)
        ++s.head;
      else if (s.layer + 1 < layers) {
        ++s.layer;
        s.head = 0;
        s.layer_sum = false;
      }
      break;
    case Step::PreviousHead:
      if (s.head > 0)
        --s.head;
      else if (s.layer > 0) {
        --s.layer;
        s.head = heads - 1;
        s.layer_sum = false;
      }
      break;
    case Step::NextLayer: s.layer = std::min(layers - 1, s.layer + 1); break;
    case Step::PreviousLayer: s.layer = std::max(0, s.layer - 1); break;
  }
  return s;
}

ViewState clamped(ViewState s, int layers, int heads) {
  s.layer = std::clamp(s.layer, 0, std::max(0, layers - 1));
  s.head = std::clamp(s.head, 0, std::max(0, heads - 1));
  std::erase_if(s.layers_shown, [layers](int l) { return l < 0 || l >= layers; });
  std::erase_if(s.heads_shown, [heads](int h) { return h < 0 || h >= heads; });
  return s;
}

MatrixKind next_matrix(MatrixKind k) { return static_cast<MatrixKind>((static_cast<int>(k) + 1) % kMatrixKinds); }

const char* matrix_help(MatrixKind k) {
  switch (k) {
    case MatrixKind::Attention:
      return "The attention map A: row i the querying token, column j the attended one; rows sum to 1.";
    case MatrixKind::Similarity:
      return "S = C C^T of the head's output vectors C = A V, diagonal 0 (Halevi et al. 2026, the paper this tool "
             "implements).";
    case MatrixKind::Cosine:
      return "S_ij / (|c_i| |c_j|): the direction of the head's output vectors without their size.";
    case MatrixKind::Norm:
      return "Norm-based attention (Kobayashi et al. 2020): A_ij |f(x_j)|, attention weighted by the size of what the "
             "head moves "
             "from token j (f(x_j) = v_j W_O of the head). A layer's map is |sum_h A^h_ij f_h(x_j)|.";
    case MatrixKind::Rollout:
      return "Attention rollout (Abnar and Zuidema 2020): R_l = Ahat_l R_(l-1), Ahat = rows of (mean of the layer's "
             "heads + I) "
             "normalised; how much each token after layer l draws on each input token. One map per layer.";
  }
  return "";
}

FigureOptions figure_options(const ViewState& s) {
  FigureOptions o;
  o.layer = s.layer;
  o.head = s.layer_sum ? -1 : s.head;
  o.layers = s.layers_shown;
  o.layer_matrix = s.layers_matrix;
  o.rollout_of_norm = s.rollout_of_norm;
  o.query_key = s.query_key;
  o.query = s.query;
  if (!s.heads_shown.empty() && !s.layer_sum) {  // the focused head and the ticked ones, in order
    o.heads = s.heads_shown;
    if (std::find(o.heads.begin(), o.heads.end(), s.head) == o.heads.end()) o.heads.push_back(s.head);
    std::sort(o.heads.begin(), o.heads.end());
  }
  o.matrix = s.matrix;
  o.colormap = s.presentation ? ColormapId::HighContrast : s.colormap;
  o.scale = s.scale;
  o.zero_diagonal = s.zero_diagonal;
  return o;
}

}  // namespace attnscope::ui
