#include "report/finding_figures.h"

#include <cmath>

#include "figures/colormap.h"

namespace attnscope {
namespace {

std::vector<double> values(const std::vector<MaybeValue>& v) {
  std::vector<double> out;
  for (const MaybeValue& x : v) out.push_back(value_or_nan(x));
  return out;
}

std::vector<std::string> layer_categories(int64_t layers) {
  std::vector<std::string> out;
  for (int64_t l = 0; l < layers; ++l) out.push_back(std::to_string(l));
  return out;
}

BarPanel layer_bars(const RunMeasures& m, std::string y_label, std::optional<double> y_max) {
  BarPanel p;
  p.title = m.name;
  p.x_label = "layer";
  p.y_label = std::move(y_label);
  p.categories = layer_categories(m.layers);
  p.y_max = y_max;
  return p;
}

BarSeries series(std::string name, std::vector<double> v, int color, bool markers = false) {
  return {std::move(name), std::move(v), palette_color(color), markers};
}

HeatmapPanel head_map(const RunMeasures& m, const LayerHeadValues& v, std::string bar) {
  HeatmapPanel p;
  p.title = m.name;
  p.rows = static_cast<int>(m.layers);
  p.cols = static_cast<int>(m.heads);
  for (const auto& layer : v)
    for (const MaybeValue& x : layer) p.values.push_back(x ? static_cast<float>(*x) : NAN);
  p.row_labels = layer_categories(m.layers);
  p.col_labels = head_categories(m.heads);
  p.x_label = "head";
  p.y_label = "layer";
  p.color_scale = {0, 1};
  p.colorbar_label = std::move(bar);
  return p;
}

// The same value for each of `count` categories (a level drawn as markers).
std::vector<MaybeValue> constant(MaybeValue v, int64_t count) {
  return std::vector<MaybeValue>(static_cast<size_t>(count), v);
}

Panel finding_panel(const std::string& key, const RunMeasures& m) {
  if (key == "first-token" || key == "middle-diagonal") {
    BarPanel p = layer_bars(m, "share of the layer's attention", 1.0);
    std::vector<MaybeValue> first(m.first_column_share.begin(), m.first_column_share.end()),
        band(m.band_share.begin(), m.band_share.end());
    p.series = {series("first position", values(first), 0), series("band |j - i| <= 1", values(band), 1)};
    return p;
  }
  if (key == "separators") {
    BarPanel p = layer_bars(m, "share of the layer's separators", 1.0);
    p.series = {
        series("first token", values(m.separators_first), 0), series("special", values(m.separators_special), 2),
        series("punctuation", values(m.separators_punctuation), 1), series("word", values(m.separators_word), 3),
        series("punctuation among all tokens", values(constant(m.punctuation_base, m.layers)), 4, true)};
    return p;
  }
  if (key == "summed-diagonal") return head_map(m, m.rows_on_band, "rows peaking on the band");
  if (key == "repeat-heads") return head_map(m, m.repeat_share, "mean repeat share");
  if (key == "anchor") return head_map(m, m.anchor_share, "mean anchor share");
  if (key == "distances") {
    BarPanel p = layer_bars(m, "mean pair distance (tokens)", std::nullopt);
    p.series = {series("pooled over heads and texts", values(m.mean_distance), 0)};
    return p;
  }
  if (key == "last-layer-range") {
    BarPanel p;
    p.title = m.name + ", layer " + std::to_string(m.layers - 1);
    p.x_label = "head";
    p.y_label = "mean pair distance (tokens)";
    p.categories = head_categories(m.heads);
    const double limit = 50.0 * static_cast<double>(m.window) / 128.0;
    p.series = {series("pooled over texts", values(m.head_distance.back()), 0),
                series("limit (50 of 128)", std::vector<double>(static_cast<size_t>(m.heads), limit), 4, true)};
    return p;
  }
  if (key == "same-sentence") {
    BarPanel p = layer_bars(m, "same-sentence share", 1.0);
    p.series = {series("mean over heads", values(m.same_sentence_share), 0),
                series("chance", values(constant(m.chance, m.layers)), 4, true)};
    return p;
  }
  BarPanel p = layer_bars(m, "distinct anchors", static_cast<double>(m.heads));  // "distinct-anchors"
  p.series = {series("mean over texts", values(m.distinct_anchors), 0),
              series("H", std::vector<double>(static_cast<size_t>(m.layers), static_cast<double>(m.heads)), 4, true)};
  return p;
}

}  // namespace

Figure finding_figure(const Finding& finding, const std::vector<RunMeasures>& runs) {
  Figure f =
      titled_figure(finding.claim, finding.measure, std::min<int>(2, std::max<int>(1, static_cast<int>(runs.size()))));
  for (const RunMeasures& m : runs) f.panels.push_back(finding_panel(finding.key, m));
  return f;
}

}  // namespace attnscope
