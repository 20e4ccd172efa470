#pragma once
// Where everything of a figure goes, computed once for the screen and the exporters alike: panel
// cells in a grid, each with its title, plot area, axis labels (thinned to every k-th when they
// would overlap) and colorbar. Only text measurement differs between screen and file, so it is
// passed in.
#include <functional>
#include <string>
#include <vector>

#include "figures/figure.h"

namespace attnscope {

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
  bool contains(double px, double py) const { return px >= x && px < x + w && py >= y && py < y + h; }
  Rect grown(double by) const { return {x - by, y - by, w + 2 * by, h + 2 * by}; }  // by on every side
};

// Width of a text at a font size, in the figure's units.
using TextMeasure = std::function<double(const std::string& text, double font_size)>;
// A measure that assumes an average glyph width of 0.6 em: for tests and as a fallback.
double approximate_text_width(const std::string& text, double font_size);

struct PanelLayout {
  Rect cell;                                     // the whole grid cell
  Rect title;                                    // the panel title's lines
  std::vector<std::string> title_lines;          // the title wrapped to the cell's width
  Rect plot;                                     // heatmap cells / bar area / the lines' columns / the text
  Rect colorbar;                                 // heatmaps only (w == 0 otherwise)
  double colorbar_label_x = 0;                   // where the colour bar's (upright) label goes, past its ticks
  std::string colorbar_label;                    // the label as it fits beside the bar (a long one loses its remark)
  double label_font = 0;                         // axis labels and ticks
  int row_label_every = 1, col_label_every = 1;  // heatmaps and bars: label every k-th
  std::vector<Rect> token_boxes;                 // token text panels: where each token goes
  Rect table;                                    // token text panels: the pair table
  int table_rows_shown = 0;                      // rows that fit (the rest is summarised in one line)
};

struct FigureLayout {
  double width = 0, height = 0, font_size = 0;
  Rect title, caption;
  std::vector<std::string> title_lines, caption_lines;  // wrapped to the figure's width
  std::vector<PanelLayout> panels;
};

// Lays out `figure` in `width` units; the height follows from the content.
FigureLayout layout_figure(const Figure& figure, double width, double font_size, const TextMeasure& measure);

// The text cut into lines no wider than `width` at spaces (a word wider than that stays whole).
std::vector<std::string> wrap_words(const std::string& text, double width, double font_size,
                                    const TextMeasure& measure);

// The label shown for an axis entry: long labels are cut with an ellipsis.
std::string axis_label(const std::string& label);

// Where the two columns of a lines panel stand (the tokens are written left of the first and
// right of the second).
inline double lines_left(const Rect& plot) { return plot.x + plot.w * 0.3; }
inline double lines_right(const Rect& plot) { return plot.x + plot.w * 0.7; }
// Which token of a lines panel a point is over: {0 (left) or 1 (right), index}, or {-1, -1}.
std::pair<int, int> lines_token(const LinesPanel& panel, const PanelLayout& layout, double x, double y,
                                const TextMeasure& measure);

// Which heatmap cell a point is over, or {-1, -1}.
std::pair<int, int> heatmap_cell(const HeatmapPanel& panel, const PanelLayout& layout, double x, double y);

}  // namespace attnscope
