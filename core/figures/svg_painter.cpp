#include "figures/svg_painter.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "base/base64.h"

namespace attnscope {
namespace {

std::string color(Rgb c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(c.r * 255 + 0.5f),
                static_cast<int>(c.g * 255 + 0.5f), static_cast<int>(c.b * 255 + 0.5f));
  return buf;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

SvgPainter::SvgPainter(double width, double height) {
  out_.precision(6);
  out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
          "width=\""
       << width << "pt\" height=\"" << height << "pt\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\""
       << kFigureFont << ", sans-serif\">\n";
}

double SvgPainter::text_width(const std::string& text, double size) {
  return measure_.painter().text_width(text, size);
}

void SvgPainter::text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb c) {
  const char* anchor = align == Align::Left ? "start" : align == Align::Center ? "middle" : "end";
  out_ << "<text transform=\"translate(" << x << "," << y << ")" << (upwards ? " rotate(-90)" : "") << "\" font-size=\""
       << size << "\" text-anchor=\"" << anchor << "\" dy=\"0.35em\" fill=\"" << color(c) << "\">" << xml_escape(text)
       << "</text>\n";
}

void SvgPainter::fill_rect(const Rect& r, Rgb c, double alpha) {
  out_ << "<rect x=\"" << r.x << "\" y=\"" << r.y << "\" width=\"" << r.w << "\" height=\"" << r.h << "\" fill=\""
       << color(c) << "\"";
  if (alpha < 1) out_ << " fill-opacity=\"" << alpha << "\"";
  out_ << "/>\n";
}

// The stroke is centred on its path: the path half its width outside r.
void SvgPainter::frame(const Rect& r, Rgb c, double width) {
  const Rect path = r.grown(width / 2);
  out_ << "<rect x=\"" << path.x << "\" y=\"" << path.y << "\" width=\"" << path.w << "\" height=\"" << path.h
       << "\" fill=\"none\" stroke=\"" << color(c) << "\" stroke-width=\"" << width << "\"/>\n";
}

void SvgPainter::line(double x0, double y0, double x1, double y1, Rgb c, double alpha, double width) {
  out_ << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y1 << "\" stroke=\"" << color(c)
       << "\" stroke-width=\"" << width << "\"";
  if (alpha < 1) out_ << " stroke-opacity=\"" << alpha << "\"";
  out_ << "/>\n";
}

void SvgPainter::image(cairo_surface_t* cells, const Rect& r) {
  const std::string png = png_bytes(cells);
  cairo_surface_destroy(cells);
  out_ << "<image x=\"" << r.x << "\" y=\"" << r.y << "\" width=\"" << r.w << "\" height=\"" << r.h
       << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" image-rendering=\"optimizeSpeed\" "
          "xlink:href=\"data:image/png;base64,"
       << base64_encode(std::as_bytes(std::span(png.data(), png.size()))) << "\"/>\n";
}

void SvgPainter::heatmap(const HeatmapPanel& p, size_t, const Rect& r) {
  image(heatmap_cells(p), r);
  const double cw = r.w / p.cols, ch = r.h / p.rows, width = outline_width(std::min(cw, ch));
  if (p.outlined.empty() || width == 0) return;
  out_ << "<path fill=\"none\" stroke=\"#000000\" stroke-width=\"" << width << "\" d=\"";
  for (const auto& [i, j] : p.outlined)
    out_ << "M" << r.x + j * cw << " " << r.y + i * ch << "h" << cw << "v" << ch << "h" << -cw << "z";
  out_ << "\"/>\n";
}

void SvgPainter::colorbar(ColormapId id, const Rect& r) { image(colorbar_cells(id), r); }

std::string SvgPainter::finish() {
  out_ << "</svg>\n";
  return out_.str();
}

}  // namespace attnscope
