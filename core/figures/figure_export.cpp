#include "figures/figure_export.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "error.h"
#include "figures/figure_painter.h"
#include "io/atomic_file.h"

namespace attnscope {
namespace {

constexpr const char* kFont = "DejaVu Sans";

class CairoPainter final : public Painter {
 public:
  explicit CairoPainter(cairo_t* cr) : cr_(cr) { cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL); }

  double text_width(const std::string& text, double size) override {
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, text.c_str(), &e);
    return e.x_advance;
  }

  void text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb color) override {
    cairo_save(cr_);
    set_color(color, 1);
    cairo_translate(cr_, x, y);
    if (upwards) cairo_rotate(cr_, -M_PI / 2);
    const double w = text_width(text, size);
    cairo_move_to(cr_, align == Align::Left ? 0 : align == Align::Center ? -w / 2 : -w, size * 0.35);
    cairo_show_text(cr_, text.c_str());
    cairo_restore(cr_);
  }

  void fill_rect(const Rect& r, Rgb color, double alpha) override {
    set_color(color, alpha);
    cairo_rectangle(cr_, r.x, r.y, r.w, r.h);
    cairo_fill(cr_);
  }

  void stroke_rect(const Rect& r, Rgb color, double width) override {
    set_color(color, 1);
    cairo_set_line_width(cr_, width);
    cairo_rectangle(cr_, r.x, r.y, r.w, r.h);
    cairo_stroke(cr_);
  }

  void line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) override {
    set_color(color, alpha);
    cairo_set_line_width(cr_, width);
    cairo_move_to(cr_, x0, y0);
    cairo_line_to(cr_, x1, y1);
    cairo_stroke(cr_);
  }

  // Cells as an embedded image scaled with nearest-neighbour filtering: exact colours, small files.
  void heatmap(const HeatmapPanel& p, size_t, const Rect& r) override {
    const Colormap& map = colormap(p.colormap);
    paint_pixels(p.cols, p.rows, r, [&](int i, int j) -> uint32_t {
      const double t = p.color_scale.position(p.value(i, j));
      return std::isnan(t) ? 0u : argb(map.at(t));
    });
    const double cw = r.w / p.cols, ch = r.h / p.rows;
    set_color({0, 0, 0}, 1);
    cairo_set_line_width(cr_, std::max(0.3, std::min(cw, ch) * 0.12));
    for (const auto& [i, j] : p.outlined) cairo_rectangle(cr_, r.x + j * cw, r.y + i * ch, cw, ch);
    cairo_stroke(cr_);
  }

  void colorbar(ColormapId id, const Rect& r) override {
    const Colormap& map = colormap(id);
    paint_pixels(1, 256, r, [&](int i, int) { return argb(map.table[255 - i]); });
  }

 private:
  static uint32_t argb(Rgb c) {
    return 0xFF000000u | (uint32_t(c.r * 255 + 0.5f) << 16) | (uint32_t(c.g * 255 + 0.5f) << 8) | uint32_t(c.b * 255 + 0.5f);
  }

  void set_color(Rgb c, double alpha) { cairo_set_source_rgba(cr_, c.r, c.g, c.b, alpha); }

  template <typename Pixel>
  void paint_pixels(int cols, int rows, const Rect& r, Pixel pixel) {
    cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, cols, rows);
    auto* px = reinterpret_cast<uint32_t*>(cairo_image_surface_get_data(img));
    const int stride = cairo_image_surface_get_stride(img) / 4;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) px[i * stride + j] = pixel(i, j);
    cairo_surface_mark_dirty(img);
    cairo_save(cr_);
    cairo_translate(cr_, r.x, r.y);
    cairo_scale(cr_, r.w / cols, r.h / rows);
    cairo_set_source_surface(cr_, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr_), CAIRO_FILTER_NEAREST);
    cairo_paint(cr_);
    cairo_restore(cr_);
    cairo_surface_destroy(img);
  }

  cairo_t* cr_;
};

// Text measured by cairo itself, on a scratch surface, so the layout fits the glyphs drawn.
FigureLayout layout_for_cairo(const Figure& figure, const ExportOptions& o) {
  cairo_surface_t* scratch = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
  cairo_t* cr = cairo_create(scratch);
  CairoPainter painter(cr);
  const double width = o.width > 0 ? o.width : default_figure_width(figure);
  FigureLayout layout = layout_figure(figure, width, o.font_size, measure_with(painter));
  cairo_destroy(cr);
  cairo_surface_destroy(scratch);
  return layout;
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS) throw Error(std::string("cairo could not ") + what + ": " + cairo_status_to_string(status));
}

}  // namespace

FigureFormat figure_format(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return FigureFormat::Png;
  if (ext == ".svg") return FigureFormat::Svg;
  if (ext == ".pdf") return FigureFormat::Pdf;
  throw Error(path.string() + ": unknown figure format \"" + ext + "\": expected .png, .svg or .pdf");
}

double default_figure_width(const Figure& figure) {
  const bool small = figure.columns > 4;  // the grid: thumbnails
  return std::max(480.0, figure.columns * (small ? 110.0 : 330.0));
}

std::string render_figure(const Figure& figure, FigureFormat format, const ExportOptions& o) {
  if (!(o.png_scale >= 1 && o.png_scale <= 4)) throw Error("the PNG scale must be between 1 and 4");
  const FigureLayout layout = layout_for_cairo(figure, o);
  std::string bytes;
  cairo_surface_t* surface = nullptr;
  if (format == FigureFormat::Png)
    surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(std::ceil(layout.width * o.png_scale)),
                                         static_cast<int>(std::ceil(layout.height * o.png_scale)));
  else if (format == FigureFormat::Svg)
    surface = cairo_svg_surface_create_for_stream(append, &bytes, layout.width, layout.height);
  else
    surface = cairo_pdf_surface_create_for_stream(append, &bytes, layout.width, layout.height);
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owned(surface, cairo_surface_destroy);
  check(cairo_surface_status(surface), "create the surface (the figure may be too large)");
  cairo_t* cr = cairo_create(surface);
  if (format == FigureFormat::Png) cairo_scale(cr, o.png_scale, o.png_scale);
  CairoPainter painter(cr);
  paint_figure(painter, figure, layout);
  const cairo_status_t drawn = cairo_status(cr);
  cairo_destroy(cr);
  check(drawn, "draw the figure");
  if (format == FigureFormat::Png) check(cairo_surface_write_to_png_stream(surface, append, &bytes), "encode the PNG");
  cairo_surface_finish(surface);
  check(cairo_surface_status(surface), "finish the file");
  return bytes;
}

void export_figure(const Figure& figure, const std::filesystem::path& path, const ExportOptions& options) {
  write_file_atomically(path, render_figure(figure, figure_format(path), options));
}

}  // namespace attnscope
