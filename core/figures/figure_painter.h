#pragma once
// The drawing of a laid-out figure, written once against a small painter interface. The file
// exporter paints with cairo and the explorer with Dear ImGui and GL textures, so screen and
// paper show the same marks in the same places.
#include <string>

#include "figures/figure.h"
#include "figures/figure_layout.h"

namespace attnscope {

enum class Align { Left, Center, Right };

class Painter {
 public:
  virtual ~Painter() = default;
  virtual double text_width(const std::string& text, double size) = 0;
  // Text with its vertical centre at y; `upwards`: rotated to read from bottom to top, x/y then
  // being the anchor the alignment refers to.
  virtual void text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb color) = 0;
  virtual void fill_rect(const Rect& r, Rgb color, double alpha) = 0;
  // A frame of `width` just outside `r`, so that what fills `r` keeps its edges in sight (a long
  // text's heatmap: its first and last tokens, the sink column among them, a pixel or less each).
  virtual void frame(const Rect& r, Rgb color, double width) = 0;
  virtual void line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) = 0;
  // The heatmap's cells (colormap, scale, empty cells, outlines) filling `r`.
  virtual void heatmap(const HeatmapPanel& panel, size_t panel_index, const Rect& r) = 0;
  // The colormap from its top (t = 1) to its bottom (t = 0) filling `r`.
  virtual void colorbar(ColormapId id, const Rect& r) = 0;
};

// Paints the whole figure on a white background.
void paint_figure(Painter& painter, const Figure& figure, const FigureLayout& layout);

// A measure for layout_figure from a painter.
TextMeasure measure_with(Painter& painter);

}  // namespace attnscope
