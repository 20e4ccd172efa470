#include "figures/figure_export.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "base/error.h"
#include "figures/cairo_painter.h"
#include "figures/svg_painter.h"
#include "base/atomic_file.h"

namespace attnscope {
namespace {

// Text measured by cairo itself, so the layout fits the glyphs drawn.
FigureLayout layout_for_files(const Figure& figure, const ExportOptions& o) {
  CairoTextMeasure measure;
  const double width = o.width > 0 ? o.width : default_figure_width(figure);
  return layout_figure(figure, width, o.font_size, measure_with(measure.painter()));
}

// The largest image cairo draws, in pixels a side.
constexpr double kMostPngPixels = 32767;

// The PNG's surface at `scale` pixels a point; past cairo's limit, one line saying how large the
// image would be and what fits (a Lines figure of a 2,048-token text is some 50,000 pixels tall).
cairo_surface_t* png_surface(const FigureLayout& layout, double scale) {
  const double width = std::ceil(layout.width * scale), height = std::ceil(layout.height * scale);
  if (width > kMostPngPixels || height > kMostPngPixels) {
    const double fitting = std::floor(kMostPngPixels / std::max(layout.width, layout.height) * 10) / 10;
    char text[256];
    std::snprintf(text, sizeof text,
                  "the PNG would be %.0f x %.0f pixels, more than the %.0f a side cairo draws: ", width, height,
                  kMostPngPixels);
    std::string message = std::string(text) + "write it as SVG or PDF";
    if (fitting >= 1) {
      std::snprintf(text, sizeof text, ", or as a PNG of at most %.1f pixels a point", fitting);
      message += text;
    }
    throw Error(message);
  }
  return cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width), static_cast<int>(height));
}

}  // namespace

FigureFormat figure_format(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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
  const FigureLayout layout = layout_for_files(figure, o);
  if (format == FigureFormat::Svg) {
    SvgPainter svg(layout.width, layout.height);
    paint_figure(svg, figure, layout);
    return svg.finish();
  }
  std::string bytes;
  cairo_surface_t* surface = nullptr;
  if (format == FigureFormat::Png)
    surface = png_surface(layout, o.png_scale);
  else
    surface = cairo_pdf_surface_create_for_stream(append_to_string, &bytes, layout.width, layout.height);
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owned(surface, cairo_surface_destroy);
  check_cairo(cairo_surface_status(surface), "create the surface (the figure may be too large)");
  cairo_t* cr = cairo_create(surface);
  if (format == FigureFormat::Png) cairo_scale(cr, o.png_scale, o.png_scale);
  CairoPainter painter(cr);
  paint_figure(painter, figure, layout);
  const cairo_status_t drawn = cairo_status(cr);
  cairo_destroy(cr);
  check_cairo(drawn, "draw the figure");
  if (format == FigureFormat::Png)
    check_cairo(cairo_surface_write_to_png_stream(surface, append_to_string, &bytes), "encode the PNG");
  cairo_surface_finish(surface);
  check_cairo(cairo_surface_status(surface), "finish the file");
  return bytes;
}

double paint_figure_in_box(cairo_t* cr, const Figure& figure, double x, double y, double width, double max_height) {
  const FigureLayout layout = layout_for_files(figure, {});
  const double scale = std::min(width / layout.width, max_height / layout.height);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_scale(cr, scale, scale);
  CairoPainter painter(cr);
  paint_figure(painter, figure, layout);
  cairo_restore(cr);
  return layout.height * scale;
}

void export_figure(const Figure& figure, const std::filesystem::path& path, const ExportOptions& options) {
  write_file_atomically(path, render_figure(figure, figure_format(path), options));
}

}  // namespace attnscope
