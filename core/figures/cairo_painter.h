#pragma once
// Painting figures with cairo (PNG and PDF files), and the cell images that both file formats
// embed for heatmaps: one pixel per cell, scaled without smoothing, so colours are exact.
#include <cairo.h>

#include <memory>
#include <string>

#include "figures/figure_painter.h"

namespace attnscope {

inline constexpr const char* kFigureFont = "DejaVu Sans";

class CairoPainter final : public Painter {
 public:
  explicit CairoPainter(cairo_t* cr);
  double text_width(const std::string& text, double size) override;
  void text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb color) override;
  void fill_rect(const Rect& r, Rgb color, double alpha) override;
  void frame(const Rect& r, Rgb color, double width) override;
  void line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) override;
  void heatmap(const HeatmapPanel& panel, size_t index, const Rect& r) override;
  void colorbar(ColormapId id, const Rect& r) override;

 private:
  void set_color(Rgb c, double alpha);
  void paint_image(cairo_surface_t* image, const Rect& r);
  cairo_t* cr_;
};

// A heatmap's cells (rows x cols pixels, empty cells transparent) and a colormap's 1 x 256 bar
// (top: t = 1), as cairo image surfaces the caller destroys, or as PNG bytes.
cairo_surface_t* heatmap_cells(const HeatmapPanel& panel);
cairo_surface_t* colorbar_cells(ColormapId id);
std::string png_bytes(cairo_surface_t* image);

// A cairo write function that appends to the std::string `closure` points to.
cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length);
// Throws attnscope::Error saying what cairo could not do.
void check_cairo(cairo_status_t status, const char* what);

// Measures text as cairo draws it, without a target surface of the caller's.
class CairoTextMeasure {
 public:
  CairoTextMeasure();
  ~CairoTextMeasure();
  CairoTextMeasure(const CairoTextMeasure&) = delete;
  CairoTextMeasure& operator=(const CairoTextMeasure&) = delete;
  Painter& painter() { return *painter_; }

 private:
  cairo_surface_t* surface_;
  cairo_t* cr_;
  std::unique_ptr<CairoPainter> painter_;
};

}  // namespace attnscope
