#include "figures/figure_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "tokenizer/utf8.h"

namespace attnscope {
namespace {

constexpr size_t kMaxLabelChars = 14;
constexpr double kUncapped = std::numeric_limits<double>::infinity();

int label_step(double cell_size, double font) {
  if (cell_size <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(font * 1.15 / cell_size)));
}

double widest(const std::vector<std::string>& labels, double font, const TextMeasure& measure) {
  double w = 0;
  for (const auto& l : labels) w = std::max(w, measure(axis_label(l), font));
  return w;
}

// Heatmap: a square plot with labels left and below (below: written upwards) and a colorbar
// whose ticks and label get the room they need; its side at most `side_cap` (share_map_sides).
double layout_heatmap(const HeatmapPanel& p, PanelLayout& out, double font, const TextMeasure& measure,
                      double side_cap) {
  const Rect& c = out.cell;
  out.label_font = font * 0.8;
  const bool has_colorbar = !p.colorbar_label.empty() || !p.row_labels.empty();  // as figure_painter draws it
  const double row_w = p.row_labels.empty() ? 0 : widest(p.row_labels, out.label_font, measure) + font * 0.4;
  const double col_h = p.col_labels.empty() ? 0 : widest(p.col_labels, out.label_font, measure) + font * 0.4;
  const double axis_titles = (p.x_label.empty() ? 0 : font * 1.3);
  const auto [top_tick, bottom_tick] = colorbar_ticks(p.color_scale);
  const double ticks_w = std::max(measure(top_tick, out.label_font), measure(bottom_tick, out.label_font));
  const double bar_w = has_colorbar ? font * 0.8 + font * 0.9 + 3 + ticks_w + font * 0.4 +
                                          (p.colorbar_label.empty() ? 0 : out.label_font * 1.2)
                                    : 0;
  double side = c.w - row_w - bar_w - (p.y_label.empty() ? 0 : font * 1.3);
  side = std::max(std::min(side, side_cap), font * 2);
  const double cell_w = side / std::max(1, p.cols), cell_h = side / std::max(1, p.rows);
  out.row_label_every = label_step(cell_h, out.label_font);
  out.col_label_every = label_step(cell_w, out.label_font);
  if (p.rows_counted && out.row_label_every > 1)
    out.row_label_every = static_cast<int>(round_step(out.row_label_every));
  if (p.cols_counted && out.col_label_every > 1)
    out.col_label_every = static_cast<int>(round_step(out.col_label_every));
  const double left = c.x + row_w + (p.y_label.empty() ? 0 : font * 1.3);
  out.plot = {left, out.title.bottom(), side, side};
  out.colorbar = {out.plot.right() + font * 0.8, out.plot.y, font * 0.9, side};
  out.colorbar_label_x = out.colorbar.right() + 3 + ticks_w + font * 0.4 + out.label_font * 0.5;
  // Beside a short bar, "A_ij (top 1% clipped)" becomes "A_ij" (the >= of the top tick still says it).
  out.colorbar_label = p.colorbar_label;
  if (measure(out.colorbar_label, out.label_font) > side * 0.9 && out.colorbar_label.find(" (") != std::string::npos)
    out.colorbar_label = out.colorbar_label.substr(0, out.colorbar_label.find(" ("));
  return out.title.h + side + col_h + axis_titles;
}

double layout_bars(const BarPanel& p, PanelLayout& out, double font, const TextMeasure& measure) {
  const Rect& c = out.cell;
  out.label_font = font * 0.8;
  double tick_w = 0;
  for (double tick : bar_axis_ticks(p))
    tick_w = std::max(tick_w, measure(tick_label(tick), out.label_font));  // as figure_painter writes them
  tick_w += font * 0.5;
  const double y_title = p.y_label.empty() ? 0 : font * 1.3;
  const double plot_w = std::max(font * 4, c.w - tick_w - y_title - font * 0.5);
  const double step = plot_w / std::max<size_t>(1, p.categories.size());
  double cat_w = 0;
  for (size_t i = 0; i < p.categories.size(); i += static_cast<size_t>(std::max(1, p.label_every)))
    cat_w = std::max(cat_w, measure(axis_label(p.categories[i]), out.label_font));
  out.col_label_every = std::max(p.label_every, label_step(step, out.label_font));
  // A crowded axis labels every 1, 2 or 5 x 10^k-th category: distances 0, 500, 1000 rather than
  // 0, 233, 466 (a histogram's categories count up from 0, its labels the multiples of the step).
  if (out.col_label_every > p.label_every) out.col_label_every = static_cast<int>(round_step(out.col_label_every));
  const bool upright = cat_w + font * 0.3 <= step * out.col_label_every;
  const double label_h = upright ? font * 1.1 : cat_w + font * 0.4;
  const double plot_h = std::max(font * 5, plot_w * 0.45);
  // A tick at the axis' top is centred on it: half a line above the plot keeps it off the title.
  const double legend = p.series.size() > 1 ? font * 1.4 : out.label_font * 0.6;
  out.plot = {c.x + tick_w + y_title, out.title.bottom() + legend, plot_w, plot_h};
  out.row_label_every = upright ? 0 : 1;  // 0: category labels upright, 1: written upwards
  return out.title.h + legend + plot_h + label_h + (p.x_label.empty() ? 0 : font * 1.3);
}

double layout_lines(const LinesPanel& p, PanelLayout& out, double font, const TextMeasure&) {
  out.label_font = font * 0.85;
  const double line_h = out.label_font * 1.35;
  const double h = line_h * std::max<size_t>(1, p.tokens.size());
  const double legend = p.heads.size() > 1 ? font * 1.4 : 0;  // one colour per head, named
  out.plot = {out.cell.x, out.title.bottom() + legend, out.cell.w, h};
  out.row_label_every = 1;
  return out.title.h + legend + h + font * 0.5;
}

double layout_token_text(const TokenTextPanel& p, PanelLayout& out, double font, const TextMeasure& measure) {
  out.label_font = font * 0.9;
  const double line_h = out.label_font * 1.6, pad = out.label_font * 0.25, gap = measure(" ", out.label_font);
  double x = out.cell.x, y = out.title.bottom();
  out.token_boxes.clear();
  for (const auto& t : p.tokens) {
    const double w = measure(t, out.label_font) + 2 * pad;
    if (x + w > out.cell.right() && x > out.cell.x) {
      x = out.cell.x;
      y += line_h;
    }
    out.token_boxes.push_back({x, y, w, line_h * 0.85});
    x += w + gap;
  }
  const double text_h = (p.tokens.empty() ? 0 : y + line_h - out.title.bottom());
  out.plot = {out.cell.x, out.title.bottom(), out.cell.w, text_h};
  out.table_rows_shown = static_cast<int>(std::min<size_t>(p.table.size(), kTableRowsShown));
  const bool more = p.rows_in_all() > out.table_rows_shown;
  const double rows = (p.table_header.empty() ? 0 : 1) + out.table_rows_shown + (more ? 1 : 0);
  out.table = {out.cell.x, out.plot.bottom() + font * 0.6, out.cell.w, rows * out.label_font * 1.35};
  return out.title.h + text_h + font * 0.6 + out.table.h;
}

}  // namespace

std::vector<std::string> wrap_words(const std::string& text, double width, double font_size,
                                    const TextMeasure& measure) {
  std::vector<std::string> lines;
  std::string line;
  size_t p = 0;
  while (p < text.size()) {
    const size_t space = text.find(' ', p);
    const std::string word = text.substr(p, space == std::string::npos ? std::string::npos : space - p);
    const std::string longer = line.empty() ? word : line + " " + word;
    if (!line.empty() && measure(longer, font_size) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = longer;
    }
    if (space == std::string::npos) break;
    p = space + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

double approximate_text_width(const std::string& text, double font_size) {
  return 0.6 * font_size * static_cast<double>(count_code_points(text));
}

std::string axis_label(const std::string& label) {
  if (count_code_points(label) <= kMaxLabelChars) return label;
  return truncate_code_points(label, kMaxLabelChars - 1) + "\u2026";
}

namespace {

// Maps of a figure over the same tokens (Fig. 5's four, Fig. 12's layers, A beside B) label the
// same ones: each takes the largest step of those of its length (a plot a few points narrower
// beside a wider colour bar would otherwise pick another step, and label other tokens).
void share_label_steps(const Figure& figure, FigureLayout& out) {
  std::map<std::tuple<bool, int, bool>, int> largest;  // (rows or columns, count, counted): step
  const auto each = [&](const auto& visit) {
    for (size_t i = 0; i < figure.panels.size(); ++i)
      if (const auto* h = std::get_if<HeatmapPanel>(&figure.panels[i])) {
        if (!h->row_labels.empty()) visit(std::tuple{true, h->rows, h->rows_counted}, out.panels[i].row_label_every);
        if (!h->col_labels.empty()) visit(std::tuple{false, h->cols, h->cols_counted}, out.panels[i].col_label_every);
      }
  };
  each([&](const auto& key, int step) { largest[key] = std::max(largest[key], step); });
  each([&](const auto& key, int& step) { step = largest[key]; });
}

// The panels in a grid of `figure.columns` from `y` down; returns the bottom of the last row. A
// map's side is capped by `caps` (its rows and columns: side).
double lay_out_panels(const Figure& figure, FigureLayout& out, double y, double margin, const TextMeasure& measure,
                      const std::map<std::pair<int, int>, double>& caps) {
  const double font = out.font_size;
  const int columns = std::max(1, figure.columns);
  const double gap = font * 1.5;
  const double cell_w = (out.width - 2 * margin - gap * (columns - 1)) / columns;
  double row_h = 0;
  out.panels.clear();
  for (size_t i = 0; i < figure.panels.size(); ++i) {
    const int col = static_cast<int>(i % columns);
    if (col == 0 && i > 0) {
      y += row_h + gap;
      row_h = 0;
    }
    PanelLayout p;
    p.cell = {margin + col * (cell_w + gap), y, cell_w, 0};
    if (!panel_title(figure.panels[i]).empty())
      p.title_lines = wrap_words(panel_title(figure.panels[i]), cell_w, font, measure);
    p.title = {p.cell.x, y, cell_w, font * 1.4 * static_cast<double>(p.title_lines.size())};
    const double h = std::visit(
        [&](const auto& panel) -> double {
          using T = std::decay_t<decltype(panel)>;
          if constexpr (std::is_same_v<T, HeatmapPanel>) {
            const auto cap = caps.find({panel.rows, panel.cols});
            return layout_heatmap(panel, p, font, measure, cap == caps.end() ? kUncapped : cap->second);
          }
          if constexpr (std::is_same_v<T, BarPanel>) return layout_bars(panel, p, font, measure);
          if constexpr (std::is_same_v<T, LinesPanel>) return layout_lines(panel, p, font, measure);
          if constexpr (std::is_same_v<T, TokenTextPanel>) return layout_token_text(panel, p, font, measure);
          return 0.0;
        },
        figure.panels[i]);
    p.cell.h = h;
    row_h = std::max(row_h, h);
    out.panels.push_back(std::move(p));
  }
  return y + row_h;
}

// Maps of one figure over as many rows and columns (Fig. 2's head beside its layer, Fig. 5's four)
// are drawn the same size, the smallest any of them got: a wider colour bar's ticks ("248" against
// "62") or labels would otherwise leave one plot a few points smaller than its neighbour. Empty
// where every map already has its size.
std::map<std::pair<int, int>, double> shared_map_sides(const Figure& figure, const FigureLayout& out) {
  std::map<std::pair<int, int>, double> smallest;
  const auto each = [&](const auto& visit) {
    for (size_t i = 0; i < figure.panels.size(); ++i)
      if (const auto* h = std::get_if<HeatmapPanel>(&figure.panels[i])) visit(std::pair{h->rows, h->cols}, i);
  };
  each([&](const auto& key, size_t i) {
    const auto [it, added] = smallest.try_emplace(key, out.panels[i].plot.w);
    if (!added) it->second = std::min(it->second, out.panels[i].plot.w);
  });
  bool binding = false;
  each([&](const auto& key, size_t i) { binding |= out.panels[i].plot.w > smallest[key]; });
  return binding ? smallest : std::map<std::pair<int, int>, double>{};
}

}  // namespace

FigureLayout layout_figure(const Figure& figure, double width, double font, const TextMeasure& measure) {
  FigureLayout out;
  out.width = width;
  out.font_size = font;
  const double margin = font;
  double y = margin * 0.5;
  if (!figure.title.empty()) {
    out.title_lines = wrap_words(figure.title, width - 2 * margin, font * 1.25, measure);
    out.title = {margin, y, width - 2 * margin, font * 1.6 * static_cast<double>(out.title_lines.size())};
    y = out.title.bottom();
  }
  if (!figure.caption.empty()) {
    out.caption_lines = wrap_words(figure.caption, width - 2 * margin, font * 0.9, measure);
    out.caption = {margin, y, width - 2 * margin, font * 1.3 * static_cast<double>(out.caption_lines.size())};
    y = out.caption.bottom();
  }
  y += font * 0.5;
  double bottom = lay_out_panels(figure, out, y, margin, measure, {});
  const auto sides = shared_map_sides(figure, out);
  if (!sides.empty()) bottom = lay_out_panels(figure, out, y, margin, measure, sides);
  out.height = bottom + margin;
  share_label_steps(figure, out);
  return out;
}

std::pair<int, int> lines_token(const LinesPanel& panel, const PanelLayout& layout, double x, double y,
                                const TextMeasure& measure) {
  const Rect& r = layout.plot;
  const size_t n = panel.tokens.size();
  if (n == 0 || y < r.y || y >= r.bottom()) return {-1, -1};
  const auto i = std::min(n - 1, static_cast<size_t>((y - r.y) / r.h * static_cast<double>(n)));
  const double left = lines_left(r), right = lines_right(r), w = measure(panel.tokens[i], layout.label_font) + 8;
  if (x >= left - w && x <= left + 4) return {0, static_cast<int>(i)};
  if (x >= right - 4 && x <= right + w) return {1, static_cast<int>(i)};
  return {-1, -1};
}

std::pair<int, int> heatmap_cell(const HeatmapPanel& panel, const PanelLayout& layout, double x, double y) {
  if (!layout.plot.contains(x, y) || panel.rows <= 0 || panel.cols <= 0) return {-1, -1};
  const int c = std::min(panel.cols - 1, static_cast<int>((x - layout.plot.x) / layout.plot.w * panel.cols));
  const int r = std::min(panel.rows - 1, static_cast<int>((y - layout.plot.y) / layout.plot.h * panel.rows));
  return {r, c};
}

}  // namespace attnscope
