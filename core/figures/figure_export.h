#pragma once
// Writes a figure to PNG (rendered offscreen by cairo at 1x to 4x), PDF (cairo) or SVG (our own
// writer, with real text), laid out by figure_layout exactly as the explorer draws it. Files are
// written atomically.
#include <filesystem>
#include <string>

#include "figures/figure.h"
#include "figures/figure_layout.h"

typedef struct _cairo cairo_t;  // cairo.h stays private to the core

namespace attnscope {

enum class FigureFormat { Png, Svg, Pdf };

// From the file's extension (.png, .svg, .pdf); throws attnscope::Error for others.
FigureFormat figure_format(const std::filesystem::path& path);

struct ExportOptions {
  double png_scale = 2.0;  // pixels per point for PNG, 1 .. 4
  double width = 0;        // points; 0: from the number of columns
  double font_size = 10;   // points
};

// The width a figure gets when none is asked for.
double default_figure_width(const Figure& figure);

void export_figure(const Figure& figure, const std::filesystem::path& path, const ExportOptions& options = {});
// The bytes of the file export_figure would write (for tests and the GUI's clipboard).
std::string render_figure(const Figure& figure, FigureFormat format, const ExportOptions& options = {});

// Paints `figure` (laid out as the files are, at its default width), scaled to fit a box of `width` x `max_height`
// at (x, y) on cr's target; returns the height it took.
double paint_figure_in_box(cairo_t* cr, const Figure& figure, double x, double y, double width, double max_height);

}  // namespace attnscope
