#pragma once
// Shows a figure in the window exactly as the exporters write it: the same layout and the same
// painting code (figure_painter), with heatmaps as GL textures coloured by the heatmap shader.
// Hovering a heatmap cell shows i, j, both tokens and the value. A long text's map is drawn from
// its pyramid of tiles instead (tiled_map.h).
#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "figures/figure.h"
#include "figures/figure_layout.h"
#include "gl/heatmap_renderer.h"
#include "tiled_map.h"

namespace attnscope::ui {

struct CanvasHover {
  int panel = -1, row = -1, col = -1;     // the heatmap cell under the mouse, or -1
  bool clicked = false;                   // ... and it was clicked
  int lines_side = -1, lines_token = -1;  // the token of a lines panel under the mouse (side 0 left, 1 right)
};

struct CellHighlight {
  int panel = -1, row = -1, col = -1;  // drawn as a bright frame (the pairs table's hovered row)
};

// The first highlighted token of a text panel, where the last draw put it (canvas pixels from its
// top), to scroll a long text to it.
struct HighlightPlace {
  float left = 0, top = 0, right = 0, bottom = 0;
};

class FigureCanvas {
 public:
  // `tiled`: per panel, null or the tiled map a heatmap without values is drawn from (a long text's).
  void set(Figure figure, std::vector<std::unique_ptr<TiledMap>> tiled = {});
  // A tiled map needs more frames: part of what is shown is not made yet.
  bool pending() const;
  bool has_tiles() const { return !tiled_.empty(); }
  // The tiled maps, one per panel drawn from tiles.
  std::vector<TiledMap*> tiled_maps() const;
  bool empty() const { return figure_.panels.empty(); }
  const Figure& figure() const { return figure_; }
  // What "Export..." writes: the figure, tiled maps' panels as their top levels (pooled cells, no
  // token labels) once they are made.
  const Figure& exported();
  // The zoom at which a tiled map's cells are about 24 pixels wide (at least 6).
  float max_zoom() const;
  const std::optional<HighlightPlace>& highlighted() const { return highlighted_; }
  // Which token's lines the lines panels show (-1: all of them); nothing is rebuilt.
  void set_lines_focus(int side, int index);
  // The width at which the figure is at most `max_width` wide and `max_height` high (its text
  // keeps its size, so the answer is found in a few steps).
  float fitting_width(float max_width, float max_height, float font_size);
  // Draws at the cursor, `width` pixels wide, and advances the cursor by the figure's height.
  CanvasHover draw(const HeatmapRenderer& renderer, float width, float font_size,
                   const std::vector<CellHighlight>& highlights = {});

 private:
  float fitting_width_now(float max_width, float max_height, float font_size);

  Figure figure_;
  std::vector<std::optional<HeatmapImage>> images_;  // per panel, made when first drawn
  std::array<std::optional<HeatmapImage>, 4> colorbars_;
  TiledMap* tiled(size_t panel) const { return panel < tiled_.size() ? tiled_[panel].get() : nullptr; }
  std::vector<std::unique_ptr<TiledMap>> tiled_;
  TiledMap::Clock::time_point deadline_;  // of this frame's making of tiles
  Figure exported_;
  std::optional<HighlightPlace> highlighted_;
  // fitting_width's last answer and what it was asked: a long text's thousands of labels are
  // measured for each width tried, so it is asked again only when the room changes.
  std::array<float, 3> fitted_for_{-1, -1, -1};
  float fitted_ = 0;
  friend class ImGuiPainter;
};

}  // namespace attnscope::ui
