#pragma once
// What a user chooses about a figure: which head or layers, which matrix, colours and scale.
// Shared by the explorer's views and `attnscope-cli figure`.
#include <string>
#include <vector>

#include "analysis/strongest_pairs.h"
#include "figures/colormap.h"

namespace attnscope {

enum class MatrixKind {
  Attention,   // A
  Similarity,  // S = C C^T, diagonal 0
  Cosine,      // S_ij / (|c_i| |c_j|)
  Norm,  // A_ij ||f(x_j)||, the layer's ||sum_h A^h_ij f_h(x_j)|| (Kobayashi et al. 2020; needs the lenses' captures)
  Rollout,  // R_l = Ahat_l R_(l-1) (Abnar and Zuidema 2020): one map per layer, shown for each of its heads
};
constexpr int kMatrixKinds = 5;
const char* matrix_name(MatrixKind kind);
// "attention", "similarity", "cosine", "norm", "rollout"; throws attnscope::Error otherwise.
MatrixKind matrix_by_name(const std::string& name);

struct FigureOptions {
  int layer = -1;           // -1: the last layer
  int head = 0;             // -1: the layer's sum
  std::vector<int> layers;  // Fig. 12 and 13: the layers shown side by side (empty: all)
  std::vector<int> heads;   // attention lines: the heads of `layer` drawn together (empty: `head`)
  MatrixKind matrix = MatrixKind::Attention;
  ColormapId colormap = ColormapId::Viridis;  // maps >= 0; signed maps always use the diverging one
  ValueScale scale = ValueScale::Linear;
  bool outline_pairs = true;     // outline the high-similarity elements on S and cosine maps
  bool zero_diagonal = false;    // attention maps: show A with its diagonal set to 0 (S's always is)
  bool rollout_of_norm = false;  // rollout through the layers' norm-based maps instead of their mean attention
  MatrixKind layer_matrix =
      MatrixKind::Similarity;  // Fig. 12's layer maps: summed S (the paper), or another matrix's layer map
  bool query_key = false;      // the head view shows the focused head's queries and keys (query_key_figure.h)
  int query = 0;               // the query/key view: the querying token i
  int key = -1;                // ... and the key j outlined (-1: the one i attends to most)
  // Fig. 9's table of a head with more pairs than it shows: its first in the text (the paper's
  // order), or its strongest, strongest first.
  PairListing pair_table = PairListing::FirstInText;
  std::string caption;  // shown under the title: model, settings
};

}  // namespace attnscope
