#pragma once
// A view that is one figure of the focused head or layer (head detail, separators, statistics,
// layers, attention lines): rebuilt only when the analysis or the choices change, drawn by the
// figure canvas, zoomable, with an export button.
#include <functional>
#include <string>

#include "figure_canvas.h"
#include "figures/text_figures.h"
#include "panels/panel_context.h"

namespace attnscope::ui {

using FigureBuilder = std::function<Figure(const AnalyzedTextView&, const FigureOptions&)>;

class FigurePanel {
 public:
  // `tiles_long_maps`: the builder is the Head view's, whose map of a long text is drawn from a
  // pyramid of tiles (tiled_head_figure) instead of being made whole.
  explicit FigurePanel(FigureBuilder build, bool tiles_long_maps = false)
      : build_(std::move(build)), tiles_long_maps_(tiles_long_maps) {}
  // `controls` draws the view's own choices above the figure and may change the state.
  PanelActions draw(const PanelContext& context, const std::function<void(ViewState&)>& controls = {},
                    const std::vector<CellHighlight>& highlights = {});
  const Figure& figure() const { return canvas_.figure(); }
  float zoom = 1.0f;
  PyramidOptions tiles;  // a long text's tiled map (tiles_long_maps)

 private:
  void rebuild(const PanelContext& c, const FigureOptions& options);

  FigureBuilder build_;
  bool tiles_long_maps_ = false;
  FigureCanvas canvas_;
  std::string key_;  // what the figure was built from
  std::string error_;
  // Attention lines: the token under the mouse, and the one a click pinned (side, index).
  std::pair<int, int> lines_hovered_{-1, -1}, lines_pinned_{-1, -1};
};

// Export button, zoom slider, and the figure fitted to the rest of the panel (Ctrl + wheel zooms,
// dragging pans); an export click goes to `actions`.
CanvasHover draw_zoomable_figure(FigureCanvas& canvas, float& zoom, const PanelContext& context, PanelActions& actions,
                                 const std::vector<CellHighlight>& highlights = {});

// Key of a figure: the snapshot it came from and every choice that changes it.
std::string figure_key(uint64_t serial, const FigureOptions& options);

}  // namespace attnscope::ui
