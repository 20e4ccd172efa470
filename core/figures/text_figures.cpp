#include "figures/text_figures.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <map>

#include "analysis/attention_rollout.h"
#include "analysis/norm_based_attention.h"
#include "base/error.h"
#include "figures/query_key_figure.h"
#include "figures/tensor_values.h"
#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

std::string head_name(int layer, int head) {
  return head < 0 ? "layer " + std::to_string(layer) + " (sum of heads)"
                  : "layer " + std::to_string(layer) + ", head " + std::to_string(head);
}

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
    if (l < 0 || l >= a.num_layers) throw Error("layer " + std::to_string(l) + " is out of range 0 .. " + std::to_string(a.num_layers - 1));
  return layers;
}

BarPanel histogram_panel(std::string title, const std::vector<int64_t>& counts, bool as_share) {
  BarPanel p;
  p.title = std::move(title);
  p.x_label = "distance j - i";
  p.y_label = as_share ? "share of pairs" : "pairs";
  double total = 0;
  for (int64_t c : counts) total += static_cast<double>(c);
  BarSeries s{"pairs", {}, palette_color(0), false};
  for (size_t d = 0; d < counts.size(); ++d) {
    p.categories.push_back(std::to_string(d));
    s.values.push_back(as_share ? (total > 0 ? counts[d] / total : std::nan("")) : static_cast<double>(counts[d]));
  }
  p.series.push_back(std::move(s));
  p.label_every = 8;
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

// An n x n map -> ceil(n / k) x ceil(n / k) cells: each block of k x k cells keeps its value of
// largest magnitude, with its sign. A plain loop over the rows (tensor reductions over such small
// blocks measured several times slower); `high` and `low` are n floats of scratch.
void pool_by_magnitude(const float* in, int64_t n, int64_t k, float* pooled, float* high, float* low) {
  const int64_t cells = (n + k - 1) / k;
  for (int64_t block = 0; block < cells; ++block) {
    // The block's rows folded into one, column by column (a vector loop), then its k columns.
    std::fill(high, high + n, 0.0f);  // the zero of the padding, as at the ragged edge
    std::fill(low, low + n, 0.0f);
    for (int64_t i = block * k; i < std::min(n, (block + 1) * k); ++i) {
      const float* row = in + i * n;
      for (int64_t j = 0; j < n; ++j) {
        high[j] = std::max(high[j], row[j]);
        low[j] = std::min(low[j], row[j]);
      }
    }
    float* out = pooled + block * cells;
    int64_t c = 0;
    // Pairs of columns (every overview up to twice its cells in tokens, 128 tokens and fewer) in a
    // loop of fixed shape, which the compiler makes a vector loop: cell by cell, the loop over a
    // block's columns took most of the overview's time at 128 tokens.
    if (k == 2)
      for (; c < n / 2; ++c) {
        const float hi = std::max(high[2 * c], high[2 * c + 1]), lo = std::min(low[2 * c], low[2 * c + 1]);
        out[c] = hi >= -lo ? hi : lo;
      }
    for (; c < cells; ++c) {
      float hi = 0, lo = 0;
      for (int64_t j = c * k; j < std::min(n, (c + 1) * k); ++j) {
        hi = std::max(hi, high[j]);
        lo = std::min(lo, low[j]);
      }
      out[c] = hi >= -lo ? hi : lo;
    }
  }
}

Figure titled(std::string title, const FigureOptions& o, int columns) { return titled_figure(std::move(title), o.caption, columns); }

const char* matrix_title(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::Attention: return "attention A";
    case MatrixKind::Similarity: return "similarity S";
    case MatrixKind::Cosine: return "cosine";
    case MatrixKind::Norm: return "norm-based |A f|";
    case MatrixKind::Rollout: return "attention rollout R";
  }
  return "?";
}

const char* matrix_symbol(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::Attention: return "A_ij";
    case MatrixKind::Similarity: return "S_ij";
    case MatrixKind::Cosine: return "cos";
    case MatrixKind::Norm: return "A_ij |f(x_j)|";
    case MatrixKind::Rollout: return "R_ij";
  }
  return "?";
}

}  // namespace

const char* matrix_name(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::Attention: return "attention";
    case MatrixKind::Similarity: return "similarity";
    case MatrixKind::Cosine: return "cosine";
    case MatrixKind::Norm: return "norm";
    case MatrixKind::Rollout: return "rollout";
  }
  return "?";
}

MatrixKind matrix_by_name(const std::string& name) {
  for (int k = 0; k < kMatrixKinds; ++k)
    if (name == matrix_name(static_cast<MatrixKind>(k))) return static_cast<MatrixKind>(k);
  throw Error("unknown matrix \"" + name + "\": expected attention, similarity, cosine, norm or rollout");
}

namespace {

// R_l for l = 0 .. last_layer, [last_layer + 1, n, n]: through the mean attention of each layer, or
// through its norm-based map.
at::Tensor rollouts(const AnalyzedTextView& text, int last_layer, bool of_norm) {
  const at::Tensor attention = text.captures.attention.slice(0, 0, last_layer + 1).to(at::kFloat);
  if (!of_norm) return attention_rollout(attention.mean(1));
  const at::Tensor gram = text.captures.value_gram;
  return attention_rollout(layer_norm_based_attention(attention, gram.defined() ? gram.slice(0, 0, last_layer + 1) : gram));
}

// [H, n, n]: every head's map of one kind in one layer (rollout: the layer's map for each head).
at::Tensor layer_maps(const AnalyzedTextView& text, int layer, MatrixKind kind, bool rollout_of_norm) {
  const auto& sim = text.analysis.similarity;
  const at::Tensor attention = text.captures.attention[layer];
  switch (kind) {
    case MatrixKind::Attention: return attention.to(at::kFloat);
    case MatrixKind::Similarity: return sim.similarity[layer].to(at::kFloat);
    case MatrixKind::Cosine: return cosine_from_similarity(sim.similarity[layer], sim.norms[layer]).to(at::kFloat);
    case MatrixKind::Norm:
      return norm_based_attention(attention, text.captures.value_norms.defined() ? text.captures.value_norms[layer] : at::Tensor());
    case MatrixKind::Rollout: return rollouts(text, layer, rollout_of_norm)[layer].unsqueeze(0).expand({attention.size(0), -1, -1});
  }
  return {};
}

// [n, n]: the layer's own map: the sum of its heads', the norm-based layer map, or the rollout.
at::Tensor layer_map(const AnalyzedTextView& text, int layer, MatrixKind kind, const at::Tensor& heads) {
  if (kind == MatrixKind::Norm) {
    const at::Tensor gram = text.captures.value_gram;
    return layer_norm_based_attention(text.captures.attention.slice(0, layer, layer + 1), gram.defined() ? gram.slice(0, layer, layer + 1) : gram)[0];
  }
  if (kind == MatrixKind::Rollout) return heads[0];
  return heads.sum(0);
}

}  // namespace

std::vector<float> head_matrix(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, bool rollout_of_norm) {
  const auto& sim = text.analysis.similarity;
  switch (kind) {
    case MatrixKind::Attention:
      return tensor_values(head < 0 ? text.captures.attention[layer].sum(0) : text.captures.attention[layer][head]);
    case MatrixKind::Similarity:
      return tensor_values(head < 0 ? text.analysis.summed_similarity(layer) : sim.similarity[layer][head]);
    case MatrixKind::Cosine:
      if (head < 0) return tensor_values(cosine_from_similarity(sim.similarity[layer], sim.norms[layer]).sum(0));
      return tensor_values(cosine_from_similarity(sim.similarity[layer][head], sim.norms[layer][head]));
    case MatrixKind::Norm:
    case MatrixKind::Rollout: {
      const at::Tensor heads = layer_maps(text, layer, kind, rollout_of_norm);
      return tensor_values(head < 0 ? layer_map(text, layer, kind, heads) : heads[head]);
    }
  }
  return {};
}

std::vector<std::string> token_labels(const Encoding& encoding) {
  std::vector<std::string> labels;
  for (const Token& t : encoding.tokens) labels.push_back(readable_piece(t.text));
  return labels;
}

FigureOptions resolved(const FigureOptions& options, const TextAnalysis& a) {
  FigureOptions o = options;
  if (o.layer < 0) o.layer = static_cast<int>(a.num_layers - 1);
  if (o.layer >= a.num_layers) throw Error("layer " + std::to_string(o.layer) + " is out of range 0 .. " + std::to_string(a.num_layers - 1));
  if (o.head >= a.num_heads || o.head < -1) throw Error("head " + std::to_string(o.head) + " is out of range 0 .. " + std::to_string(a.num_heads - 1));
  return o;
}

MatrixKind pairs_matrix(PairInput from) {
  switch (from) {
    case PairInput::Similarity: return MatrixKind::Similarity;
    case PairInput::Cosine: return MatrixKind::Cosine;
    case PairInput::Attention: return MatrixKind::Attention;
    case PairInput::Norm: return MatrixKind::Norm;
    case PairInput::Rollout: return MatrixKind::Rollout;
  }
  return MatrixKind::Similarity;
}

HeatmapPanel matrix_panel(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, const FigureOptions& o) {
  HeatmapPanel p;
  p.title = std::string(kind == MatrixKind::Rollout && o.rollout_of_norm ? "rollout of the norm-based maps" : matrix_title(kind)) + ", " + (kind == MatrixKind::Rollout ? "after layer " + std::to_string(layer) : head_name(layer, head));
  p.rows = p.cols = static_cast<int>(text.encoding.size());
  p.values = head_matrix(text, layer, head, kind, o.rollout_of_norm);
  if (o.zero_diagonal)
    for (int i = 0; i < p.rows; ++i) p.values[static_cast<size_t>(i) * p.cols + i] = 0.0f;
  p.row_labels = p.col_labels = token_labels(text.encoding);
  const bool signed_map = kind == MatrixKind::Similarity || kind == MatrixKind::Cosine;
  p.x_label = signed_map ? "token j" : "attended token j";
  p.y_label = signed_map ? "token i" : "querying token i";
  p.colormap = signed_map ? ColormapId::Diverging : o.colormap;
  p.color_scale = color_scale_for(p.values, o.scale, signed_map);
  p.colorbar_label = std::string(matrix_symbol(kind)) + (o.scale == ValueScale::Clipped ? " (top 1% clipped)" : "");
  if ((signed_map || kind == pairs_matrix(text.analysis.settings.pairs_from)) && head >= 0 && o.outline_pairs)
    text.analysis.head(layer, head).pairs.for_each([&](int i, int j) {
      p.outlined.emplace_back(i, j);
      p.outlined.emplace_back(j, i);
    });
  return p;
}

namespace {

// A layer's maps for the overview, on the host as floats: its heads' [H, n, n] (each head's n x n
// contiguous; the rollout's one map is shared by all, not copied) and their sum [n, n].
struct LayerThumbnailSource {
  at::Tensor heads, sum;
  const float* head(int64_t h) const { return heads.data_ptr<float>() + h * heads.stride(0); }
};

LayerThumbnailSource thumbnail_source(const AnalyzedTextView& text, const FigureOptions& o, const at::Tensor& rollout, int layer) {
  const int64_t n = text.analysis.length;
  at::Tensor m = rollout.defined() ? rollout[layer].unsqueeze(0).expand({text.analysis.num_heads, -1, -1})
                                   : layer_maps(text, layer, o.matrix, false);  // [H, n, n]
  if (o.zero_diagonal && o.matrix == MatrixKind::Attention) m = m * (1 - at::eye(n, m.options())).unsqueeze(0);
  at::Tensor sum = (rollout.defined() ? rollout[layer] : layer_map(text, layer, o.matrix, m)).to(at::kCPU, at::kFloat).contiguous();
  m = m.to(at::kCPU, at::kFloat);
  if (m.stride(2) != 1 || m.stride(1) != n) m = m.contiguous();
  return {m, sum};
}

// Layers are taken a few at a time so that the full-size maps made for them (norm-based maps, a
// zeroed diagonal, copies from a GPU) stay under this, at any length.
constexpr int64_t kThumbnailSourceBytes = int64_t{32} << 20;

}  // namespace

std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells) {
  const FigureOptions o = resolved(options, text.analysis);
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length, per_layer = a.num_heads + 1;
  const int64_t k = n > max_cells ? (n + max_cells - 1) / max_cells : 1, side = (n + k - 1) / k;
  const bool signed_map = o.matrix == MatrixKind::Similarity || o.matrix == MatrixKind::Cosine;
  // Rollout is one map per layer, each the product of the ones before: computed once for all.
  const at::Tensor rollout = o.matrix == MatrixKind::Rollout ? rollouts(text, static_cast<int>(a.num_layers) - 1, o.rollout_of_norm) : at::Tensor();
  const int64_t group = std::max<int64_t>(1, kThumbnailSourceBytes / (a.num_heads * n * n * static_cast<int64_t>(sizeof(float))));
  std::vector<HeatmapPanel> out(static_cast<size_t>(a.num_layers * per_layer));
  for (int64_t first = 0; first < a.num_layers; first += group) {
    const int64_t last = std::min<int64_t>(a.num_layers, first + group);
    std::vector<LayerThumbnailSource> sources;
    for (int64_t l = first; l < last; ++l) sources.push_back(thumbnail_source(text, o, rollout, static_cast<int>(l)));
    // The group's panels pooled and given their colour scales (a percentile) in one share-out.
    at::parallel_for(first * per_layer, last * per_layer, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> high(static_cast<size_t>(n)), low(static_cast<size_t>(n));
      for (int64_t index = begin; index < end; ++index) {
        const int64_t l = index / per_layer, h = index % per_layer;
        const LayerThumbnailSource& source = sources[static_cast<size_t>(l - first)];
        const float* full = h == a.num_heads ? source.sum.data_ptr<float>() : source.head(h);
        HeatmapPanel& p = out[static_cast<size_t>(index)];
        p.rows = p.cols = static_cast<int>(side);
        p.values.resize(static_cast<size_t>(side * side));
        if (k > 1) pool_by_magnitude(full, n, k, p.values.data(), high.data(), low.data());
        else std::copy(full, full + n * n, p.values.begin());
        p.colormap = signed_map ? ColormapId::Diverging : o.colormap;
        p.color_scale = color_scale_for(p.values, o.scale, signed_map);
        p.title = h == a.num_heads ? "L" + std::to_string(l) + " sum" : std::to_string(l) + "." + std::to_string(h);
      }
    });
  }
  return out;
}

ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options) {
  return thumbnail_atlas(grid_thumbnails(text, options, kGridThumbnailCells), static_cast<int>(text.analysis.num_heads + 1));
}

std::string grid_thumbnails_key(const FigureOptions& o) {
  return std::string(matrix_name(o.matrix)) + "|" + colormap(o.colormap).name + "|" + std::to_string(static_cast<int>(o.scale)) +
         (o.zero_diagonal ? "|z" : "|") + (o.rollout_of_norm ? "|rn" : "|");
}

Figure head_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  Figure f = titled(o.matrix == MatrixKind::Rollout ? "attention rollout after layer " + std::to_string(o.layer)
                                                   : std::string(matrix_name(o.matrix)) + " of " + head_name(o.layer, o.head),
                    o, 1);
  f.panels.push_back(matrix_panel(text, o.layer, o.head, o.matrix, o));
  return f;
}

Figure grid_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const auto& a = text.analysis;
  Figure f = titled(std::string("every head: ") + matrix_name(o.matrix) + " (last column: layer sums)", o,
                    static_cast<int>(a.num_heads + 1));
  for (int l = 0; l < a.num_layers; ++l)
    for (int h = 0; h <= a.num_heads; ++h) {
      const int head = h == a.num_heads ? -1 : h;
      HeatmapPanel p = matrix_panel(text, l, head, o.matrix, o);
      p.title = head < 0 ? "L" + std::to_string(l) + " sum" : std::to_string(l) + "." + std::to_string(h);
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

Figure figure5(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  const auto& a = text.analysis;
  const Separators& seps = a.head(o.layer, head).separators;
  const int n = static_cast<int>(a.length);
  Figure f = titled("Fig. 5: separators of " + head_name(o.layer, head), o, 2);
  f.panels.push_back(matrix_panel(text, o.layer, head, MatrixKind::Attention, o));
  f.panels.push_back(matrix_panel(text, o.layer, head, MatrixKind::Similarity, o));
  HeatmapPanel mask = matrix_panel(text, o.layer, head, MatrixKind::Attention, o);
  mask.title = "separator mask (tau_sep " + share_text(a.settings.tau_sep) + "): " + separator_list(text.encoding, seps.positions);
  mask.values = tensor_values(separator_mask(seps.positions, n).to(at::kFloat));
  mask.color_scale = {0, 1, ValueScale::Linear, false};
  mask.colorbar_label = "marked";
  f.panels.push_back(std::move(mask));
  HeatmapPanel blocks = matrix_panel(text, o.layer, head, MatrixKind::Similarity, o);
  blocks.title = "block averages of S";
  blocks.values = tensor_values(block_average(a.similarity.similarity[o.layer][head], segments_from(seps.positions, n)));
  blocks.color_scale = color_scale_for(blocks.values, o.scale == ValueScale::Clipped ? ValueScale::Linear : o.scale, true);  // a few blocks: nothing to clip
  blocks.outlined.clear();
  blocks.colorbar_label = "mean S";
  f.panels.push_back(std::move(blocks));
  return f;
}

Figure figure9(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const int head = std::max(0, o.head);
  const std::vector<TokenPair> pairs = head_pairs(text.analysis, o.layer, head);
  const PairInput from = text.analysis.settings.pairs_from;
  const std::string of = from == PairInput::Similarity ? "high-similarity pairs" : std::string("pairs of ") + pair_input_name(from);
  Figure f = titled("Fig. 9: " + of + " of " + head_name(o.layer, head) + " (tau " + share_text(text.analysis.settings.tau) + ", " +
                        std::to_string(pairs.size()) + " pairs)",
                    o, 1);
  TokenTextPanel p;
  p.title = "pair tokens in the text (one colour per token)";
  p.tokens = token_labels(text.encoding);
  p.color_index.assign(p.tokens.size(), -1);
  std::map<int32_t, int> color_of_id;
  for (const TokenPair& pair : pairs)
    for (int k : {pair.i, pair.j}) {
      const int32_t id = text.encoding.tokens[k].id;
      auto it = color_of_id.try_emplace(id, static_cast<int>(color_of_id.size())).first;
      p.color_index[k] = it->second;
    }
  p.table_header = {"token i", "token j", "i", "j", from == PairInput::Similarity ? "S_hat" : "M_hat"};
  for (const TokenPair& pair : pairs)
    p.table.push_back({readable_piece(text.encoding.tokens[pair.i].text), readable_piece(text.encoding.tokens[pair.j].text), std::to_string(pair.i),
                       std::to_string(pair.j), share_text(pair.value)});
  f.panels.push_back(std::move(p));
  return f;
}

Figure stats_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const auto& a = text.analysis;
  Figure f = titled("Head statistics of layer " + std::to_string(o.layer) + " for this text (Fig. 6, 7, 8, 11)", o, 2);
  BarPanel repeats{"Fig. 6: repeat shares", "head", "share", head_categories(a.num_heads), {}, 1, 1.0};
  BarPanel sentence{"Fig. 8: same-sentence share and chance", "head", "share", head_categories(a.num_heads), {}, 1, 1.0};
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
    anchors.categories.push_back("h" + std::to_string(h) + " " + (s.anchor_index ? readable_piece(text.encoding.tokens[*s.anchor_index].text) : "-"));
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

Figure figure12(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const std::vector<int> layers = chosen_layers(o, text.analysis);
  const bool paper = o.layer_matrix == MatrixKind::Similarity;
  Figure f = titled(paper ? "Fig. 12: summed similarity of each layer's heads" : std::string("each layer's ") + matrix_title(o.layer_matrix) + " (as Fig. 12)", o,
                    std::min<int>(3, static_cast<int>(layers.size())));
  for (int l : layers) f.panels.push_back(matrix_panel(text, l, -1, o.layer_matrix, o));
  return f;
}

Figure figure13(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  const std::vector<int> layers = chosen_layers(o, text.analysis);
  Figure f = titled("Fig. 13: pair distances pooled over each layer's heads", o, std::min<int>(3, static_cast<int>(layers.size())));
  for (int l : layers)
    f.panels.push_back(histogram_panel("layer " + std::to_string(l), text.analysis.layers[l].distance_histogram, true));
  return f;
}

Figure lines_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  std::vector<int> heads = o.heads;
  if (heads.empty()) heads.push_back(o.head);
  for (int h : heads)
    if (h < -1 || h >= text.analysis.num_heads) throw Error("head " + std::to_string(h) + " is out of range 0 .. " + std::to_string(text.analysis.num_heads - 1));
  std::string names;
  for (int h : heads) names += (names.empty() ? "" : ", ") + (h < 0 ? std::string("sum") : std::to_string(h));
  Figure f = titled(heads.size() == 1 ? "who attends to whom: " + head_name(o.layer, heads[0])
                                      : "who attends to whom: layer " + std::to_string(o.layer) + ", heads " + names,
                    o, 1);
  LinesPanel p;
  p.title = "each token (left) to the tokens it attends to (right)";
  p.tokens = token_labels(text.encoding);
  for (size_t k = 0; k < heads.size(); ++k) {
    LinesHead line{head_name(o.layer, heads[k]), head_matrix(text, o.layer, heads[k], MatrixKind::Attention),
                   heads.size() == 1 ? Rgb{0.12f, 0.35f, 0.75f} : palette_color(heads[k] < 0 ? 0 : heads[k])};
    if (heads[k] < 0)
      for (float& w : line.weights) w /= static_cast<float>(text.analysis.num_heads);  // a layer: the mean of its heads
    if (heads.size() > 1) line.name = heads[k] < 0 ? "mean" : "head " + std::to_string(heads[k]);
    p.heads.push_back(std::move(line));
  }
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
  throw Error("figure \"" + name + "\" is not drawn from one text: expected 4, 5, 6, 7, 8, 9, 11, 12, 13, head, grid, "
              "lines, qk or stats (2, 3 and 10 need a corpus result: --corpus FILE)");
}

}  // namespace attnscope
