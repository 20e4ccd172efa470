#include "figures/cairo_painter.h"

#include "base/error.h"
#include "figures/pooled_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace attnscope {
namespace {

uint32_t argb(Rgb c) {
  return 0xFF000000u | (uint32_t(c.r * 255 + 0.5f) << 16) | (uint32_t(c.g * 255 + 0.5f) << 8) |
         uint32_t(c.b * 255 + 0.5f);
}

template <typename Pixel>
cairo_surface_t* cells(int cols, int rows, Pixel pixel) {
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, cols, rows);
  auto* px = reinterpret_cast<uint32_t*>(cairo_image_surface_get_data(img));
  const int stride = cairo_image_surface_get_stride(img) / 4;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) px[i * stride + j] = pixel(i, j);
  cairo_surface_mark_dirty(img);
  return img;
}

}  // namespace

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check_cairo(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS)
    throw Error(std::string("cairo could not ") + what + ": " + cairo_status_to_string(status));
}

cairo_surface_t* heatmap_cells(const HeatmapPanel& p) {
  const Colormap& map = colormap(p.colormap);
  return cells(p.cols, p.rows, [&](int i, int j) -> uint32_t {
    const double t = p.color_scale.position(p.value(i, j));
    return std::isnan(t) ? 0u : argb(map.at(t));
  });
}

cairo_surface_t* colorbar_cells(ColormapId id) {
  const Colormap& map = colormap(id);
  return cells(1, 256, [&](int i, int) { return argb(map.table[255 - i]); });
}

std::string png_bytes(cairo_surface_t* image) {
  std::string bytes;
  cairo_surface_write_to_png_stream(image, append_to_string, &bytes);
  return bytes;
}

CairoPainter::CairoPainter(cairo_t* cr) : cr_(cr) {
  cairo_select_font_face(cr, kFigureFont, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

double CairoPainter::text_width(const std::string& text, double size) {
  cairo_set_font_size(cr_, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr_, text.c_str(), &e);
  return e.x_advance;
}

void CairoPainter::text(const std::string& text, double x, double y, double size, Align align, bool upwards,
                        Rgb color) {
  cairo_save(cr_);
  set_color(color, 1);
  cairo_translate(cr_, x, y);
  if (upwards) cairo_rotate(cr_, -M_PI / 2);
  const double w = text_width(text, size);
  cairo_move_to(cr_, align == Align::Left ? 0 : align == Align::Center ? -w / 2 : -w, size * 0.35);
  cairo_show_text(cr_, text.c_str());
  cairo_restore(cr_);
}

void CairoPainter::fill_rect(const Rect& r, Rgb color, double alpha) {
  set_color(color, alpha);
  cairo_rectangle(cr_, r.x, r.y, r.w, r.h);
  cairo_fill(cr_);
}

// The stroke is centred on its path: the path half its width outside r.
void CairoPainter::frame(const Rect& r, Rgb color, double width) {
  set_color(color, 1);
  cairo_set_line_width(cr_, width);
  const Rect path = r.grown(width / 2);
  cairo_rectangle(cr_, path.x, path.y, path.w, path.h);
  cairo_stroke(cr_);
}

void CairoPainter::line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) {
  set_color(color, alpha);
  cairo_set_line_width(cr_, width);
  cairo_move_to(cr_, x0, y0);
  cairo_line_to(cr_, x1, y1);
  cairo_stroke(cr_);
}

void CairoPainter::heatmap(const HeatmapPanel& p, size_t, const Rect& r) {
  // Onto pixels (PNG), a map of more cells than pixels is pooled first (figures/pooled_panel.h):
  // scaled without smoothing, most single columns would be dropped. PDF keeps every cell.
  int64_t k = 1;
  if (cairo_surface_get_type(cairo_get_target(cr_)) == CAIRO_SURFACE_TYPE_IMAGE) {
    double px = r.w, py = 0;
    cairo_user_to_device_distance(cr_, &px, &py);
    k = display_pooling(std::max(p.rows, p.cols), std::abs(px));
  }
  paint_image(heatmap_cells(k > 1 ? pooled_panel(p, k) : p), r);
  const double cw = r.w / p.cols, ch = r.h / p.rows, width = outline_width(std::min(cw, ch));
  if (width == 0) return;
  set_color({0, 0, 0}, 1);
  cairo_set_line_width(cr_, width);
  for (const auto& [i, j] : p.outlined) cairo_rectangle(cr_, r.x + j * cw, r.y + i * ch, cw, ch);
  cairo_stroke(cr_);
}

void CairoPainter::colorbar(ColormapId id, const Rect& r) { paint_image(colorbar_cells(id), r); }

void CairoPainter::set_color(Rgb c, double alpha) { cairo_set_source_rgba(cr_, c.r, c.g, c.b, alpha); }

// Scales the image (one pixel per cell) onto r without smoothing, then destroys it.
void CairoPainter::paint_image(cairo_surface_t* img, const Rect& r) {
  cairo_save(cr_);
  cairo_translate(cr_, r.x, r.y);
  cairo_scale(cr_, r.w / cairo_image_surface_get_width(img), r.h / cairo_image_surface_get_height(img));
  cairo_set_source_surface(cr_, img, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr_), CAIRO_FILTER_NEAREST);
  cairo_paint(cr_);
  cairo_restore(cr_);
  cairo_surface_destroy(img);
}

CairoTextMeasure::CairoTextMeasure()
    : surface_(cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)),
      cr_(cairo_create(surface_)),
      painter_(std::make_unique<CairoPainter>(cr_)) {}

CairoTextMeasure::~CairoTextMeasure() {
  painter_.reset();
  cairo_destroy(cr_);
  cairo_surface_destroy(surface_);
}

}  // namespace attnscope
