#pragma once
// Writes figures as SVG with real <text> elements, so labels stay searchable and editable in a
// vector editor (cairo's SVG output turns every glyph into a path). Text is measured with cairo
// and the same font, so the layout equals the PNG's and the PDF's; heatmap cells are embedded as
// PNG images drawn without smoothing.
#include <sstream>
#include <string>

#include "figures/cairo_painter.h"

namespace attnscope {

class SvgPainter final : public Painter {
 public:
  SvgPainter(double width, double height);
  double text_width(const std::string& text, double size) override;
  void text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb color) override;
  void fill_rect(const Rect& r, Rgb color, double alpha) override;
  void frame(const Rect& r, Rgb color, double width) override;
  void line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) override;
  void heatmap(const HeatmapPanel& panel, size_t index, const Rect& r) override;
  void colorbar(ColormapId id, const Rect& r) override;
  // The complete document.
  std::string finish();

 private:
  void image(cairo_surface_t* cells, const Rect& r);
  std::ostringstream out_;
  CairoTextMeasure measure_;
};

// Escapes &, <, >, " for XML text and attributes.
std::string xml_escape(const std::string& text);

}  // namespace attnscope
