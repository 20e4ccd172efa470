#include "figures/corpus_figures.h"

#include <ATen/ATen.h>

#include <cstdio>

#include "base/error.h"
#include "figures/tensor_values.h"

namespace attnscope {

std::vector<std::string> position_labels(int64_t count) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(std::to_string(i));
  return v;
}

std::vector<std::string> bin_labels(int bins, double width) {
  std::vector<std::string> v;
  char buf[32];
  for (int b = 0; b < bins; ++b) {
    std::snprintf(buf, sizeof buf, "%.2g", b * width);
    v.push_back(buf);
  }
  return v;
}

// A [rows, cols] tensor as a heatmap.
HeatmapPanel tensor_heatmap(std::string title, const at::Tensor& m, const FigureOptions& o) {
  HeatmapPanel p;
  p.title = std::move(title);
  p.rows = static_cast<int>(m.size(0));
  p.cols = static_cast<int>(m.size(1));
  p.values = tensor_values(m);
  p.colormap = o.colormap;
  p.color_scale = color_scale_for(p.values, o.scale, false);
  return p;
}

HeatmapPanel corpus_position_map(std::string title, const at::Tensor& m, const FigureOptions& o, std::string bar) {
  HeatmapPanel p = tensor_heatmap(std::move(title), m, o);
  p.row_labels = p.col_labels = position_labels(m.size(0));
  p.rows_counted = p.cols_counted = true;
  p.x_label = "position j";
  p.y_label = "position i";
  p.colorbar_label = std::move(bar);
  return p;
}

namespace {

using Acc = CorpusAccumulator;

// Rows: the heads of a layer; columns: the bins of a distribution over texts, each row a share.
HeatmapPanel per_head_distribution(std::string title, const at::Tensor& hist, std::vector<std::string> cols,
                                   std::string x) {
  const at::Tensor counts = hist.to(at::kDouble);
  const at::Tensor shares = counts / counts.sum(1, true).clamp_min(1);
  HeatmapPanel p = tensor_heatmap(std::move(title), shares, FigureOptions{});
  p.row_labels.clear();
  for (int64_t h = 0; h < hist.size(0); ++h) p.row_labels.push_back("head " + std::to_string(h));
  p.col_labels = std::move(cols);
  p.cols_counted = true;  // distances, numbers of anchors, bins of 0.01
  p.x_label = std::move(x);
  p.colorbar_label = "share of texts";
  return p;
}

struct Choice {
  int layer, head;
  std::vector<int> layers;
};

Choice resolve(const Acc& c, const FigureOptions& o) {
  Choice r{o.layer < 0 ? static_cast<int>(c.layers() - 1) : o.layer, o.head, o.layers};
  if (r.layer >= c.layers())
    throw Error("layer " + std::to_string(r.layer) + " is out of range 0 .. " + std::to_string(c.layers() - 1));
  if (r.head < -1 || r.head >= c.heads())
    throw Error("head " + std::to_string(r.head) + " is out of range 0 .. " + std::to_string(c.heads() - 1));
  if (r.head < 0) r.head = 0;
  if (r.layers.empty())
    for (int l = 0; l < c.layers(); ++l) r.layers.push_back(l);
  for (int l : r.layers)
    if (l < 0 || l >= c.layers())
      throw Error("layer " + std::to_string(l) + " is out of range 0 .. " + std::to_string(c.layers() - 1));
  if (c.texts() == 0) throw Error("the corpus result holds no texts yet");
  return r;
}

Figure titled(std::string title, const Acc& c, const FigureOptions& o, int columns) {
  Figure f;
  f.title = std::move(title);
  f.caption =
      o.caption.empty() ? std::to_string(c.texts()) + " texts of " + std::to_string(c.window()) + " tokens" : o.caption;
  f.columns = columns;
  return f;
}

Figure figure2(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = titled("Fig. 2: attention summed over texts", c, o, 2);
  const at::Tensor sum = c.attention_sum();
  f.panels.push_back(corpus_position_map(head_name(k.layer, k.head), sum[k.layer][k.head], o, "sum of A"));
  f.panels.push_back(
      corpus_position_map("layer " + std::to_string(k.layer) + " (sum of heads)", sum[k.layer].sum(0), o, "sum of A"));
  return f;
}

Figure figure3(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = titled("Fig. 3: layer " + std::to_string(k.layer) + " summed over heads and texts", c, o, 3);
  f.panels.push_back(corpus_position_map("plain", c.attention_sum()[k.layer].sum(0), o, "sum of A"));
  f.panels.push_back(
      corpus_position_map("separator columns zeroed", c.attention_without_separators()[k.layer].sum(0), o, "sum of A"));
  f.panels.push_back(corpus_position_map(
      "... and diagonals zeroed", c.attention_without_separators_and_diagonals()[k.layer].sum(0), o, "sum of A"));
  return f;
}

Figure figure10(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = titled("Fig. 10: high-similarity masks summed over texts", c, o, 2);
  const at::Tensor masks = c.mask_sum();
  f.panels.push_back(corpus_position_map(head_name(k.layer, k.head), masks[k.layer][k.head], o, "texts with B_ij = 1"));
  f.panels.push_back(corpus_position_map("layer " + std::to_string(k.layer) + " (sum of heads)", masks[k.layer].sum(0),
                                         o, "sum of B"));
  return f;
}

Figure share_figure(const Acc& c, const Choice& k, const FigureOptions& o, std::string title, std::vector<int> stats) {
  Figure f = titled(std::move(title), c, o, static_cast<int>(stats.size()));
  for (int s : stats)
    f.panels.push_back(per_head_distribution(std::string(Acc::stat_name(s)) + ", layer " + std::to_string(k.layer),
                                             c.stats[s].histogram[k.layer], bin_labels(Acc::kBins, 1.0 / Acc::kBins),
                                             "value (bins of 0.01)"));
  return f;
}

Figure figure8(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = share_figure(c, k, o, "Fig. 8: same-sentence share per head, over texts", {Acc::SameSentenceShare});
  BarPanel chance{"chance level over texts",
                  "same-sentence share by chance",
                  "share of texts",
                  bin_labels(Acc::kBins, 1.0 / Acc::kBins),
                  {},
                  10,
                  {}};
  const at::Tensor h = c.chance_histogram.to(at::kDouble);
  const double total = std::max(1.0, h.sum().item<double>());
  BarSeries s{"chance", {}, palette_color(3), false};
  for (int b = 0; b < Acc::kBins; ++b) s.values.push_back(h[b].item<double>() / total);
  chance.series.push_back(std::move(s));
  f.panels.push_back(std::move(chance));
  return f;
}

Figure figure7(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = titled("Fig. 7: pair distances per head, over texts", c, o, 1);
  f.panels.push_back(per_head_distribution("layer " + std::to_string(k.layer), c.distance_histogram[k.layer],
                                           position_labels(c.window()), "distance j - i"));
  std::get<HeatmapPanel>(f.panels.back()).colorbar_label = "share of the head's pairs";
  return f;
}

Figure figure11(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = share_figure(c, k, o, "Fig. 11: anchors", {Acc::AnchorShare});
  HeatmapPanel distinct =
      per_head_distribution("distinct anchors per layer", c.distinct_anchors, position_labels(c.heads() + 1),
                            "distinct anchor tokens among the layer's heads");
  for (int64_t l = 0; l < c.layers(); ++l) distinct.row_labels[l] = "layer " + std::to_string(l);
  f.panels.push_back(std::move(distinct));
  return f;
}

Figure figure13(const Acc& c, const Choice& k, const FigureOptions& o) {
  Figure f = titled("Fig. 13: pair distances pooled over each layer's heads and the texts", c, o,
                    std::min<int>(3, static_cast<int>(k.layers.size())));
  for (int l : k.layers) {
    const at::Tensor counts = c.distance_histogram[l].sum(0).to(at::kDouble);
    const double total = counts.sum().item<double>();
    BarPanel p{
        "layer " + std::to_string(l), "distance j - i", "share of pairs", position_labels(c.window()), {}, 8, {}};
    BarSeries s{"pairs", {}, palette_color(0), false};
    for (int64_t d = 0; d < c.window(); ++d)
      s.values.push_back(total > 0 ? counts[d].item<double>() / total : std::nan(""));
    p.series.push_back(std::move(s));
    f.panels.push_back(std::move(p));
  }
  return f;
}

}  // namespace

Figure corpus_figure(const std::string& name, const CorpusAccumulator& corpus, const FigureOptions& options) {
  const Choice k = resolve(corpus, options);
  if (name == "2") return figure2(corpus, k, options);
  if (name == "3") return figure3(corpus, k, options);
  if (name == "6")
    return share_figure(corpus, k, options,
                        "Fig. 6: repeat share (a) and same-sentence repeat share (b) per head, over texts",
                        {Acc::RepeatShare, Acc::SameSentenceRepeatShare});
  if (name == "7") return figure7(corpus, k, options);
  if (name == "8") return figure8(corpus, k, options);
  if (name == "10") return figure10(corpus, k, options);
  if (name == "11") return figure11(corpus, k, options);
  if (name == "13") return figure13(corpus, k, options);
  throw Error("figure \"" + name + "\" is not drawn from a corpus result: expected 2, 3, 6, 7, 8, 10, 11 or 13");
}

}  // namespace attnscope
