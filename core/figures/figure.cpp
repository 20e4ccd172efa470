#include "figures/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnscope {

const std::vector<Rgb>& palette() {
  // Twelve well separated hues of medium lightness (after the "Tableau" and "Set1" families).
  static const std::vector<Rgb> colors = {
      {0.12f, 0.47f, 0.71f}, {1.00f, 0.50f, 0.05f}, {0.17f, 0.63f, 0.17f}, {0.84f, 0.15f, 0.16f},
      {0.58f, 0.40f, 0.74f}, {0.55f, 0.34f, 0.29f}, {0.89f, 0.47f, 0.76f}, {0.50f, 0.50f, 0.50f},
      {0.74f, 0.74f, 0.13f}, {0.09f, 0.75f, 0.81f}, {0.35f, 0.20f, 0.60f}, {0.90f, 0.67f, 0.00f},
  };
  return colors;
}

Rgb palette_color(int index) {
  const auto& p = palette();
  return p[static_cast<size_t>(index < 0 ? 0 : index) % p.size()];
}

const std::string& panel_title(const Panel& panel) {
  return std::visit([](const auto& p) -> const std::string& { return p.title; }, panel);
}

double bar_axis_top(const BarPanel& p) {
  if (p.y_max) return *p.y_max;
  double top = 0;
  for (const auto& s : p.series)
    for (double v : s.values)
      if (!std::isnan(v)) top = std::max(top, v);
  return top > 0 ? top * 1.05 : 1.0;
}

std::vector<double> bar_axis_ticks(double top, bool whole_numbers) {
  if (!(top > 0) || !std::isfinite(top)) return {0.0};
  const double power = std::pow(10.0, std::floor(std::log10(top)));  // power <= top < 10 power
  double step = whole_numbers ? 1.0 : power / 10;
  // The round steps from the largest that could fit twice down; the first that does leaves 2 to 4.
  for (double m : {5.0, 2.5, 2.0, 1.0, 0.5, 0.25, 0.2}) {
    const double candidate = m * power;
    if (whole_numbers && (candidate < 1 || candidate != std::floor(candidate))) continue;
    if (top / candidate >= 2) {
      step = candidate;
      break;
    }
  }
  std::vector<double> ticks;
  // k * step, not a running sum, so that the ticks do not collect rounding errors.
  for (int k = 0; k * step <= top * (1 + 1e-9); ++k) ticks.push_back(k * step);
  return ticks;
}

std::vector<double> bar_axis_ticks(const BarPanel& p) {
  bool whole = !p.y_max;
  for (const auto& s : p.series)
    for (double v : s.values) whole = whole && (std::isnan(v) || v == std::floor(v));
  return bar_axis_ticks(bar_axis_top(p), whole);
}

double outline_width(double cell) { return cell < 2 ? 0.0 : std::max(0.3, cell * 0.12); }

int64_t round_step(int64_t at_least) {
  for (int64_t power = 1;; power *= 10)
    for (int64_t m : {1, 2, 5})
      if (m * power >= at_least) return m * power;
}

std::string tick_label(double v) {
  char buf[32];
  // Three significant digits, but a thousand to a million in full: 8930, not 8.93e+03.
  if (std::abs(v) >= 999.5 && std::abs(v) < 1e6)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::pair<std::string, std::string> colorbar_ticks(const ColorScale& s) {
  const double top = s.symmetric ? std::max(std::abs(s.lo), std::abs(s.hi)) : s.hi;
  const double bottom = s.symmetric ? -top : (s.scale == ValueScale::Log ? s.hi / 1e3 : s.lo);
  // A clipped scale says so at its top (the top colour stands for that value and above), and a
  // signed one at its bottom too (|v| is clipped).
  const bool clipped = s.scale == ValueScale::Clipped;
  return {(clipped ? "\u2265" : "") + tick_label(top), (clipped && s.symmetric ? "\u2264" : "") + tick_label(bottom)};
}

HeatmapPanel difference_heatmap(const HeatmapPanel& a, const HeatmapPanel& b, std::string title, ValueScale scale) {
  HeatmapPanel d = b;
  d.title = std::move(title);
  for (size_t k = 0; k < d.values.size(); ++k) d.values[k] = b.values[k] - a.values[k];
  d.colormap = ColormapId::Diverging;
  d.color_scale = color_scale_for(d.values, scale == ValueScale::Log ? ValueScale::Linear : scale, true);
  d.colorbar_label = "difference";
  d.outlined.clear();
  return d;
}

void share_color_scale(HeatmapPanel& a, HeatmapPanel& b, ValueScale scale, bool symmetric) {
  std::vector<float> both = a.values;
  both.insert(both.end(), b.values.begin(), b.values.end());
  a.color_scale = b.color_scale = color_scale_for(both, scale, symmetric);
}

Figure titled_figure(std::string title, std::string caption, int columns) {
  Figure f;
  f.title = std::move(title);
  f.caption = std::move(caption);
  f.columns = columns;
  return f;
}

std::string head_name(int layer, int head) {
  return head < 0 ? "layer " + std::to_string(layer) + " (sum of heads)"
                  : "layer " + std::to_string(layer) + ", head " + std::to_string(head);
}

std::vector<std::string> head_categories(int64_t heads) {
  std::vector<std::string> c;
  // Appended: through "h" + std::to_string(h) GCC 12 warns falsely (-Wstringop-overflow, -Warray-bounds).
  for (int64_t h = 0; h < heads; ++h) c.push_back(std::string("h").append(std::to_string(h)));
  return c;
}

double value_or_nan(const std::optional<double>& v) { return v ? *v : std::nan(""); }

}  // namespace attnscope
