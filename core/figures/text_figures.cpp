#include "figures/text_figures.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "base/count_text.h"
#include "base/error.h"
#include "figures/overview_thumbnails.h"
#include "figures/query_key_figure.h"
#include "figures/tensor_values.h"
#include "model/reproducible_products.h"
#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

std::string share_text(const std::optional<double>& v) {
  if (!v) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", *v);
  return buf;
}

std::vector<int> chosen_layers(const FigureOptions& o, const TextAnalysis& a) {
  std::vector<int> layers = o.layers;
  if (layers.empty())
    for (int l = 0; l < a.num_layers; ++l) layers.push_back(l);
  for (int l : layers)
    if (l < 0 || l >= a.num_layers)
      throw Error("layer " + std::to_string(l) + " is out of range 0 .. " + std::to_string(a.num_layers - 1));
  return layers;
}

// A text's pair distances, one bar per distance up to kDistanceBars of them; a longer text's
// (thousands: each bar narrower than a pixel, most of them not drawn) summed over a round number
// of distances a bar, each labelled with its first.
constexpr int64_t kDistanceBars = 256;
BarPanel histogram_panel(std::string title, const std::vector<int64_t>& counts, bool as_share) {
  const auto n = static_cast<int64_t>(counts.size());
  const int64_t width = n <= kDistanceBars ? 1 : round_step((n + kDistanceBars - 1) / kDistanceBars);
  BarPanel p;
  p.title = std::move(title);
  p.x_label = width == 1 ? "distance j - i" : "distance j - i (bars of " + std::to_string(width) + ")";
  p.y_label = as_share ? "share of pairs" : "pairs";
  double total = 0;
  for (int64_t c : counts) total += static_cast<double>(c);
  BarSeries s{"pairs", {}, palette_color(0), false};
  for (int64_t first = 0; first < n; first += width) {
    double sum = 0;
    for (int64_t d = first; d < std::min(n, first + width); ++d) sum += static_cast<double>(counts[d]);
    p.categories.push_back(std::to_string(first));
    s.values.push_back(as_share ? (total > 0 ? sum / total : std::nan("")) : sum);
  }
  p.series.push_back(std::move(s));
  p.label_every = width == 1 ? 8 : 10;  // binned: every 10 x width distances, a round number
  return p;
}

// "[CLS] 0, . 12, [SEP] 40" (at most five, then how many more).
std::string separator_list(const Encoding& e, const std::vector<int>& positions) {
  if (positions.empty()) return "none";
  std::string out;
  for (size_t k = 0; k < positions.size() && k < 5; ++k)
    out += (k ? ", " : "") + readable_piece(e.tokens[positions[k]].text) + " " + std::to_string(positions[k]);
  if (positions.size() > 5) out += " and " + std::to_string(positions.size() - 5) + " more";
  return out;
}

Figure titled(std::string title, const FigureOptions& o, int columns) {
  return titled_figure(std::move(title), o.caption, columns);
}

}  // namespace

namespace {

bool signed_matrix(MatrixKind kind) { return kind == MatrixKind::Similarity || kind == MatrixKind::Cosine; }

bool outlines_pairs(const AnalyzedTextView& text, int head, MatrixKind kind, const FigureOptions& o) {
  return (signed_matrix(kind) || kind == pairs_matrix(text.analysis.settings.pairs_from)) && head >= 0 &&
         o.outline_pairs;
}

// A map's panel without its values, colour scale and outlines: its title, labels and colormap.
HeatmapPanel matrix_panel_frame(const AnalyzedTextView& text, int layer, int head, MatrixKind kind,
                                const FigureOptions& o) {
  HeatmapPanel p;
  p.title = std::string(kind == MatrixKind::Rollout && o.rollout_of_norm ? "rollout of the norm-based maps"
                                                                         : matrix_title(kind)) +
            ", " + (kind == MatrixKind::Rollout ? "after layer " + std::to_string(layer) : head_name(layer, head));
  p.rows = p.cols = static_cast<int>(text.encoding.size());
  p.row_labels = p.col_labels = token_labels(text.encoding);
  const bool signed_map = signed_matrix(kind);
  p.x_label = signed_map ? "token j" : "attended token j";
  p.y_label = signed_map ? "token i" : "querying token i";
  p.colormap = signed_map ? ColormapId::Diverging : o.colormap;
  p.colorbar_label = std::string(matrix_symbol(kind)) + (o.scale == ValueScale::Clipped ? " (top 1% clipped)" : "");
  return p;
}

}  // namespace

HeatmapPanel matrix_panel(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, const FigureOptions& o) {
  HeatmapPanel p = matrix_panel_frame(text, layer, head, kind, o);
  p.values = head_matrix(text, layer, head, kind, o.rollout_of_norm);
  if (o.zero_diagonal)
    for (int i = 0; i < p.rows; ++i) p.values[static_cast<size_t>(i) * p.cols + i] = 0.0f;
  p.color_scale = color_scale_for(p.values, o.scale, signed_matrix(kind));
  if (outlines_pairs(text, head, kind, o))
    text.analysis.pair_mask(layer, head).for_each([&](int i, int j) {
      p.outlined.emplace_back(i, j);
      p.outlined.emplace_back(j, i);
    });
  return p;
}

namespace {

std::string head_figure_title(const FigureOptions& o) {
  return o.matrix == MatrixKind::Rollout ? "attention rollout after layer " + std::to_string(o.layer)
                                         : std::string(matrix_name(o.matrix)) + " of " + head_name(o.layer, o.head);
}

}  // namespace

Figure head_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  Figure f = titled(head_figure_title(o), o, 1);
  f.panels.push_back(matrix_panel(text, o.layer, o.head, o.matrix, o));
  return f;
}

namespace {

MapSource matrix_source(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, const FigureOptions& o) {
  return head_map_source(text,
                         {layer, head, kind, o.zero_diagonal, outlines_pairs(text, head, kind, o), o.rollout_of_norm},
                         o.scale, signed_matrix(kind));
}

}  // namespace

TiledFigure tiled_head_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  TiledFigure out{titled(head_figure_title(o), o, 1), {}};
  out.figure.panels.push_back(matrix_panel_frame(text, o.layer, o.head, o.matrix, o));
  out.tiled.push_back({0, matrix_source(text, o.layer, o.head, o.matrix, o)});
  return out;
}

Figure grid_figure(const AnalyzedTextView& text, const FigureOptions& options, const LongTextThumbnails& long_text) {
  const FigureOptions o = resolved(options, text.analysis);
  const auto& a = text.analysis;
  Figure f = titled(std::string("every head: ") + matrix_name(o.matrix) + " (last column: layer sums)", o,
                    static_cast<int>(a.num_heads + 1));
  // A long text's maps are never whole (L (H + 1) of them would be 77 GB for a BERT-base size at
  // 8,192 tokens, and each rollout panel its own L products): its panels are the overview's
  // thumbnails, made a block of rows at a time, pooled to kLongGridCells a side; up to that length
  // the values of every map kept.
  if (!text.keeps_maps()) {
    LongTextThumbnails blocks = long_text;
    blocks.pooled = nullptr;
    for (HeatmapPanel& p : grid_thumbnails(text, o, kLongGridCells, blocks)) f.panels.push_back(std::move(p));
    return f;
  }
  for (int l = 0; l < a.num_layers; ++l)
    for (int h = 0; h <= a.num_heads; ++h) {
      const int head = h == a.num_heads ? -1 : h;
      HeatmapPanel p = matrix_panel(text, l, head, o.matrix, o);
      // Appended: through "L" + std::to_string(l) GCC 12 warns falsely (-Wstringop-overflow, -Warray-bounds).
      p.title = head < 0 ? std::string("L").append(std::to_string(l)).append(" sum")
                         : std::to_string(l) + "." + std::to_string(h);
      p.row_labels.clear();
      p.col_labels.clear();
      p.x_label.clear();
      p.y_label.clear();
      p.outlined.clear();
      p.colorbar_label.clear();
      f.panels.push_back(std::move(p));
    }
  return f;
}

Figure figure4(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  Figure f = titled("Fig. 4: attention of " + head_name(o.layer, std::max(0, o.head)) + " and of its layer", o, 2);
  f.panels.push_back(matrix_panel(text, o.layer, std::max(0, o.head), MatrixKind::Attention, o));
  f.panels.push_back(matrix_panel(text, o.layer, -1, MatrixKind::Attention, o));
  TokenTextPanel table;
  table.title = "tokens";
  for (size_t i = 0; i < text.encoding.size(); ++i) {
    table.tokens.push_back(std::to_string(i) + " " + readable_piece(text.encoding.tokens[i].text));
    table.color_index.push_back(-1);
  }
  f.panels.push_back(std::move(table));
  return f;
}

namespace {

// Fig. 5's figure with its four maps' panels framed (titles, labels, colormaps), their values to come.
Figure figure5_frames(const AnalyzedTextView& text, const FigureOptions& o, int head) {
  const auto& a = text.analysis;
  Figure f = titled("Fig. 5: separators of " + head_name(o.layer, head), o, 2);
  f.panels.push_back(matrix_panel_frame(text, o.layer, head, MatrixKind::Attention, o));
  f.panels.push_back(matrix_panel_frame(text, o.layer, head, MatrixKind::Similarity, o));
  HeatmapPanel mask = matrix_panel_frame(text, o.layer, head, MatrixKind::Attention, o);
  mask.title = "separator mask (tau_sep " + share_text(a.settings.tau_sep) +
               "): " + separator_list(text.encoding, a.head(o.layer, head).separators.positions);
  mask.color_scale = {0, 1, ValueScale::Linear, false};
  mask.colorbar_label = "marked";
  f.panels.push_back(std::move(mask));
  HeatmapPanel blocks = matrix_panel_frame(text, o.layer, head, MatrixKind::Similarity, o);
  blocks.title = "block averages of S";
  blocks.colorbar_label = "mean S";
  f.panels.push_back(std::move(blocks));
  return f;
}

// Block averages are a few blocks: nothing to clip.
ValueScale block_scale(ValueScale scale) { return scale == ValueScale::Clipped ? ValueScale::Linear : scale; }

}  // namespace

Figure figure5(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  const auto& a = text.analysis;
  const Separators& seps = a.head(o.layer, head).separators;
  const int n = static_cast<int>(a.length);
  Figure f = figure5_frames(text, o, head);
  const auto panel = [&f](size_t k) -> HeatmapPanel& { return std::get<HeatmapPanel>(f.panels[k]); };
  panel(0) = matrix_panel(text, o.layer, head, MatrixKind::Attention, o);
  panel(1) = matrix_panel(text, o.layer, head, MatrixKind::Similarity, o);
  panel(2).values = tensor_values(separator_mask(seps.positions, n).to(at::kFloat));
  panel(2).outlined = panel(0).outlined;
  panel(3).values = tensor_values(block_average(a.head_similarity(o.layer, head), segments_from(seps.positions, n)));
  panel(3).color_scale = color_scale_for(panel(3).values, block_scale(o.scale), true);
  return f;
}

TiledFigure tiled_figure5(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  const std::vector<int>& seps = text.analysis.head(o.layer, head).separators.positions;
  const int n = static_cast<int>(text.analysis.length);
  TiledFigure out{figure5_frames(text, o, head), {}};
  out.tiled.push_back({0, matrix_source(text, o.layer, head, MatrixKind::Attention, o)});
  out.tiled.push_back({1, matrix_source(text, o.layer, head, MatrixKind::Similarity, o)});
  MapSource mask = separator_mask_source(seps, n);
  mask.fixed_scale = ColorScale{0, 1, ValueScale::Linear, false};
  mask.outlined = out.tiled[0].source.outlined;
  out.tiled.push_back({2, std::move(mask)});
  out.tiled.push_back({3, block_average_source(text, o.layer, head, segments_from(seps, n), block_scale(o.scale))});
  return out;
}

namespace {

// Whether Fig. 9's table shows the head's strongest pairs: asked, and more than it shows.
bool lists_strongest(const FigureOptions& o, const PairMask& mask) {
  return o.pair_table == PairListing::Strongest && mask.count() > kTableRowsShown;
}

// Fig. 9's title and its text, the pair tokens coloured (one colour per token value), from the
// head's mask (a long text's made again, once: TextAnalysis::pair_mask).
Figure figure9_of_mask(const AnalyzedTextView& text, const FigureOptions& o, int head, const PairMask& mask) {
  const PairInput from = text.analysis.settings.pairs_from;
  const std::string of =
      from == PairInput::Similarity ? "high-similarity pairs" : std::string("pairs of ") + pair_input_name(from);
  Figure f = titled(
      "Fig. 9: " + of + " of " + head_name(o.layer, head) + " (tau " + share_text(text.analysis.settings.tau) + ", " +
          count(static_cast<uint64_t>(mask.count()), "pair") +
          (lists_strongest(o, mask) ? "; the table: the " + std::to_string(kTableRowsShown) + " strongest" : "") + ")",
      o, 1);
  TokenTextPanel p;
  p.title = "pair tokens in the text (one colour per token)";
  p.tokens = token_labels(text.encoding);
  p.color_index.assign(p.tokens.size(), -1);
  std::map<int32_t, int> color_of_id;
  mask.for_each([&](int i, int j) {  // the mask, not the pairs listed: a long text's may be millions
    for (int k : {i, j}) {
      const int32_t id = text.encoding.tokens[k].id;
      auto it = color_of_id.try_emplace(id, static_cast<int>(color_of_id.size())).first;
      p.color_index[k] = it->second;
    }
  });
  p.table_rows = -1;
  f.panels.push_back(std::move(p));
  return f;
}

// The pairs Fig. 9's table shows: the first in the text, or where more than it shows, the strongest.
std::vector<TokenPair> figure9_rows(const AnalyzedTextView& text, const FigureOptions& o, int head,
                                    const PairMask& mask, const std::vector<TokenPair>* strongest) {
  if (lists_strongest(o, mask)) {
    if (!strongest) return strongest_head_pairs(text.analysis, o.layer, head, kTableRowsShown);
    return {strongest->begin(), strongest->begin() + std::min<ptrdiff_t>(std::ssize(*strongest), kTableRowsShown)};
  }
  return pair_values_are_slow(text.analysis) ? pairs_without_values(mask, kTableRowsShown)
                                             : head_pairs(text.analysis, o.layer, head, kTableRowsShown, &mask);
}

}  // namespace

Figure figure9(const AnalyzedTextView& text, const FigureOptions& options, const std::vector<TokenPair>* strongest) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  const PairMask mask = text.analysis.pair_mask(o.layer, head);  // a long text's made again
  Figure f = figure9_of_mask(text, o, head, mask);
  auto& p = std::get<TokenTextPanel>(f.panels[0]);
  const PairInput from = text.analysis.settings.pairs_from;
  p.table_header = {"token i", "token j", "i", "j", from == PairInput::Similarity ? "S_hat" : "M_hat"};
  for (const TokenPair& pair : figure9_rows(text, o, head, mask, strongest))
    p.table.push_back({readable_piece(text.encoding.tokens[pair.i].text),
                       readable_piece(text.encoding.tokens[pair.j].text), std::to_string(pair.i),
                       std::to_string(pair.j), std::isnan(pair.value) ? "-" : share_text(pair.value)});
  p.table_rows = mask.count();
  return f;
}

Figure figure9_text(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  return figure9_of_mask(text, o, head, text.analysis.pair_mask(o.layer, head));
}

Figure stats_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const auto& a = text.analysis;
  Figure f = titled("Head statistics of layer " + std::to_string(o.layer) + " for this text (Fig. 6, 7, 8, 11)", o, 2);
  BarPanel repeats{"Fig. 6: repeat shares", "head", "share", head_categories(a.num_heads), {}, 1, 1.0};
  BarPanel sentence{
      "Fig. 8: same-sentence share and chance", "head", "share", head_categories(a.num_heads), {}, 1, 1.0};
  BarPanel anchors{"Fig. 11a: anchor share (anchor token below)", "head", "share", {}, {}, 1, 1.0};
  BarPanel distance{"Fig. 7: mean pair distance", "head", "tokens", head_categories(a.num_heads), {}, 1, {}};
  BarSeries rep{"repeat", {}, palette_color(0), false}, ssrep{"same-sentence repeat", {}, palette_color(1), false};
  BarSeries same{"same sentence", {}, palette_color(2), false}, chance{"chance", {}, palette_color(3), true};
  BarSeries anchor{"anchor share", {}, palette_color(4), false}, dist{"mean distance", {}, palette_color(5), false};
  for (int h = 0; h < a.num_heads; ++h) {
    const HeadStats& s = a.head(o.layer, h).stats;
    rep.values.push_back(value_or_nan(s.repeat_share));
    ssrep.values.push_back(value_or_nan(s.same_sentence_repeat_share));
    same.values.push_back(value_or_nan(s.same_sentence_share));
    chance.values.push_back(value_or_nan(s.chance_same_sentence));
    anchor.values.push_back(value_or_nan(s.anchor_share));
    dist.values.push_back(value_or_nan(s.mean_distance));
    anchors.categories.push_back("h" + std::to_string(h) + " " +
                                 (s.anchor_index ? readable_piece(text.encoding.tokens[*s.anchor_index].text) : "-"));
  }
  repeats.series = {rep, ssrep};
  sentence.series = {same, chance};
  anchors.series = {anchor};
  distance.series = {dist};
  f.panels = {repeats, sentence, anchors, distance};
  const int head = std::max(0, o.head);
  f.panels.push_back(histogram_panel("Fig. 7: pair distances of head " + std::to_string(head),
                                     a.head(o.layer, head).stats.distance_histogram, false));
  return f;
}

namespace {

Figure figure12_titled(const FigureOptions& o, size_t layers) {
  const bool paper = o.layer_matrix == MatrixKind::Similarity;
  return titled(paper ? "Fig. 12: summed similarity of each layer's heads"
                      : std::string("each layer's ") + matrix_title(o.layer_matrix) + " (as Fig. 12)",
                o, std::min<int>(3, static_cast<int>(layers)));
}

}  // namespace

Figure figure12(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const std::vector<int> layers = chosen_layers(o, text.analysis);
  Figure f = figure12_titled(o, layers.size());
  // A long text's rollouts are made in one pass up to the last layer shown, not one pass each.
  AnalyzedTextView view = text;
  if (const std::vector<int> rollouts = figure12_rollout_layers(text.analysis, o);
      !rollouts.empty() && !text.keeps_maps() &&
      !std::ranges::all_of(rollouts, [&](int l) { return text.rollout_of(l, o.rollout_of_norm) != nullptr; }))
    view.rollouts = long_text_rollouts(text, rollouts, o.rollout_of_norm);
  for (int l : layers) f.panels.push_back(matrix_panel(view, l, -1, o.layer_matrix, o));
  return f;
}

std::vector<int> head_figure_rollout_layers(const TextAnalysis& analysis, const FigureOptions& options) {
  if (options.matrix != MatrixKind::Rollout || options.query_key) return {};
  return {resolved(options, analysis).layer};
}

std::vector<int> figure12_rollout_layers(const TextAnalysis& analysis, const FigureOptions& options) {
  if (options.layer_matrix != MatrixKind::Rollout) return {};
  std::vector<int> layers = chosen_layers(resolved(options, analysis), analysis);
  std::ranges::sort(layers);
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  return layers;
}

TiledFigure tiled_figure12(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const std::vector<int> layers = chosen_layers(o, text.analysis);
  TiledFigure out{figure12_titled(o, layers.size()), {}};
  for (int l : layers) {
    out.tiled.push_back({out.figure.panels.size(), matrix_source(text, l, -1, o.layer_matrix, o)});
    out.figure.panels.push_back(matrix_panel_frame(text, l, -1, o.layer_matrix, o));
  }
  return out;
}

Figure figure13(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const std::vector<int> layers = chosen_layers(o, text.analysis);
  Figure f = titled("Fig. 13: pair distances pooled over each layer's heads", o,
                    std::min<int>(3, static_cast<int>(layers.size())));
  for (int l : layers)
    f.panels.push_back(histogram_panel("layer " + std::to_string(l), text.analysis.layers[l].distance_histogram, true));
  return f;
}

std::vector<AttentionLine> attention_lines(const AnalyzedTextView& text, int layer, int head, float min_weight) {
  const int64_t n = text.analysis.length, heads = head < 0 ? text.analysis.num_heads : 1;
  // A layer's lines are the mean of its heads' attention: its summed map over H.
  const float divisor = head < 0 ? static_cast<float>(text.analysis.num_heads) : 1.0f;
  std::vector<AttentionLine> lines;
  for (const auto& [first, count] : row_blocks(n, rows_per_block(heads * n))) {
    const at::Tensor rows = map_rows(text, layer, head, MatrixKind::Attention, {first, count}).contiguous();
    const float* w = rows.data_ptr<float>();
    for (int64_t i = 0; i < count; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (const float v = w[i * n + j] / divisor; v >= min_weight)
          lines.push_back({static_cast<int>(first + i), static_cast<int>(j), v});
  }
  return lines;
}

namespace {

// Which weights have a line, and why a panel may have none: a head that spreads its attention
// over a long text (every A_ij near 1/n) draws nothing, which would otherwise look like a fault.
std::string lines_threshold_note(const LinesPanel& p) {
  std::ostringstream note;
  note << "; a line for each A_ij >= " << p.min_weight;
  const bool none = std::all_of(p.heads.begin(), p.heads.end(), [](const LinesHead& h) { return h.lines.empty(); });
  if (none)
    note << " (none here: " << (p.heads.size() == 1 ? "this head spreads its" : "these heads spread their")
         << " attention thinner)";
  return note.str();
}

}  // namespace

Figure lines_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  std::vector<int> heads = o.heads;
  if (heads.empty()) heads.push_back(o.head);
  for (int h : heads)
    if (h < -1 || h >= text.analysis.num_heads)
      throw Error("head " + std::to_string(h) + " is out of range 0 .. " + std::to_string(text.analysis.num_heads - 1));
  std::string names;
  for (int h : heads) names += (names.empty() ? "" : ", ") + (h < 0 ? std::string("sum") : std::to_string(h));
  Figure f = titled(heads.size() == 1 ? "who attends to whom: " + head_name(o.layer, heads[0])
                                      : "who attends to whom: layer " + std::to_string(o.layer) + ", heads " + names,
                    o, 1);
  LinesPanel p;
  p.title =
      text.captures.visibility.causal
          ? "each token (left) to the tokens it attends to (right): a decoder looks only back, at itself and before"
          : "each token (left) to the tokens it attends to (right)";
  p.tokens = token_labels(text.encoding);
  for (size_t k = 0; k < heads.size(); ++k) {
    LinesHead line{head_name(o.layer, heads[k]), attention_lines(text, o.layer, heads[k], p.min_weight),
                   heads.size() == 1 ? Rgb{0.12f, 0.35f, 0.75f} : palette_color(heads[k] < 0 ? 0 : heads[k])};
    if (heads.size() > 1) line.name = heads[k] < 0 ? "mean" : "head " + std::to_string(heads[k]);
    p.heads.push_back(std::move(line));
  }
  p.title += lines_threshold_note(p);
  f.panels.push_back(std::move(p));
  return f;
}

Figure text_figure(const std::string& name, const AnalyzedTextView& text, const FigureOptions& options) {
  if (name == "4") return figure4(text, options);
  if (name == "5" || name == "separators") return figure5(text, options);
  if (name == "9" || name == "pairs") return figure9(text, options);
  if (name == "6" || name == "7" || name == "8" || name == "11" || name == "stats") return stats_figure(text, options);
  if (name == "12" || name == "layers") return figure12(text, options);
  if (name == "13") return figure13(text, options);
  if (name == "head") return head_figure(text, options);
  if (name == "grid") return grid_figure(text, options);
  if (name == "lines") return lines_figure(text, options);
  if (name == "qk") return query_key_figure(text, options);
  throw Error("figure \"" + name +
              "\" is not drawn from one text: expected 4, 5, 6, 7, 8, 9, 11, 12, 13, head, grid, "
              "lines, qk or stats (2, 3 and 10 need a corpus result: --corpus FILE)");
}

}  // namespace attnscope
