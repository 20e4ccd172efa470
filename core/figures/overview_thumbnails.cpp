#include "figures/overview_thumbnails.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "analysis/lens_maps.h"
#include "base/error.h"
#include "figures/colormap.h"
#include "figures/magnitude_pooler.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

// A layer's maps for the overview, on the host as floats: its heads' [H, n, n] (each head's n x n
// contiguous; the rollout's one map is shared by all, not copied) and their sum [n, n].
struct LayerThumbnailSource {
  at::Tensor heads, sum;
  const float* head(int64_t h) const { return heads.data_ptr<float>() + h * heads.stride(0); }
};

LayerThumbnailSource thumbnail_source(const AnalyzedTextView& text, const FigureOptions& o, const at::Tensor& rollout,
                                      int layer) {
  const int64_t n = text.analysis.length;
  at::Tensor m = rollout.defined() ? rollout[layer].unsqueeze(0).expand({text.analysis.num_heads, -1, -1})
                                   : layer_head_maps(text, layer, o.matrix, false);  // [H, n, n]
  if (o.zero_diagonal && o.matrix == MatrixKind::Attention) m = m * (1 - at::eye(n, m.options())).unsqueeze(0);
  at::Tensor sum = (rollout.defined() ? rollout[layer] : layer_own_map(text, layer, o.matrix, m))
                       .to(at::kCPU, at::kFloat)
                       .contiguous();
  m = m.to(at::kCPU, at::kFloat);
  if (m.stride(2) != 1 || m.stride(1) != n) m = m.contiguous();
  return {m, sum};
}

// Layers are taken a few at a time so that the full-size maps made for them (norm-based maps, a
// zeroed diagonal, copies from a GPU) stay under this, at any length.
constexpr int64_t kThumbnailSourceBytes = int64_t{32} << 20;

}  // namespace

namespace {

// A pooled panel's colours, colour scale (a percentile of its values) and title.
void finish_panel(HeatmapPanel& p, int64_t layer, int64_t head, int64_t heads, const FigureOptions& o) {
  const bool signed_map = o.matrix == MatrixKind::Similarity || o.matrix == MatrixKind::Cosine;
  p.colormap = signed_map ? ColormapId::Diverging : o.colormap;
  p.color_scale = color_scale_for(p.values, o.scale, signed_map);
  // Formatted into a bounded buffer: GCC 12, inlining this into its callers, takes std::string's
  // concatenations here for copies of an impossible size (-Wstringop-overflow).
  char title[48];
  const int length = head == heads ? std::snprintf(title, sizeof title, "L%lld sum", static_cast<long long>(layer))
                                   : std::snprintf(title, sizeof title, "%lld.%lld", static_cast<long long>(layer),
                                                   static_cast<long long>(head));
  p.title = std::string(title, std::clamp<size_t>(static_cast<size_t>(std::max(length, 0)), 0, sizeof title - 1));
}

// A text that keeps its maps: layers a few at a time, each group's panels pooled and finished in
// one share-out.
void pool_whole_maps(const AnalyzedTextView& text, const FigureOptions& o, int64_t k, std::vector<HeatmapPanel>& out) {
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length, per_layer = a.num_heads + 1;
  // Rollout is one map per layer, each the product of the ones before: computed once for all.
  const at::Tensor rollout = o.matrix == MatrixKind::Rollout
                                 ? rollout_maps(text.captures, static_cast<int>(a.num_layers), o.rollout_of_norm)
                                 : at::Tensor();
  const int64_t group =
      std::max<int64_t>(1, kThumbnailSourceBytes / (a.num_heads * n * n * static_cast<int64_t>(sizeof(float))));
  for (int64_t first = 0; first < a.num_layers; first += group) {
    const int64_t last = std::min<int64_t>(a.num_layers, first + group);
    std::vector<LayerThumbnailSource> sources;
    for (int64_t l = first; l < last; ++l) sources.push_back(thumbnail_source(text, o, rollout, static_cast<int>(l)));
    at::parallel_for(first * per_layer, last * per_layer, 1, [&](int64_t begin, int64_t end) {
      for (int64_t index = begin; index < end; ++index) {
        const int64_t l = index / per_layer, h = index % per_layer;
        const LayerThumbnailSource& source = sources[static_cast<size_t>(l - first)];
        HeatmapPanel& p = out[static_cast<size_t>(index)];
        MagnitudePooler(n, k, p.values.data())
            .add_rows(h == a.num_heads ? source.sum.data_ptr<float>() : source.head(h), n);
        finish_panel(p, l, h, a.num_heads, o);
      }
    });
  }
}

// The share of a long text's layers pooled so far, reported.
void report_layers(const LongTextThumbnails& long_text, int64_t done, int64_t layers) {
  if (long_text.progress) long_text.progress("overview", static_cast<double>(done) / static_cast<double>(layers));
}

// Rows [first, first + count) of a layer's maps: every head's, [H, count, keys.count], the layer's
// own where made beside them ([count, keys.count]; else layer_rows makes it from the heads'), and
// the keys they hold: a long text's attention and norm-based maps over the keys the rows may see
// (AttentionBlockRows: a decoder's rows hold no key after their own), any other map's over every key.
struct LayerBlock {
  at::Tensor heads, own;
  KeySpan keys;
};

LayerBlock layer_block(const AnalyzedTextView& text, int layer, MatrixKind matrix, RowSpan rows) {
  const bool held = matrix == MatrixKind::Attention || matrix == MatrixKind::Norm;
  if (!held || text.keeps_maps() || !text.attention_blocks)
    return {head_rows(text, layer, -1, matrix, rows), {}, {0, text.analysis.length}};
  const AttentionBlock block = text.attention_blocks(layer, -1, rows);
  if (matrix == MatrixKind::Attention) return {block.maps[0], {}, block.keys};
  return {head_norm_rows(block, text.captures, layer, 0), layer_norm_rows(block, text.captures, layer), block.keys};
}

// A long text (its maps not kept): each layer's maps made a block of query rows at a time and
// pooled into its heads' and its sum's panels as they come, so that no layer's maps are whole.
void pool_in_blocks(const AnalyzedTextView& text, const FigureOptions& o, int64_t k,
                    const LongTextThumbnails& long_text, std::vector<HeatmapPanel>& out) {
  c10::InferenceMode guard;  // the recomputed rows are inference tensors, their diagonal zeroed in place
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length, H = a.num_heads, per_layer = H + 1;
  const auto blocks = row_blocks(n, rows_per_block(per_layer * n, long_text.block_rows));
  for (int64_t l = 0; l < a.num_layers; ++l) {
    std::vector<MagnitudePooler> poolers;
    for (int64_t h = 0; h < per_layer; ++h)
      poolers.emplace_back(n, k, out[static_cast<size_t>(l * per_layer + h)].values.data());
    for (const auto& block : blocks) {
      stop_if_stale(long_text.keep_going);
      const int64_t first = block.first, count = block.second;  // named: clang 14's lambdas capture no bindings
      const LayerBlock block_of = layer_block(text, static_cast<int>(l), o.matrix, {first, count});
      const at::Tensor& rows = block_of.heads;  // [H, rows, keys]
      const KeySpan held = block_of.keys;
      const int64_t width = held.count;
      if (o.zero_diagonal && o.matrix == MatrixKind::Attention) rows.diagonal(first - held.first, -2, -1).zero_();
      const at::Tensor sum =
          (block_of.own.defined() ? block_of.own
                                  : layer_rows(text, static_cast<int>(l), o.matrix, rows, {first, count}))
              .contiguous();
      at::parallel_for(0, per_layer, 1, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h)
          poolers[static_cast<size_t>(h)].add_rows(
              h == H ? sum.data_ptr<float>() : rows.data_ptr<float>() + h * count * width, count, held);
      });
    }
    for (int64_t h = 0; h < per_layer; ++h) finish_panel(out[static_cast<size_t>(l * per_layer + h)], l, h, H, o);
    report_layers(long_text, l + 1, a.num_layers);
  }
}

// A long text's rollout: each R_l, made from R_(l-1) and layer l's maps a block of rows at a
// time, pooled once into all of layer l's panels (every head shows the layer's one rollout, as
// when the maps are kept).
void pool_rollout_in_blocks(const AnalyzedTextView& text, const FigureOptions& o, int64_t k,
                            const LongTextThumbnails& long_text, std::vector<HeatmapPanel>& out) {
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length, H = a.num_heads, per_layer = H + 1;
  require_rollout_fits(n);
  const LayerMapRows maps = rollout_layer_rows(text, o.rollout_of_norm);
  const LayerMapRows checked = [&](int64_t l, RowSpan rows) {
    stop_if_stale(long_text.keep_going);
    return maps(l, rows);
  };
  const auto pool_layer = [&](int64_t l, const at::Tensor& rollout) {
    HeatmapPanel& first = out[static_cast<size_t>(l * per_layer)];
    MagnitudePooler(n, k, first.values.data()).add_rows(rollout.contiguous().data_ptr<float>(), n);
    for (int64_t h = 0; h < per_layer; ++h) {
      HeatmapPanel& p = out[static_cast<size_t>(l * per_layer + h)];
      if (h > 0) p.values = first.values;
      finish_panel(p, l, h, H, o);
    }
    report_layers(long_text, l + 1, a.num_layers);
  };
  const int64_t block_rows = rows_per_block(H * n, long_text.block_rows);
  rollout_in_blocks(checked, a.num_layers - 1, n, block_rows, pool_layer);
}

// The forward's pooled attention, where it is what these options show of this text.
bool pooled_covers(const OverviewPooler* pooled, const AnalyzedTextView& text, const FigureOptions& o, int max_cells) {
  return pooled && pooled->complete() && pooled->length() == text.analysis.length && pooled->max_cells() == max_cells &&
         OverviewPooler::pools(o);
}

// The panels of the layers the forward has pooled, finished; the later layers' left clear (NaN).
void take_pooled(const OverviewPooler& pooled, const FigureOptions& o, std::vector<HeatmapPanel>& out) {
  const int64_t per_layer = pooled.heads() + 1, side = pooled.side(), done = pooled.layers_done();
  for (size_t p = 0; p < out.size(); ++p) {
    HeatmapPanel& panel = out[p];
    const int64_t layer = static_cast<int64_t>(p) / per_layer;
    panel.rows = panel.cols = static_cast<int>(side);
    if (layer < done) {
      panel.values = pooled.values(p);
      finish_panel(panel, layer, static_cast<int64_t>(p) % per_layer, pooled.heads(), o);
    } else {
      panel.values.assign(static_cast<size_t>(side * side), std::nanf(""));
      panel.colormap = o.colormap;
    }
  }
}

}  // namespace

std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells,
                                          const LongTextThumbnails& long_text) {
  const FigureOptions o = resolved(options, text.analysis);
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length;
  const int64_t k = n > max_cells ? (n + max_cells - 1) / max_cells : 1, side = (n + k - 1) / k;
  std::vector<HeatmapPanel> out(static_cast<size_t>(a.num_layers * (a.num_heads + 1)));
  for (HeatmapPanel& p : out) {
    p.rows = p.cols = static_cast<int>(side);
    p.values.resize(static_cast<size_t>(side * side));
  }
  if (text.keeps_maps()) {
    pool_whole_maps(text, o, k, out);
  } else if (pooled_covers(long_text.pooled, text, o, max_cells)) {
    take_pooled(*long_text.pooled, o, out);
  } else if (o.matrix == MatrixKind::Rollout) {
    pool_rollout_in_blocks(text, o, k, long_text, out);
  } else {
    pool_in_blocks(text, o, k, long_text, out);
  }
  return out;
}

ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options,
                          const LongTextThumbnails& long_text) {
  return thumbnail_atlas(grid_thumbnails(text, options, kGridThumbnailCells, long_text),
                         static_cast<int>(text.analysis.num_heads + 1));
}

ThumbnailAtlas pooled_atlas(const OverviewPooler& pooled, const FigureOptions& options) {
  if (!OverviewPooler::pools(options)) throw Error("the forward pools the overview of attention, its diagonal kept");
  std::vector<HeatmapPanel> panels(static_cast<size_t>(pooled.layers() * (pooled.heads() + 1)));
  take_pooled(pooled, options, panels);
  return thumbnail_atlas(panels, static_cast<int>(pooled.heads() + 1));
}

std::string grid_thumbnails_key(const FigureOptions& o) {
  return std::string(matrix_name(o.matrix)) + "|" + colormap(o.colormap).name + "|" +
         std::to_string(static_cast<int>(o.scale)) + (o.zero_diagonal ? "|z" : "|") + (o.rollout_of_norm ? "|rn" : "|");
}

}  // namespace attnscope
