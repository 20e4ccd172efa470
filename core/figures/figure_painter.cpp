#include "figures/figure_painter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/count_text.h"

namespace attnscope {
namespace {

// Sections: heatmaps; bars; lines; token text; the figure.

const Rgb kInk{0.1f, 0.1f, 0.1f}, kGrey{0.55f, 0.55f, 0.55f}, kWhite{1, 1, 1}, kFocus{1.0f, 0.85f, 0.3f};

void paint_colorbar(Painter& g, const HeatmapPanel& p, const PanelLayout& l) {
  const Rect& r = l.colorbar;
  g.colorbar(p.colormap, r);
  const auto [top, bottom] = colorbar_ticks(p.color_scale);
  g.text(top, r.right() + 3, r.y, l.label_font, Align::Left, false, kInk);
  g.text(bottom, r.right() + 3, r.bottom(), l.label_font, Align::Left, false, kInk);
  if (!l.colorbar_label.empty())
    g.text(l.colorbar_label, l.colorbar_label_x, r.y + r.h / 2, l.label_font, Align::Center, true, kInk);
}

void paint_heatmap_labels(Painter& g, const HeatmapPanel& p, const PanelLayout& l) {
  const Rect& r = l.plot;
  const double ch = r.h / std::max(1, p.rows), cw = r.w / std::max(1, p.cols);
  for (int i = 0; i < static_cast<int>(p.row_labels.size()); i += l.row_label_every)
    g.text(axis_label(p.row_labels[i]), r.x - 3, r.y + (i + 0.5) * ch, l.label_font, Align::Right, false, kInk);
  for (int j = 0; j < static_cast<int>(p.col_labels.size()); j += l.col_label_every)
    g.text(axis_label(p.col_labels[j]), r.x + (j + 0.5) * cw, r.bottom() + 3, l.label_font, Align::Right, true, kInk);
  // An axis title longer than its side is left out rather than run into the neighbours.
  if (!p.x_label.empty() && g.text_width(p.x_label, l.label_font) <= r.w * 1.5)
    g.text(p.x_label, r.x + r.w / 2, l.cell.bottom() - l.label_font * 0.6, l.label_font, Align::Center, false, kInk);
  if (!p.y_label.empty() && g.text_width(p.y_label, l.label_font) <= r.h)
    g.text(p.y_label, l.cell.x + l.label_font * 0.6, r.y + r.h / 2, l.label_font, Align::Center, true, kInk);
}

void paint_heatmap(Painter& g, const HeatmapPanel& p, size_t index, const PanelLayout& l) {
  if (p.rows <= 0 || p.cols <= 0) return;
  g.heatmap(p, index, l.plot);
  g.frame(l.plot, kGrey, 0.5);
  paint_heatmap_labels(g, p, l);
  if (!p.colorbar_label.empty() || !p.row_labels.empty()) paint_colorbar(g, p, l);
}

void paint_bar_axes(Painter& g, const BarPanel& p, const PanelLayout& l, double top) {
  const Rect& r = l.plot;
  g.line(r.x, r.y, r.x, r.bottom(), kGrey, 1, 0.6);
  g.line(r.x, r.bottom(), r.right(), r.bottom(), kGrey, 1, 0.6);
  for (double tick : bar_axis_ticks(p))
    g.text(tick_label(tick), r.x - 3, r.bottom() - tick / top * r.h, l.label_font, Align::Right, false, kInk);
  const double step = r.w / std::max<size_t>(1, p.categories.size());
  const bool upright = l.row_label_every == 0;
  for (size_t c = 0; c < p.categories.size(); c += static_cast<size_t>(std::max(1, l.col_label_every)))
    g.text(axis_label(p.categories[c]), r.x + (c + 0.5) * step, r.bottom() + (upright ? l.label_font * 0.7 : 3),
           l.label_font, upright ? Align::Center : Align::Right, !upright, kInk);
  // An axis title longer than its side is left out rather than run into the neighbours.
  if (!p.x_label.empty() && g.text_width(p.x_label, l.label_font) <= r.w * 1.5)
    g.text(p.x_label, r.x + r.w / 2, l.cell.bottom() - l.label_font * 0.6, l.label_font, Align::Center, false, kInk);
  if (!p.y_label.empty() && g.text_width(p.y_label, l.label_font) <= r.h)
    g.text(p.y_label, l.cell.x + l.label_font * 0.6, r.y + r.h / 2, l.label_font, Align::Center, true, kInk);
}

void paint_legend(Painter& g, const BarPanel& p, const PanelLayout& l) {
  if (p.series.size() < 2) return;
  double x = l.plot.x;
  const double y = l.plot.y - l.label_font * 0.9, box = l.label_font * 0.7;
  for (const auto& s : p.series) {
    g.fill_rect({x, y - box / 2, box, box}, s.color, 1);
    g.text(s.name, x + l.label_font, y, l.label_font, Align::Left, false, kInk);
    x += l.label_font * 2 + g.text_width(s.name, l.label_font);
  }
}

void paint_bars(Painter& g, const BarPanel& p, const PanelLayout& l) {
  const double top = bar_axis_top(p);
  const Rect& r = l.plot;
  const double step = r.w / std::max<size_t>(1, p.categories.size());
  size_t bar_series = 0;
  for (const auto& s : p.series) bar_series += !s.markers;
  const double bar_w = step * 0.8 / std::max<size_t>(1, bar_series);
  size_t k = 0;
  for (const auto& s : p.series) {
    for (size_t c = 0; c < s.values.size() && c < p.categories.size(); ++c) {
      const double v = s.values[c], x0 = r.x + c * step + step * 0.1;
      if (std::isnan(v)) {
        if (!s.markers && step > l.label_font)
          g.text("n/a", x0 + step * 0.4, r.bottom() - l.label_font * 0.6, l.label_font * 0.7, Align::Center, false,
                 kGrey);
        continue;
      }
      const double h = std::clamp(v / top, 0.0, 1.0) * r.h;
      if (s.markers)
        g.line(x0, r.bottom() - h, x0 + step * 0.8, r.bottom() - h, s.color, 1, 1.5);
      else
        g.fill_rect({x0 + k * bar_w, r.bottom() - h, bar_w, h}, s.color, 1);
    }
    k += !s.markers;
  }
  paint_bar_axes(g, p, l, top);
  paint_legend(g, p, l);
}

void paint_lines(Painter& g, const LinesPanel& p, const PanelLayout& l) {
  const Rect& r = l.plot;
  const size_t n = p.tokens.size();
  const double line_h = r.h / std::max<size_t>(1, n), left = lines_left(r), right = lines_right(r);
  if (p.heads.size() > 1) {  // the legend: each head's name in its colour
    double x = l.cell.x;
    for (const LinesHead& h : p.heads) {
      g.fill_rect({x, r.y - l.label_font * 1.35, l.label_font * 0.8, l.label_font * 0.8}, h.color, 1);
      g.text(h.name, x + l.label_font, r.y - l.label_font * 0.95, l.label_font, Align::Left, false, kInk);
      x += l.label_font * 1.6 + g.text_width(h.name, l.label_font);
    }
  }
  const auto row_y = [&](size_t k) { return r.y + (static_cast<double>(k) + 0.5) * line_h; };
  const bool focused = p.focus_side >= 0 && p.focus_index >= 0 && static_cast<size_t>(p.focus_index) < n;
  for (size_t i = 0; i < n; ++i) {
    const bool mark_left = focused && p.focus_side == 0 && i == static_cast<size_t>(p.focus_index);
    const bool mark_right = focused && p.focus_side == 1 && i == static_cast<size_t>(p.focus_index);
    if (mark_left)
      g.fill_rect({left - 6 - g.text_width(p.tokens[i], l.label_font), row_y(i) - line_h / 2,
                   g.text_width(p.tokens[i], l.label_font) + 6, line_h},
                  kFocus, 0.6);
    if (mark_right)
      g.fill_rect({right, row_y(i) - line_h / 2, g.text_width(p.tokens[i], l.label_font) + 6, line_h}, kFocus, 0.6);
    g.text(p.tokens[i], left - 4, row_y(i), l.label_font, Align::Right, false, kInk);
    g.text(p.tokens[i], right + 4, row_y(i), l.label_font, Align::Left, false, kInk);
  }
  // Several heads share the opacity, so that where all of them attend the line is solid.
  const float share = 1.0f / static_cast<float>(std::max<size_t>(1, p.heads.size()));
  for (const LinesHead& h : p.heads)
    for (const AttentionLine& a : h.lines) {
      if (focused && (p.focus_side == 0 ? a.from : a.to) != p.focus_index) continue;
      g.line(left, row_y(static_cast<size_t>(a.from)), right, row_y(static_cast<size_t>(a.to)), h.color,
             std::min(1.0f, focused ? a.weight : a.weight * share), focused ? 2.0 : 1.2);
    }
}

void paint_token_text(Painter& g, const TokenTextPanel& p, const PanelLayout& l) {
  for (size_t k = 0; k < p.tokens.size() && k < l.token_boxes.size(); ++k) {
    const Rect& b = l.token_boxes[k];
    if (p.color_index[k] >= 0) g.fill_rect(b, palette_color(p.color_index[k]), 0.45);
    g.text(p.tokens[k], b.x + b.w / 2, b.y + b.h / 2, l.label_font, Align::Center, false, kInk);
  }
  const size_t cols = std::max<size_t>(1, p.table_header.size());
  const double cw = l.table.w / cols, rh = l.label_font * 1.35;
  double y = l.table.y + rh / 2;
  for (size_t c = 0; c < p.table_header.size(); ++c)
    g.text(p.table_header[c], l.table.x + c * cw, y, l.label_font, Align::Left, false, kGrey);
  for (int row = 0; row < l.table_rows_shown; ++row) {
    y += rh;
    for (size_t c = 0; c < p.table[row].size(); ++c)
      g.text(p.table[row][c], l.table.x + c * cw, y, l.label_font, Align::Left, false, kInk);
  }
  if (p.rows_in_all() > l.table_rows_shown)
    g.text("... and " + count(static_cast<uint64_t>(p.rows_in_all() - l.table_rows_shown), "more pair"), l.table.x,
           y + rh, l.label_font, Align::Left, false, kGrey);
}

}  // namespace

TextMeasure measure_with(Painter& painter) {
  return [&painter](const std::string& t, double size) { return painter.text_width(t, size); };
}

void paint_figure(Painter& g, const Figure& figure, const FigureLayout& layout) {
  g.fill_rect({0, 0, layout.width, layout.height}, kWhite, 1);
  const double f = layout.font_size;
  for (size_t k = 0; k < layout.title_lines.size(); ++k)
    g.text(layout.title_lines[k], layout.title.x, layout.title.y + f * 1.6 * (static_cast<double>(k) + 0.5), f * 1.25,
           Align::Left, false, kInk);
  for (size_t k = 0; k < layout.caption_lines.size(); ++k)
    g.text(layout.caption_lines[k], layout.caption.x, layout.caption.y + f * 1.3 * (static_cast<double>(k) + 0.5),
           f * 0.9, Align::Left, false, kGrey);
  for (size_t i = 0; i < figure.panels.size(); ++i) {
    const PanelLayout& l = layout.panels[i];
    for (size_t k = 0; k < l.title_lines.size(); ++k)
      g.text(l.title_lines[k], l.title.x, l.title.y + f * 1.4 * (static_cast<double>(k) + 0.5), f, Align::Left, false,
             kInk);
    std::visit(
        [&](const auto& p) {
          using T = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<T, HeatmapPanel>) paint_heatmap(g, p, i, l);
          if constexpr (std::is_same_v<T, BarPanel>) paint_bars(g, p, l);
          if constexpr (std::is_same_v<T, LinesPanel>) paint_lines(g, p, l);
          if constexpr (std::is_same_v<T, TokenTextPanel>) paint_token_text(g, p, l);
        },
        figure.panels[i]);
  }
}

}  // namespace attnscope
