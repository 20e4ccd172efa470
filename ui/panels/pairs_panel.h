#pragma once
// Fig. 9 for the focused head: the sortable pair table beside the text (pair tokens coloured,
// one colour per token value) and the similarity map; hovering a row lights the pair in both.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pair_values_job.h"
#include "panels/figure_panel.h"

namespace attnscope::ui {

// The line above a table that lists `listed` of a head's `in_all` pairs, the first by position:
// none where it lists them all; sorted by anything but position it orders only those, so it says
// so and where the strongest of every pair are found.
std::optional<std::string> pair_table_note(int64_t listed, int64_t in_all, bool by_position);

class PairsPanel {
 public:
  PanelActions draw(const PanelContext& context);
  void set_zoom(float zoom) { figure_.zoom = zoom; }
  void release_tiles() { figure_.release_tiles(); }
  // What a long text's pairs need made off the UI thread: the map beside the table, its top level
  // (FigurePanel::make_maps_beside), and for rollout's pairs the rollout after the focused layer
  // first, under a progress bar (FigurePanel::make_rollouts_beside); and the values of the pairs listed, from the
  // head's map made again (PairValuesJob), for rollout's from that rollout once made. Without this, such pairs are
  // listed with their values made on the UI thread (rollout's without them).
  void make_long_text_parts_beside(std::function<void()> notify);
  // The map or the listed pairs' values are being made.
  bool waiting() const { return figure_.waiting() || values_pending_; }
  uint64_t job_updates() const { return figure_.job_updates() + (values_ ? values_->updates() : 0); }

 private:
  // A table lists at most this many (2^18, 3 MB): a long text's head may have millions of pairs,
  // which no one scrolls through; the line above the table says how many there are.
  static constexpr int64_t kListedPairs = int64_t{1} << 18;

  FigurePanel figure_{pairs_view_figure, pairs_view_tiled_figure};
  std::vector<TokenPair> pairs_;  // of the head shown, listed when it or the analysis changes
  int64_t pairs_in_all_ = 0;      // the head's, listed or not
  std::string pairs_key_;
  std::unique_ptr<PairValuesJob> values_;
  bool values_pending_ = false;  // pairs_ listed without values, asked of values_
  std::vector<int> order_;       // row order after sorting
  bool by_position_ = true;      // sorted by i, ascending: the listed pairs are the first in the text
  int hovered_ = -1;             // index into the head's pairs
  Figure export_;                // Fig. 9 with its table, for export
  static Figure pairs_view_figure(const AnalyzedTextView& text, const FigureOptions& options);
  static TiledFigure pairs_view_tiled_figure(const AnalyzedTextView& text, const FigureOptions& options);
  void list_pairs(const PanelContext& c, int head);
  void take_values(const PanelContext& c, int head);
  void sort_rows(const std::vector<TokenPair>& pairs, const Encoding& encoding);
  int draw_table(const Encoding& encoding, bool of_s);
};

}  // namespace attnscope::ui
