#pragma once
// Fig. 9 for the focused head: the sortable pair table beside the text (pair tokens coloured,
// one colour per token value) and the similarity map; hovering a row lights the pair in both.
#include <string>
#include <vector>

#include "panels/figure_panel.h"

namespace attnscope::ui {

class PairsPanel {
 public:
  PanelActions draw(const PanelContext& context);

 private:
  FigurePanel figure_{pairs_view_figure};
  std::vector<TokenPair> pairs_;  // of the head shown, listed when it or the analysis changes
  std::string pairs_key_;
  std::vector<int> order_;  // row order after sorting
  int hovered_ = -1;        // index into the head's pairs
  Figure export_;           // Fig. 9 with its table, for export
  static Figure pairs_view_figure(const AnalyzedTextView& text, const FigureOptions& options);
  void sort_rows(const std::vector<TokenPair>& pairs, const Encoding& encoding);
  int draw_table(const Encoding& encoding, bool of_s);
};

}  // namespace attnscope::ui
