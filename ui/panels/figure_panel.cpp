#include "panels/figure_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "base/error_message.h"

namespace attnscope::ui {

std::string figure_key(uint64_t serial, const FigureOptions& o) {
  std::string key = std::to_string(serial) + "|" + std::to_string(o.layer) + "|" + std::to_string(o.head) + "|" +
                    matrix_name(o.matrix) + "|" + colormap(o.colormap).name + "|" +
                    std::to_string(static_cast<int>(o.scale)) + "|";
  for (int l : o.layers) key += std::to_string(l) + ",";
  key += o.zero_diagonal ? "|z|" : "||";
  key += std::string(matrix_name(o.layer_matrix)) + (o.rollout_of_norm ? "|rn|" : "|");
  key += o.query_key ? "qk" + std::to_string(o.query) + "," + std::to_string(o.key) + "|" : "|";
  for (int h : o.heads) key += std::to_string(h) + ",";
  return key;
}

CanvasHover draw_zoomable_figure(FigureCanvas& canvas, float& zoom, const PanelContext& c, PanelActions& actions,
                                 const std::vector<CellHighlight>& highlights, bool reveal) {
  if (ImGui::Button("Export...")) actions.export_figure = &canvas.exported();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120);
  const float max_zoom = canvas.max_zoom();
  ImGui::SliderFloat("zoom", &zoom, 0.5f, max_zoom, "%.1fx", ImGuiSliderFlags_Logarithmic);
  ImGui::BeginChild("figure", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (ImGui::IsWindowHovered() && ImGui::GetIO().KeyCtrl && ImGui::GetIO().MouseWheel != 0) {
    // The point under the pointer stays where it is.
    const float before = zoom;
    zoom = std::clamp(zoom * (ImGui::GetIO().MouseWheel > 0 ? 1.15f : 1 / 1.15f), 0.5f, max_zoom);
    const ImVec2 pointer(ImGui::GetIO().MousePos.x - ImGui::GetWindowPos().x,
                         ImGui::GetIO().MousePos.y - ImGui::GetWindowPos().y);
    ImGui::SetScrollX((ImGui::GetScrollX() + pointer.x) * zoom / before - pointer.x);
    ImGui::SetScrollY((ImGui::GetScrollY() + pointer.y) * zoom / before - pointer.y);
  }
  // Zoom 1 fits the whole figure in the panel; more zoom scrolls.
  const ImVec2 room = ImGui::GetContentRegionAvail();
  const float width = canvas.fitting_width(std::max(200.0f, room.x), std::max(200.0f, room.y), c.figure_font) * zoom;
  const CanvasHover hover = canvas.draw(c.renderer, width, c.figure_font, highlights);
  if (const auto& place = canvas.highlighted(); reveal && place) {  // a third of the way in, unless in view
    const float left = ImGui::GetScrollX(), width = ImGui::GetWindowWidth();
    const float top = ImGui::GetScrollY(), height = ImGui::GetWindowHeight();
    if (place->left < left || place->right > left + width) ImGui::SetScrollX(place->left - width / 3);
    if (place->top < top || place->bottom > top + height) ImGui::SetScrollY(place->top - height / 3);
  }
  if (ImGui::IsWindowHovered() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {  // pan
    const ImVec2 d = ImGui::GetIO().MouseDelta;
    ImGui::SetScrollX(ImGui::GetScrollX() - d.x);
    ImGui::SetScrollY(ImGui::GetScrollY() - d.y);
  }
  ImGui::EndChild();
  return hover;
}

namespace {

double bytes_held(const KeptRollouts& rollouts) {
  double bytes = 0;
  if (rollouts)
    for (const KeptRollout& kept : *rollouts) bytes += static_cast<double>(kept.matrix.nbytes());
  return bytes;
}

}  // namespace

void FigurePanel::release_tiles() {
  if (rollouts_) {
    const auto made = rollouts_->latest();
    if (made && bytes_held(made->value) > kRolloutBytesKeptHidden) rollouts_->take_latest();
  }
  if (!canvas_.has_tiles()) return;
  canvas_.set({});
  key_.clear();
}

void FigurePanel::make_rollouts_beside(RolloutLayers which, std::function<void()> notify) {
  rollout_layers_ = std::move(which);
  rollouts_ = std::make_unique<RolloutJob>(std::move(notify));
}

void FigurePanel::make_maps_beside(std::function<void()> notify) {
  tiled_figures_ = std::make_unique<TiledFigureJob>(std::move(notify));
}

at::Tensor FigurePanel::rollout_made(uint64_t serial, int layer) const {
  const auto made = rollouts_ ? rollouts_->latest() : nullptr;
  if (!made || !made->value || made->value->empty() || made->key != rollout_request_key(serial, {layer}, false))
    return {};
  return made->value->front().matrix;
}

// A long text's rollouts after `layers`: the job's, once made (its error thrown); null while they
// are made (asked for here).
KeptRollouts FigurePanel::kept_rollouts(const PanelContext& c, const std::vector<int>& layers, bool of_norm) {
  const auto made = rollouts_->latest();
  if (made && made->key == rollout_request_key(c.snapshot->serial, layers, of_norm)) {
    if (!made->error.empty()) throw Error(made->error);
    return made->value;
  }
  submit_rollouts(*rollouts_, c.snapshot_owner, layers, of_norm);
  return nullptr;
}

void FigurePanel::rebuild(const PanelContext& c, const FigureOptions& options) {
  error_.clear();
  waiting_ = false;
  try {
    AnalyzedTextView text = c.snapshot->view();
    if (!build_tiled_ || !c.snapshot_owner || !draws_from_tiles(text.keeps_maps(), text.analysis.length, tiles)) {
      canvas_.set(build_(text, options));
      return;
    }
    KeptRollouts rollouts;  // a long text's, made beforehand; kept maps make theirs in their sources
    if (const std::vector<int> layers =
            rollouts_ && !text.keeps_maps() ? rollout_layers_(text.analysis, options) : std::vector<int>{};
        !layers.empty()) {
      canvas_.set({});
      rollouts = kept_rollouts(c, layers, options.rollout_of_norm);
      if (!rollouts) {
        waiting_ = true;
        return;
      }
      text.rollouts = *rollouts;
    } else if (rollouts_) {
      rollouts_->cancel();  // one asked before is no longer wanted
    }
    if (tiled_figures_) return set_tiled_figure(c, options, rollouts);
    TiledFigure t = build_tiled_(text, options);
    std::vector<std::unique_ptr<TiledMap>> maps(t.figure.panels.size());
    for (TiledPanel& p : t.tiled)
      maps.at(p.panel) = std::make_unique<TiledMap>(c.snapshot_owner, std::move(p.source),
                                                    std::get<HeatmapPanel>(t.figure.panels.at(p.panel)), tiles);
    canvas_.set(std::move(t.figure), std::move(maps));
  } catch (const std::exception& e) {
    canvas_.set({});
    error_ = error_message(e);
  }
}

void FigurePanel::set_tiled_figure(const PanelContext& c, const FigureOptions& options, const KeptRollouts& rollouts) {
  const auto made = tiled_figures_->latest();
  if (!made || made->key != key_) {
    canvas_.set({});
    submit_tiled_figure(*tiled_figures_, key_, c.snapshot_owner, rollouts, build_tiled_, options, tiles);
    waiting_ = true;
    return;
  }
  tiled_figures_->take_latest();  // its pyramids move to the canvas: the same figure again is made anew
  if (!made->error.empty()) throw Error(made->error);
  MadeTiledFigure& figure = *made->value;
  std::vector<std::unique_ptr<TiledMap>> maps(figure.figure.panels.size());
  for (auto& [panel, pyramid] : figure.maps)
    maps.at(panel) = std::make_unique<TiledMap>(figure.snapshot, std::move(pyramid),
                                                std::get<HeatmapPanel>(figure.figure.panels.at(panel)));
  canvas_.set(std::move(figure.figure), std::move(maps));
}

bool FigurePanel::jobs_busy() const {
  return (rollouts_ && rollouts_->busy()) || (tiled_figures_ && tiled_figures_->busy());
}

PanelActions FigurePanel::draw(const PanelContext& c, const std::function<void(ViewState&)>& controls,
                               const std::vector<CellHighlight>& highlights) {
  PanelActions actions;
  ViewState state = c.state;
  if (controls) {
    controls(state);
    if (state.layer != c.state.layer || state.head != c.state.head || state.layer_sum != c.state.layer_sum ||
        state.matrix != c.state.matrix || state.layers_shown != c.state.layers_shown ||
        state.heads_shown != c.state.heads_shown || state.scale != c.state.scale ||
        state.colormap != c.state.colormap || state.zero_diagonal != c.state.zero_diagonal ||
        state.query_key != c.state.query_key || state.query != c.state.query ||
        state.layers_matrix != c.state.layers_matrix || state.rollout_of_norm != c.state.rollout_of_norm)
      actions.state = state;
  }
  if (!c.snapshot) {
    ImGui::TextDisabled("Waiting for the first analysis...");
    return actions;
  }
  const FigureOptions options = figure_options(state);
  std::string key = figure_key(c.snapshot->serial, options);
  if (const auto scanned = c.snapshot->analysis.heads_scanned)  // an analysis so far: drawn again as it grows
    key += "|so far " + std::to_string(*scanned);
  if (key != key_ || (waiting_ && !jobs_busy())) {  // asked, or the rollout or the maps made
    key_ = key;
    rebuild(c, options);
  }
  if (waiting_) {
    draw_progress();
    return actions;
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  // Attention lines follow the pointer: the hovered token's lines, else the pinned token's.
  const auto focus = lines_hovered_.second >= 0 ? lines_hovered_ : lines_pinned_;
  canvas_.set_lines_focus(focus.first, focus.second);
  const CanvasHover hover = draw_zoomable_figure(canvas_, zoom, c, actions, highlights, reveal_highlight);
  reveal_highlight = false;
  hand_outlines(c);
  actions.more_frames = canvas_.pending();
  lines_hovered_ = {hover.lines_side, hover.lines_token};
  if (hover.clicked && hover.lines_token >= 0)
    lines_pinned_ =
        lines_pinned_ == lines_hovered_ ? std::pair<int, int>{-1, -1} : lines_hovered_;  // a second click lets go
  return actions;
}

// The outlines a tiled map drew level 0 without are made by this view's job, one head at a time,
// and handed to every map of the figure that wants them (Fig. 5's S and the pairs' own matrix
// outline the same head's); a map whose outlines could not be made is drawn without them. The
// frames the maps ask for meanwhile see the job end.
void FigurePanel::hand_outlines(const PanelContext& c) {
  for (TiledMap* map : canvas_.tiled_maps()) {
    if (!map->wants_outlines()) continue;
    const MapSource& source = map->pyramid().source();
    const std::string key = std::to_string(c.snapshot->serial) + "|" + source.outlines_key;
    if (!outlines_) outlines_ = std::make_unique<NewestRequestJob<MapSource::Outlined>>();
    const auto made = outlines_->latest();
    if (made && made->key == key) {
      map->set_outlined(made->value && made->error.empty() ? made->value : [](int64_t, int64_t) { return false; });
      continue;
    }
    outlines_->submit(key, [owner = c.snapshot_owner, make = source.make_outlined](const JobControl&) {
      return owner ? make() : MapSource::Outlined();  // `make` reads what `owner` holds
    });
  }
}

void FigurePanel::draw_progress() const {
  char overlay[96];
  double done = 0;
  if (const auto maps = tiled_figures_ ? tiled_figures_->fraction() : std::nullopt; maps) {
    done = *maps;
    std::snprintf(overlay, sizeof overlay, "making the maps of this long text: %.0f%%", 100 * done);
  } else {
    done = rollouts_ ? rollouts_->fraction().value_or(0.0) : 0.0;
    std::snprintf(overlay, sizeof overlay, "making the attention rollout of this long text: %.0f%% of its layers",
                  100 * done);
  }
  ImGui::ProgressBar(static_cast<float>(done), ImVec2(-1, 0), overlay);
}

}  // namespace attnscope::ui
