#pragma once
// Shows a figure in the window exactly as the exporters write it: the same layout and the same
// painting code (figure_painter), with heatmaps as GL textures coloured by the heatmap shader.
// Hovering a heatmap cell shows i, j, both tokens and the value.
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "figures/figure.h"
#include "figures/figure_layout.h"
#include "gl/heatmap_renderer.h"

namespace attnscope::ui {

struct CanvasHover {
  int panel = -1, row = -1, col = -1;     // the heatmap cell under the mouse, or -1
  bool clicked = false;                   // ... and it was clicked
  int lines_side = -1, lines_token = -1;  // the token of a lines panel under the mouse (side 0 left, 1 right)
};

struct CellHighlight {
  int panel = -1, row = -1, col = -1;  // drawn as a bright frame (the pairs table's hovered row)
};

class FigureCanvas {
 public:
  void set(Figure figure);
  bool empty() const { return figure_.panels.empty(); }
  const Figure& figure() const { return figure_; }
  // Which token's lines the lines panels show (-1: all of them); nothing is rebuilt.
  void set_lines_focus(int side, int index);
  // The width at which the figure is at most `max_width` wide and `max_height` high (its text
  // keeps its size, so the answer is found in a few steps).
  float fitting_width(float max_width, float max_height, float font_size);
  // Draws at the cursor, `width` pixels wide, and advances the cursor by the figure's height.
  CanvasHover draw(const HeatmapRenderer& renderer, float width, float font_size,
                   const std::vector<CellHighlight>& highlights = {});

 private:
  Figure figure_;
  std::vector<std::optional<HeatmapImage>> images_;  // per panel, made when first drawn
  std::array<std::optional<HeatmapImage>, 4> colorbars_;
  friend class ImGuiPainter;
};

}  // namespace attnscope::ui
