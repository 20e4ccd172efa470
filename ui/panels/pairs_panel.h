#pragma once
// Fig. 9 for the focused head: the sortable pair table beside the text (pair tokens coloured,
// one colour per token value) and the similarity map; hovering a row lights the pair in both.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/strongest_pairs.h"
#include "pair_values_job.h"
#include "panels/figure_panel.h"

namespace attnscope::ui {

// The line above a table that lists `listed` of a head's `in_all` pairs, as `listing` chose them:
// none where it lists them all; the first in the text sorted by anything but position are ordered
// only among themselves, and it says so and how to sort the strongest.
std::optional<std::string> pair_table_note(int64_t listed, int64_t in_all, PairListing listing, bool by_position);

class PairsPanel {
 public:
  // A table lists at most this many (2^18, 3 MB): a long text's head may have millions of pairs,
  // which no one scrolls through; the line above the table says how many there are.
  static constexpr int64_t kDefaultListedPairs = int64_t{1} << 18;

  PanelActions draw(const PanelContext& context);
  void set_zoom(float zoom) { figure_.zoom = zoom; }
  void set_listed_pairs(int64_t most) { listed_pairs_ = std::max<int64_t>(1, most); }
  void release_tiles() { figure_.release_tiles(); }
  // What a long text's pairs need made off the UI thread: the map beside the table, its top level
  // (FigurePanel::make_maps_beside), and for rollout's pairs the rollout after the focused layer
  // first, under a progress bar (FigurePanel::make_rollouts_beside); the values of the pairs listed, from the
  // head's map made again (PairValuesJob), for rollout's from that rollout once made; and the strongest pairs of a
  // head with more than the table lists. Without this, such pairs are listed with their values made on the UI
  // thread (rollout's without them), the first in the text only.
  void make_long_text_parts_beside(std::function<void()> notify);
  // The map or the listed pairs' values are being made.
  bool waiting() const { return figure_.waiting() || values_pending_ || strongest_pending_; }
  uint64_t job_updates() const { return figure_.job_updates() + (values_ ? values_->updates() : 0); }

 private:
  int64_t listed_pairs_ = kDefaultListedPairs;
  FigurePanel figure_{pairs_view_figure, pairs_view_tiled_figure};
  std::vector<TokenPair> pairs_;  // of the head shown, listed when it or the analysis changes
  int64_t pairs_in_all_ = 0;      // the head's, listed or not
  std::string pairs_key_;
  std::unique_ptr<PairValuesJob> values_;
  bool values_pending_ = false;  // pairs_ listed without values, asked of values_
  // A head with more pairs than the table lists: which it lists (the reader's choice, kept from
  // head to head; listed_as_ the choice pairs_ was listed for), whether pairs_ holds its
  // strongest, or they are asked of values_.
  PairListing listing_ = PairListing::FirstInText, listed_as_ = PairListing::FirstInText;
  bool strongest_listed_ = false, strongest_pending_ = false;
  bool value_sort_asked_ = false;  // the table was just sorted by value: its strongest are wanted
  std::vector<int> order_;         // row order after sorting
  bool by_position_ = true;        // sorted by i, ascending: the listed pairs are the first in the text
  int hovered_ = -1;               // index into the head's pairs
  Figure export_;                  // Fig. 9 with its table, for export
  static Figure pairs_view_figure(const AnalyzedTextView& text, const FigureOptions& options);
  static TiledFigure pairs_view_tiled_figure(const AnalyzedTextView& text, const FigureOptions& options);
  void list_pairs(const PanelContext& c, int head);
  bool can_list_strongest(const PanelContext& c) const;
  void draw_listing_choice();
  void take_values(const PanelContext& c, int head);
  void sort_rows(const std::vector<TokenPair>& pairs, const Encoding& encoding);
  int draw_table(const Encoding& encoding, bool of_s);
};

}  // namespace attnscope::ui
