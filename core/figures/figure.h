#pragma once
// A figure is data: a title and panels (heatmaps, bar charts, attention lines, highlighted text
// with a table), each complete with its labels and colour scale. The explorer draws a figure on
// screen and the exporters write the same figure to PNG, SVG and PDF, so what the user sees is
// what goes into the paper.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "figures/colormap.h"

namespace attnscope {

struct HeatmapPanel {
  std::string title;
  int rows = 0, cols = 0;
  std::vector<float> values;                        // row-major rows x cols; NaN: an empty cell (drawn as background)
  std::vector<std::string> row_labels, col_labels;  // empty, or one per row / column
  // Labels that count 0, 1, 2 ... (positions, distances): where crowded, every 1, 2 or 5 x 10^k-th
  // is written (0, 10, 20), not every 6th.
  bool rows_counted = false, cols_counted = false;
  std::string x_label, y_label;
  ColormapId colormap = ColormapId::Viridis;
  ColorScale color_scale;
  std::string colorbar_label;
  std::vector<std::pair<int, int>> outlined;  // (row, col) cells drawn with an outline (high similarity)

  float value(int r, int c) const { return values[static_cast<size_t>(r) * cols + c]; }
};

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per category; NaN: undefined (drawn as "n/a")
  Rgb color;
  bool markers = false;  // drawn as a horizontal tick per category instead of a bar (chance level)
};

struct BarPanel {
  std::string title, x_label, y_label;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  int label_every = 1;          // label every k-th category (long histograms)
  std::optional<double> y_max;  // fixed axis top (1 for shares); else from the data
};

// For teaching (bertviz's head view): the tokens in two columns, a line from token i (left) to
// token j (right) with opacity following A_ij, one colour per head. With a focus, only the lines
// of one token are drawn: from a token on the left (what it attends to) or into a token on the
// right (what attends to it). Only the lines drawn are kept: a row of attention sums to 1, so a
// token has at most 1 / min_weight of them, and a long text's lines take O(n), not n x n.
struct AttentionLine {
  int from = 0, to = 0;  // i (left), j (right)
  float weight = 0;      // A_ij
  bool operator==(const AttentionLine&) const = default;
};

struct LinesHead {
  std::string name;                  // "layer 3, head 5"
  std::vector<AttentionLine> lines;  // A_ij >= the panel's min_weight, by i then j
  Rgb color{0.12f, 0.35f, 0.75f};
};

struct LinesPanel {
  std::string title;
  std::vector<std::string> tokens;
  std::vector<LinesHead> heads;
  float min_weight = 0.02f;  // lines below this are not kept
  int focus_side = -1;       // -1: every line; 0: the lines from token focus_index (left); 1: into it (right)
  int focus_index = -1;
};

// Fig. 9: the text with the tokens of each pair coloured (one colour per token value), and the
// pair table, of which a figure shows the first rows.
constexpr int kTableRowsShown = 40;
struct TokenTextPanel {
  std::string title;
  std::vector<std::string> tokens;
  std::vector<int> color_index;  // per token: -1 none, else an index into palette()
  std::vector<std::string> table_header;
  std::vector<std::vector<std::string>> table;  // rows of cells: the first kTableRowsShown at most
  int64_t table_rows = -1;                      // rows in all ("... and N more"); -1: table.size()
  int64_t rows_in_all() const { return table_rows < 0 ? static_cast<int64_t>(table.size()) : table_rows; }
};

using Panel = std::variant<HeatmapPanel, BarPanel, LinesPanel, TokenTextPanel>;

struct Figure {
  std::string title;
  std::string caption;  // one line under the title: model, text, settings
  int columns = 1;      // panels are laid out in a grid of this many columns
  std::vector<Panel> panels;
};

// Distinct colours for categories (pair tokens, bar series): readable on white and on dark grey.
const std::vector<Rgb>& palette();
Rgb palette_color(int index);

const std::string& panel_title(const Panel& panel);

// B - A of two heatmaps of one shape, with B's labels, on a diverging colour scale centred at 0 (a
// log scale is taken as linear: differences are signed), without outlines.
HeatmapPanel difference_heatmap(const HeatmapPanel& a, const HeatmapPanel& b, std::string title, ValueScale scale);
// One colour scale for two heatmaps shown side by side, so that one colour is one value in both.
void share_color_scale(HeatmapPanel& a, HeatmapPanel& b, ValueScale scale, bool symmetric);

// An empty figure with its title, caption and number of panel columns.
Figure titled_figure(std::string title, std::string caption, int columns);
// "layer 3, head 5", or "layer 3 (sum of heads)" for head -1: a head as titles name it.
std::string head_name(int layer, int head);
// "h0", "h1", ...: the categories of a bar panel over a layer's heads.
std::vector<std::string> head_categories(int64_t heads);
// A statistic for a bar panel: NaN (drawn "n/a") where undefined.
double value_or_nan(const std::optional<double>& v);

// The top of a bar panel's value axis (y_max, else 5% above the largest value, 1 when none).
double bar_axis_top(const BarPanel& panel);
// The values ticked on a value axis from 0 to `top`: 0 and the multiples of the largest round step
// (1, 2, 2.5 or 5 times a power of ten) that has at least two of them up to the top, so that a
// figure's axis reads 0, 10, 20, 30 rather than 0, 15.8, 31.5 (two to four ticks above 0). With
// `whole_numbers` (counts) the step is a whole number: 0, 2, 4 rather than 0, 2.5, 5.
std::vector<double> bar_axis_ticks(double top, bool whole_numbers = false);
// A bar panel's ticks: up to bar_axis_top, whole numbers where every value is one.
std::vector<double> bar_axis_ticks(const BarPanel& panel);
// The smallest of 1, 2 and 5 times a power of ten that is at least `at_least`: a round number of
// categories to label at once, or to sum into one bar.
int64_t round_step(int64_t at_least);
// The stroke outlining a pair's cell in an exported heatmap, for cells `cell` units a side; 0 (no
// outlines) below 2 units, where an outline would cover its cell and its neighbours' (a 512-token
// map of Gemma 3's S, most of its cells pairs, was exported black; the window draws them from 3 pixels).
double outline_width(double cell);
// Three significant digits ("0.548", "29.9"), and a thousand to a million in full ("8930").
std::string tick_label(double value);
// The labels at the top and bottom of a heatmap's colour bar; a clipped scale's top says ">=".
std::pair<std::string, std::string> colorbar_ticks(const ColorScale& scale);

}  // namespace attnscope
