#include "figures/compare_figures.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

// The focus both runs have: the last common layer when none is chosen.
FigureOptions common_focus(const ComparedTextsView& r, const FigureOptions& options) {
  FigureOptions o = options;
  const TextComparison& c = r.comparison;
  if (o.layer < 0) o.layer = static_cast<int>(c.layers) - 1;
  if (o.layer >= c.layers)
    throw Error("layer " + std::to_string(o.layer) + " is not in both runs (0 .. " + std::to_string(c.layers - 1) +
                ")");
  if (o.head < -1 || o.head >= c.heads)
    throw Error("head " + std::to_string(o.head) + " is not in both runs (0 .. " + std::to_string(c.heads - 1) + ")");
  return o;
}

HeatmapPanel head_grid(const std::string& title, const TextComparison& c, const std::vector<float>& values,
                       const std::string& label) {
  HeatmapPanel p;
  p.title = title;
  p.rows = static_cast<int>(c.layers);
  p.cols = static_cast<int>(c.heads);
  p.values = values;
  for (int l = 0; l < p.rows; ++l) p.row_labels.push_back(std::to_string(l));
  for (int h = 0; h < p.cols; ++h) p.col_labels.push_back(std::to_string(h));
  p.x_label = "head";
  p.y_label = "layer";
  p.colormap = ColormapId::Magma;
  p.color_scale = ColorScale{0.0, std::max(1e-6, value_range(values).second), ValueScale::Linear, false};
  p.colorbar_label = label;
  return p;
}

// A's bars in the palette's first colour and B's in its second, in every panel.
std::pair<BarSeries, BarSeries> series_pair(const std::string& what, const ComparedTextsView& r) {
  return {BarSeries{what + " (" + r.name_a + ")", {}, palette_color(0), false},
          BarSeries{what + " (" + r.name_b + ")", {}, palette_color(1), false}};
}

}  // namespace

Figure compare_head_figure(const ComparedTextsView& r, const FigureOptions& options) {
  const FigureOptions o = common_focus(r, options);
  HeatmapPanel a = matrix_panel(r.a, o.layer, o.head, o.matrix, o), b = matrix_panel(r.b, o.layer, o.head, o.matrix, o);
  a.title = r.name_a;  // the figure's title names the matrix and the head
  b.title = r.name_b;
  const bool same_tokens = r.comparison.alignment.identical;
  if (same_tokens)
    share_color_scale(a, b, o.scale, o.matrix == MatrixKind::Similarity || o.matrix == MatrixKind::Cosine);
  Figure f = titled_figure("Compared: " + std::string(matrix_name(o.matrix)) + ", " +
                               (o.head < 0 ? "layer " + std::to_string(o.layer) + " (sum of heads)"
                                           : "layer " + std::to_string(o.layer) + ", head " + std::to_string(o.head)),
                           o.caption, same_tokens ? 3 : 2);
  f.panels = {a, b};
  if (same_tokens) f.panels.push_back(difference_heatmap(a, b, r.name_b + " - " + r.name_a, o.scale));
  return f;
}

Figure what_changed_figure(const ComparedTextsView& r, const FigureOptions& o) {
  const TextComparison& c = r.comparison;
  std::vector<float> cka, attention;
  for (const HeadChange& h : c.changes) {
    cka.push_back(static_cast<float>(h.change()));
    attention.push_back(h.attention_cosine ? static_cast<float>(1.0 - *h.attention_cosine) : NAN);
  }
  Figure f = titled_figure("What changed from " + r.name_a + " to " + r.name_b + ", head by head", o.caption, 2);
  f.panels.push_back(head_grid("head outputs: 1 - CKA(C_A, C_B)", c, cka, "1 - CKA"));
  if (c.alignment.identical) f.panels.push_back(head_grid("attention maps: 1 - cos(A, A')", c, attention, "1 - cos"));
  if (o.layer >= 0 && o.layer < c.layers && o.head >= 0 && o.head < c.heads)  // the focused head, outlined
    for (Panel& p : f.panels) std::get<HeatmapPanel>(p).outlined = {{o.layer, o.head}};
  return f;
}

Figure compare_stats_figure(const ComparedTextsView& r, const FigureOptions& options) {
  const FigureOptions o = common_focus(r, options);
  const int heads = static_cast<int>(r.comparison.heads);
  Figure f = titled_figure("Head statistics of layer " + std::to_string(o.layer) + ": " + r.name_a + " and " +
                               r.name_b + " (Fig. 6, 7, 8, 11)",
                           o.caption, 2);
  BarPanel repeats{"Fig. 6: repeat share", "head", "share", head_categories(heads), {}, 1, 1.0};
  BarPanel sentence{"Fig. 8: same-sentence share", "head", "share", head_categories(heads), {}, 1, 1.0};
  BarPanel anchors{"Fig. 11a: anchor share (anchors A / B below)", "head", "share", {}, {}, 1, 1.0};
  BarPanel distance{"Fig. 7: mean pair distance", "head", "tokens", head_categories(heads), {}, 1, {}};
  auto [rep_a, rep_b] = series_pair("repeat", r);
  auto [same_a, same_b] = series_pair("same sentence", r);
  auto [anchor_a, anchor_b] = series_pair("anchor share", r);
  auto [dist_a, dist_b] = series_pair("mean distance", r);
  const auto anchor_text = [](const AnalyzedTextView& t, const HeadStats& s) {
    return s.anchor_index ? readable_piece(t.encoding.tokens[static_cast<size_t>(*s.anchor_index)].text)
                          : std::string("-");
  };
  for (int h = 0; h < heads; ++h) {
    const HeadStats &a = r.a.analysis.head(o.layer, h).stats, &b = r.b.analysis.head(o.layer, h).stats;
    rep_a.values.push_back(value_or_nan(a.repeat_share)), rep_b.values.push_back(value_or_nan(b.repeat_share));
    same_a.values.push_back(value_or_nan(a.same_sentence_share)),
        same_b.values.push_back(value_or_nan(b.same_sentence_share));
    anchor_a.values.push_back(value_or_nan(a.anchor_share)), anchor_b.values.push_back(value_or_nan(b.anchor_share));
    dist_a.values.push_back(value_or_nan(a.mean_distance)), dist_b.values.push_back(value_or_nan(b.mean_distance));
    anchors.categories.push_back("h" + std::to_string(h) + " " + anchor_text(r.a, a) + " / " + anchor_text(r.b, b));
  }
  repeats.series = {rep_a, rep_b};
  sentence.series = {same_a, same_b};
  anchors.series = {anchor_a, anchor_b};
  distance.series = {dist_a, dist_b};
  f.panels = {repeats, sentence, anchors, distance};
  return f;
}

Figure side_by_side(const Figure& a, const Figure& b, const std::string& name_a, const std::string& name_b) {
  Figure f = titled_figure(a.title + ": " + name_a + " (left) and " + name_b + " (right)", a.caption, 2);
  for (size_t k = 0; k < std::max(a.panels.size(), b.panels.size()); ++k)
    for (const auto& side : {std::pair{&a, &name_a}, std::pair{&b, &name_b}}) {
      if (k >= side.first->panels.size()) continue;
      Panel p = side.first->panels[k];
      const std::string& name = *side.second;  // not a structured binding: lambdas cannot capture those under clang 14
      std::visit([&](auto& panel) { panel.title = name + ": " + panel.title; }, p);
      f.panels.push_back(std::move(p));
    }
  return f;
}

Figure compare_figure(const std::string& name, const ComparedTextsView& r, const FigureOptions& options) {
  if (name == "head") return compare_head_figure(r, options);
  if (name == "changed" || name == "grid") return what_changed_figure(r, options);
  if (name == "stats" || name == "6" || name == "7" || name == "8" || name == "11")
    return compare_stats_figure(r, options);
  if (name == "4" || name == "5" || name == "9" || name == "12" || name == "13" || name == "lines") {
    const FigureOptions o = common_focus(r, options);
    return side_by_side(text_figure(name, r.a, o), text_figure(name, r.b, o), r.name_a, r.name_b);
  }
  throw Error("no comparison figure \"" + name +
              "\" (compare figures: head, changed, stats, and A beside B: 4, 5, 9, 12, 13, lines)");
}

}  // namespace attnscope
