#include "figures/compare_corpus_figures.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "figures/corpus_figures.h"

namespace attnscope {
namespace {

using Acc = CorpusAccumulator;

struct Focus {
  int layer = 0, head = 0;
};

Focus focus(const ComparedCorpora& r, const FigureOptions& o) {
  const int64_t layers = std::min(r.a.layers(), r.b.layers()), heads = std::min(r.a.heads(), r.b.heads());
  Focus f{o.layer < 0 ? static_cast<int>(layers - 1) : o.layer, std::max(0, o.head)};
  if (f.layer >= layers || f.head >= heads)
    throw Error("layer " + std::to_string(f.layer) + ", head " + std::to_string(f.head) +
                " is not in both corpus runs (" + std::to_string(layers) + " layers x " + std::to_string(heads) +
                " heads in common)");
  if (r.a.texts() == 0 || r.b.texts() == 0) throw Error("a corpus result holds no texts yet");
  return f;
}

std::vector<double> shares(const at::Tensor& counts) {
  const at::Tensor c = counts.to(at::kCPU, at::kDouble).contiguous();
  const double total = c.sum().item<double>();
  std::vector<double> out(static_cast<size_t>(c.numel()), std::nan(""));
  if (total > 0)
    for (int64_t k = 0; k < c.numel(); ++k) out[static_cast<size_t>(k)] = c.data_ptr<double>()[k] / total;
  return out;
}

// One distribution of A and one of B as bars side by side over the same categories.
BarPanel overlaid(std::string title, std::string x_label, std::string y_label, std::vector<std::string> categories,
                  const at::Tensor& a, const at::Tensor& b, const ComparedCorpora& r, int label_every) {
  BarPanel p{std::move(title), std::move(x_label), std::move(y_label), std::move(categories), {}, label_every, {}};
  p.series.push_back(
      BarSeries{r.name_a + " (" + std::to_string(r.a.texts()) + " texts)", shares(a), palette_color(0), false});
  p.series.push_back(
      BarSeries{r.name_b + " (" + std::to_string(r.b.texts()) + " texts)", shares(b), palette_color(1), false});
  return p;
}

std::string head_name(const Focus& f) {
  return "layer " + std::to_string(f.layer) + ", head " + std::to_string(f.head);
}

Figure stat_figure(const ComparedCorpora& r, const Focus& f, const FigureOptions& o, const std::string& title,
                   std::vector<int> stats) {
  Figure fig = titled_figure(title + ", " + head_name(f) + ": " + r.name_a + " and " + r.name_b, o.caption, 1);
  for (const int s : stats)
    fig.panels.push_back(overlaid(std::string(Acc::stat_name(s)) + " over texts", "value (bins of 0.01)",
                                  "share of texts", bin_labels(Acc::kBins, 1.0 / Acc::kBins),
                                  r.a.stats[s].histogram[f.layer][f.head], r.b.stats[s].histogram[f.layer][f.head], r,
                                  10));
  return fig;
}

// The maps of Fig. 2, 3, 10 per text (runs of different sizes compare), and B - A.
Figure map_figure(const ComparedCorpora& r, const FigureOptions& o, const std::string& title, const at::Tensor& a,
                  const at::Tensor& b, const std::string& bar) {
  Figure fig = titled_figure(title, o.caption, 3);
  HeatmapPanel pa = corpus_position_map(r.name_a, a, o, bar), pb = corpus_position_map(r.name_b, b, o, bar);
  share_color_scale(pa, pb, o.scale, false);
  fig.panels = {pa, pb, difference_heatmap(pa, pb, r.name_b + " - " + r.name_a, o.scale)};
  return fig;
}

void check_same_maps(const ComparedCorpora& r) {
  if (r.a.layers() != r.b.layers() || r.a.heads() != r.b.heads() || r.a.window() != r.b.window())
    throw Error("the summed maps of runs with different layers, heads or windows cannot be subtracted (" +
                std::to_string(r.a.window()) + " and " + std::to_string(r.b.window()) +
                " tokens); figures 6, 7, 8, 11 and 13 compare them");
}

at::Tensor per_text(const at::Tensor& sum, const Acc& c) { return sum / static_cast<double>(c.texts()); }

}  // namespace

Figure compare_corpus_figure(const std::string& name, const ComparedCorpora& r, const FigureOptions& options) {
  const Focus f = focus(r, options);
  const std::string per = "mean over texts";
  if (name == "2" || name == "3" || name == "10") {
    check_same_maps(r);
    if (name == "2")
      return map_figure(r, options, "Fig. 2: attention of " + head_name(f) + " per text",
                        per_text(r.a.attention_sum()[f.layer][f.head], r.a),
                        per_text(r.b.attention_sum()[f.layer][f.head], r.b), "A, " + per);
    if (name == "3")
      return map_figure(r, options, "Fig. 3: layer " + std::to_string(f.layer) + " summed over heads, per text",
                        per_text(r.a.attention_sum()[f.layer].sum(0), r.a),
                        per_text(r.b.attention_sum()[f.layer].sum(0), r.b), "sum of A, " + per);
    return map_figure(r, options, "Fig. 10: high-similarity masks of " + head_name(f) + ", share of texts",
                      per_text(r.a.mask_sum()[f.layer][f.head], r.a), per_text(r.b.mask_sum()[f.layer][f.head], r.b),
                      "share of texts with B_ij = 1");
  }
  if (name == "6")
    return stat_figure(r, f, options, "Fig. 6: repeat shares", {Acc::RepeatShare, Acc::SameSentenceRepeatShare});
  if (name == "8") {
    Figure fig = stat_figure(r, f, options, "Fig. 8: same-sentence share", {Acc::SameSentenceShare});
    fig.panels.push_back(overlaid("chance level over texts", "same-sentence share by chance", "share of texts",
                                  bin_labels(Acc::kBins, 1.0 / Acc::kBins), r.a.chance_histogram, r.b.chance_histogram,
                                  r, 10));
    return fig;
  }
  if (name == "11") return stat_figure(r, f, options, "Fig. 11: anchor share", {Acc::AnchorShare});
  if (name == "7" || name == "13") {
    const int64_t window = std::max(r.a.window(), r.b.window());
    const auto padded = [window](const at::Tensor& h) { return at::constant_pad_nd(h, {0, window - h.size(-1)}); };
    Figure fig = titled_figure(
        name == "7" ? "Fig. 7: pair distances of " + head_name(f) + ", pooled over texts"
                    : "Fig. 13: pair distances pooled over layer " + std::to_string(f.layer) + "'s heads and the texts",
        options.caption, 1);
    const at::Tensor a = name == "7" ? r.a.distance_histogram[f.layer][f.head] : r.a.distance_histogram[f.layer].sum(0);
    const at::Tensor b = name == "7" ? r.b.distance_histogram[f.layer][f.head] : r.b.distance_histogram[f.layer].sum(0);
    fig.panels.push_back(overlaid("distance j - i", "distance j - i", "share of pairs", position_labels(window),
                                  padded(a), padded(b), r, 8));
    return fig;
  }
  throw Error("figure \"" + name + "\" does not compare corpus runs: expected 2, 3, 6, 7, 8, 10, 11 or 13");
}

}  // namespace attnscope
