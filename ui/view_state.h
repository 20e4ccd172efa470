#pragma once
// What the explorer is showing, and the rules for moving through it: the view, the focused layer
// and head, the matrix, colours. Plain data and pure functions, tested without a window.
#include <string>
#include <vector>

#include "figures/colormap.h"
#include "figures/figure_options.h"

namespace attnscope::ui {

enum class View { Grid, Head, Separators, Pairs, Stats, Layers, Lines, Corpus, Compare };
constexpr int kViewCount = 9;

const char* view_name(View view);     // "grid", "head", ... as on the command line
const char* view_title(View view);    // tab title
const char* view_summary(View view);  // the one-line explanation under the tab
const char* view_help(View view);     // what the "?" says, from METHOD.md
// Throws attnscope::Error naming the accepted views.
View view_by_name(const std::string& name);

struct ViewState {
  View view = View::Grid;
  MatrixKind matrix = MatrixKind::Attention;
  int layer = 0, head = 0;     // the focused head
  bool layer_sum = false;      // focus the layer's sum instead of one head
  bool zero_diagonal = false;  // attention shown with its diagonal set to 0
  ColormapId colormap = ColormapId::Viridis;
  ValueScale scale = ValueScale::Clipped;  // shows the structure of attention maps (see ValueScale)
  bool presentation = false;               // large fonts, high contrast, fewer panels
  std::vector<int> layers_shown;           // Fig. 12 / 13 in the Layers view (empty: all)
  std::vector<int> heads_shown;            // more heads of the focused layer in the Lines view, one colour each
  MatrixKind layers_matrix = MatrixKind::Similarity;  // the Layers view's maps (Fig. 12: summed S)
  bool rollout_of_norm = false;                       // rollout through the norm-based layer maps
  bool query_key = false;   // the Head view shows the queries and keys of one token (bertviz's neuron view)
  int query = 0;            // ... of this token
  bool head_roles = false;  // the overview shows the role grid above the thumbnails

  bool operator==(const ViewState&) const = default;
};

enum class Step { NextHead, PreviousHead, NextLayer, PreviousLayer };

// Moves the focus; heads wrap into the next or previous layer, layers stop at the ends.
ViewState stepped(ViewState state, Step step, int layers, int heads);
// Keeps the focus inside a model of this size (after a model change).
ViewState clamped(ViewState state, int layers, int heads);
// The next matrix in attention -> similarity -> cosine -> norm -> rollout -> attention.
MatrixKind next_matrix(MatrixKind kind);
// What a matrix shows and the paper it comes from (the "(?)" of the matrix choice).
const char* matrix_help(MatrixKind kind);
// The figure options the focused view draws with.
FigureOptions figure_options(const ViewState& state);

}  // namespace attnscope::ui
