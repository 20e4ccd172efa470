#include "panels/pairs_panel.h"
#include "base/count_text.h"
#include "tokenizer/piece_text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace attnscope::ui {

namespace {

FigureOptions pairs_view_options(const FigureOptions& options) {
  FigureOptions o = options;
  o.head = std::max(0, o.head);
  o.rollout_of_norm = false;  // the pairs of rollout are those of the mean attention's
  return o;
}

// The rollout the map beside the table shows: the focused layer's, when the pairs come from rollout.
std::vector<int> pairs_view_rollout_layers(const TextAnalysis& analysis, const FigureOptions& options) {
  if (analysis.settings.pairs_from != PairInput::Rollout) return {};
  return {resolved(options, analysis).layer};
}

}  // namespace

Figure PairsPanel::pairs_view_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = pairs_view_options(options);
  Figure f = figure9_text(text, o);  // Fig. 9 without its table: the table is the interactive one beside
  f.panels.push_back(
      matrix_panel(text, resolved(o, text.analysis).layer, o.head, pairs_matrix(text.analysis.settings.pairs_from), o));
  return f;
}

// A long text's: the map is drawn from tiles.
TiledFigure PairsPanel::pairs_view_tiled_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  FigureOptions o = pairs_view_options(options);
  o.matrix = pairs_matrix(text.analysis.settings.pairs_from);
  TiledFigure map = tiled_head_figure(text, o);
  TiledFigure f{figure9_text(text, o), {}};
  f.tiled.push_back({f.figure.panels.size(), std::move(map.tiled.at(0).source)});
  f.figure.panels.push_back(std::move(map.figure.panels.at(0)));
  return f;
}

std::optional<std::string> pair_table_note(int64_t listed, int64_t in_all, PairListing listing, bool by_position) {
  if (listed >= in_all) return std::nullopt;
  const std::string some = digit_groups(static_cast<uint64_t>(listed)),
                    all = digit_groups(static_cast<uint64_t>(in_all));
  if (listing == PairListing::Strongest)
    return "The table lists the " + some + " strongest of the " + all + "; the map shows them all.";
  if (by_position) return "The table lists the first " + some + " (by position); the map shows them all.";
  return "The table sorts the first " + some +
         " (by position) only; the map shows them all. Listing the strongest (above) sorts those instead.";
}

void PairsPanel::sort_rows(const std::vector<TokenPair>& pairs, const Encoding& e) {
  order_.resize(pairs.size());
  std::iota(order_.begin(), order_.end(), 0);
  ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  by_position_ = true;
  if (!specs || specs->SpecsCount == 0) return;
  const ImGuiTableColumnSortSpecs& s = specs->Specs[0];
  const bool up = s.SortDirection == ImGuiSortDirection_Ascending;
  by_position_ = s.ColumnIndex == 2 && up;
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    const TokenPair &p = pairs[a], &q = pairs[b];
    bool less = false, greater = false;
    switch (s.ColumnIndex) {
      case 0:
        less = e.tokens[p.i].text < e.tokens[q.i].text;
        greater = e.tokens[q.i].text < e.tokens[p.i].text;
        break;
      case 1:
        less = e.tokens[p.j].text < e.tokens[q.j].text;
        greater = e.tokens[q.j].text < e.tokens[p.j].text;
        break;
      case 2:  // by position: the strongest pairs listed come in their own order
        less = std::pair{p.i, p.j} < std::pair{q.i, q.j};
        greater = std::pair{q.i, q.j} < std::pair{p.i, p.j};
        break;
      case 3:
        less = std::pair{p.j, p.i} < std::pair{q.j, q.i};
        greater = std::pair{q.j, q.i} < std::pair{p.j, p.i};
        break;
      default:
        less = p.value < q.value;
        greater = q.value < p.value;
        break;
    }
    return up ? less : greater;
  });
}

// The sortable table of the head's pairs, only the rows in view drawn; returns the pair under the pointer, or -1.
int PairsPanel::draw_table(const Encoding& e, bool of_s) {
  const std::vector<TokenPair>& pairs = pairs_;
  int hovered = -1;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV;
  if (!ImGui::BeginTable("pairs", 5, flags)) return hovered;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("token i");
  ImGui::TableSetupColumn("token j");
  ImGui::TableSetupColumn("i", ImGuiTableColumnFlags_DefaultSort);  // the paper's order: by position
  ImGui::TableSetupColumn("j");
  ImGui::TableSetupColumn(of_s ? "S_hat" : "M_hat", ImGuiTableColumnFlags_PreferSortDescending);  // strongest first
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
      specs && (specs->SpecsDirty || order_.size() != pairs.size())) {
    sort_rows(pairs, e);
    value_sort_asked_ |= specs->SpecsDirty && specs->SpecsCount > 0 && specs->Specs[0].ColumnIndex == 4;
    specs->SpecsDirty = false;
  }
  if (order_.size() != pairs.size()) sort_rows(pairs, e);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order_.size()));
  while (clipper.Step())
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const TokenPair& p = pairs[order_[row]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(row);
      if (ImGui::Selectable(readable_piece(e.tokens[p.i].text).c_str(), hovered_ == order_[row],
                            ImGuiSelectableFlags_SpanAllColumns))
        figure_.reveal_highlight = true;  // a click finds the pair's tokens in the text
      if (ImGui::IsItemHovered()) hovered = order_[row];
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(readable_piece(e.tokens[p.j].text).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.i);
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.j);
      ImGui::TableNextColumn();
      if (std::isnan(p.value))
        ImGui::TextDisabled("-");
      else
        ImGui::Text("%.3f", p.value);
    }
  ImGui::EndTable();
  return hovered;
}

void PairsPanel::make_long_text_parts_beside(std::function<void()> notify) {
  figure_.make_rollouts_beside(pairs_view_rollout_layers, notify);
  figure_.make_maps_beside(notify);
  values_ = std::make_unique<PairValuesJob>(std::move(notify));
}

// The shown head's pairs: a long text's from a lens without their values at first where a job
// beside the window makes them (take_values), any other's with them. Such a head whose mask is
// neither kept nor made yet (attention's, the norm-based maps') gets an empty table until the job
// hands its pairs back with their values: listing them here would make its map on the UI thread.
void PairsPanel::list_pairs(const PanelContext& c, int head) {
  const TextAnalysis& a = c.snapshot->analysis;
  const bool beside = a.pair_map && values_ && c.snapshot_owner;
  pairs_in_all_ = a.head(c.state.layer, head).pair_count;
  if (beside) {
    const std::optional<PairMask> mask = a.pair_mask_at_hand(c.state.layer, head);
    pairs_ = mask ? pairs_without_values(*mask, listed_pairs_) : std::vector<TokenPair>();
  } else if (pair_values_are_slow(a)) {
    pairs_ = pairs_without_values(a, c.state.layer, head, listed_pairs_);
  } else {
    pairs_ = head_pairs(a, c.state.layer, head, listed_pairs_);
  }
  values_pending_ = beside && pairs_in_all_ > 0;
  strongest_listed_ = false;
  strongest_pending_ = listing_ == PairListing::Strongest && can_list_strongest(c);
  order_.clear();
  hovered_ = -1;
}

// Finding a head's strongest pairs walks every pair (seconds on a long text): only by the job.
bool PairsPanel::can_list_strongest(const PanelContext& c) const {
  return values_ && c.snapshot_owner && pairs_in_all_ > listed_pairs_;
}

// Which pairs a head with more than the table lists shows, with the progress of finding its strongest.
void PairsPanel::draw_listing_choice() {
  const std::string listed = digit_groups(static_cast<uint64_t>(listed_pairs_));
  int chosen = static_cast<int>(listing_);
  ImGui::TextUnformatted("List");
  ImGui::SameLine();
  ImGui::RadioButton(("the first " + listed + " in the text").c_str(), &chosen,
                     static_cast<int>(PairListing::FirstInText));
  ImGui::SameLine();
  ImGui::RadioButton(("the " + listed + " strongest").c_str(), &chosen, static_cast<int>(PairListing::Strongest));
  listing_ = static_cast<PairListing>(chosen);
  if (!strongest_pending_) return;
  const std::string overlay =
      "Finding the " + listed + " strongest of " + digit_groups(static_cast<uint64_t>(pairs_in_all_)) + " pairs";
  const std::optional<double> done = values_->fraction();
  ImGui::ProgressBar(static_cast<float>(done.value_or(0.0)), ImVec2(-1, 0), overlay.c_str());
}

// Asks for the listed pairs' values, or the head's strongest pairs (which come with theirs, and
// are asked instead), rollout's once the map beside has the rollout they come from, and takes
// them when made. Called after the map is drawn: a map that is not waiting for its rollout and has
// none could not make it (refused, or stopped), and neither waits any more.
void PairsPanel::take_values(const PanelContext& c, int head) {
  const uint64_t serial = c.snapshot->serial;
  const int layer = c.state.layer;
  const auto made = values_->latest();
  const std::string key = strongest_pending_ ? strongest_pairs_request_key(serial, layer, head)
                                             : pair_values_request_key(serial, layer, head);
  if (made && made->key == key) {
    values_pending_ = false;
    strongest_listed_ = strongest_pending_ && made->error.empty() && made->value;
    strongest_pending_ = false;
    if (!made->error.empty() || !made->value) return;  // the table stays as it was
    pairs_ = *made->value;
    order_.clear();  // sorted again: the values may be the sort's key
    return;
  }
  at::Tensor rollout;
  if (pair_values_are_slow(c.snapshot->analysis) && !(rollout = figure_.rollout_made(serial, layer)).defined()) {
    const bool can = figure_.waiting();  // the map beside is still making it, or cannot
    values_pending_ &= can;
    strongest_pending_ &= can;
    return;
  }
  if (strongest_pending_)
    submit_strongest_pairs(*values_, c.snapshot_owner, layer, head, listed_pairs_, rollout);
  else
    submit_pair_values(*values_, c.snapshot_owner, layer, head, listed_pairs_, rollout);
}

PanelActions PairsPanel::draw(const PanelContext& context) {
  // The map's rollout is the mean attention's, whatever the state says for the other views.
  ViewState state = context.state;
  state.rollout_of_norm = false;
  const PanelContext c{context.snapshot,    state,       context.renderer,
                       context.figure_font, context.run, context.snapshot_owner};
  if (!c.snapshot) return figure_.draw(c);
  const int head = std::max(0, c.state.head);
  const std::string key =
      std::to_string(c.snapshot->serial) + "|" + std::to_string(c.state.layer) + "|" + std::to_string(head);
  if (key != pairs_key_ || (listing_ != listed_as_ && listing_ == PairListing::FirstInText)) {
    pairs_key_ = key;  // only the shown head's pairs are ever listed
    listed_as_ = listing_;
    list_pairs(c, head);
  } else if (listing_ != listed_as_) {  // its strongest asked: the table keeps its first until they come
    listed_as_ = listing_;
    strongest_pending_ = can_list_strongest(c);
  }
  const AnalysisSettings& settings = c.snapshot->analysis.settings;
  const bool of_s = settings.pairs_from == PairInput::Similarity;
  const std::string pairs = count(static_cast<uint64_t>(pairs_in_all_), "pair");
  if (of_s)
    ImGui::Text("Layer %d, head %d: %s with S_hat >= %.3g", c.state.layer, head, pairs.c_str(), settings.tau);
  else
    ImGui::Text("Layer %d, head %d: %s with M_hat >= %.3g, M = %s", c.state.layer, head, pairs.c_str(), settings.tau,
                pair_input_name(settings.pairs_from));
  if (values_pending_)
    ImGui::TextDisabled(pair_values_are_slow(c.snapshot->analysis)
                            ? "Values follow once the rollout after this layer is made (the map's progress bar)."
                        : pairs_.empty() ? "Pairs being listed from the head's map..."
                                         : "Values being made from the head's map...");
  else if (pair_values_are_slow(c.snapshot->analysis) && !pairs_.empty() && std::isnan(pairs_.front().value))
    ImGui::TextDisabled(
        "Values not listed: each needs the rollout after the layer made whole; attnscope-cli pairs "
        "lists them.");
  if (can_list_strongest(c)) draw_listing_choice();
  const PairListing listed = strongest_listed_ ? PairListing::Strongest : PairListing::FirstInText;
  if (const auto note = pair_table_note(static_cast<int64_t>(pairs_.size()), pairs_in_all_, listed, by_position_)) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", note->c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::BeginChild("pair table",
                    ImVec2(std::min(ImGui::GetFontSize() * 24, ImGui::GetContentRegionAvail().x * 0.45f), 0), true);
  hovered_ = draw_table(c.snapshot->encoding, of_s);
  ImGui::EndChild();
  if (value_sort_asked_ && can_list_strongest(c)) listing_ = PairListing::Strongest;  // listed from the next frame
  value_sort_asked_ = false;
  ImGui::SameLine();
  ImGui::BeginGroup();
  std::vector<CellHighlight> highlights;
  if (hovered_ >= 0 && hovered_ < static_cast<int>(pairs_.size())) {
    const TokenPair& p = pairs_[hovered_];
    highlights = {{0, p.i, p.j}, {1, p.i, p.j}, {1, p.j, p.i}};
  }
  // The figure's coloured text needs the head's mask, which for a head listed by its job is made
  // there: drawn once the job is done (built now, it would make the head's map on the UI thread).
  const bool listing = values_pending_ && pairs_.empty();
  PanelActions actions = listing ? PanelActions{} : figure_.draw(c, {}, highlights);
  ImGui::EndGroup();
  if (values_pending_ || strongest_pending_) take_values(c, head);  // its job wakes the window when it ends
  if (actions.export_figure) {  // the file gets the paper's Fig. 9: the text and the whole pair table
    FigureOptions o = figure_options(c.state);
    o.head = head;
    // As the table lists them: the head's strongest, found already, where it lists those.
    if (strongest_listed_) o.pair_table = PairListing::Strongest;
    Figure f = figure9(c.snapshot->view(), o, strongest_listed_ ? &pairs_ : nullptr);
    const auto& shown = actions.export_figure->panels;
    if (!shown.empty() && std::holds_alternative<HeatmapPanel>(shown.back())) f.panels.push_back(shown.back());
    export_ = std::move(f);
    actions.export_figure = &export_;
  }
  return actions;
}

}  // namespace attnscope::ui
