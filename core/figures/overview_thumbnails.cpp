#include "figures/overview_thumbnails.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>

#include "analysis/lens_maps.h"
#include "figures/colormap.h"

namespace attnscope {
namespace {

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

}  // namespace

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

std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells) {
  const FigureOptions o = resolved(options, text.analysis);
  const TextAnalysis& a = text.analysis;
  const int64_t n = a.length, per_layer = a.num_heads + 1;
  const int64_t k = n > max_cells ? (n + max_cells - 1) / max_cells : 1, side = (n + k - 1) / k;
  const bool signed_map = o.matrix == MatrixKind::Similarity || o.matrix == MatrixKind::Cosine;
  // Rollout is one map per layer, each the product of the ones before: computed once for all.
  const at::Tensor rollout = o.matrix == MatrixKind::Rollout
                                 ? rollout_maps(text.captures, static_cast<int>(a.num_layers), o.rollout_of_norm)
                                 : at::Tensor();
  const int64_t group =
      std::max<int64_t>(1, kThumbnailSourceBytes / (a.num_heads * n * n * static_cast<int64_t>(sizeof(float))));
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
        if (k > 1)
          pool_by_magnitude(full, n, k, p.values.data(), high.data(), low.data());
        else
          std::copy(full, full + n * n, p.values.begin());
        p.colormap = signed_map ? ColormapId::Diverging : o.colormap;
        p.color_scale = color_scale_for(p.values, o.scale, signed_map);
        p.title = h == a.num_heads ? "L" + std::to_string(l) + " sum" : std::to_string(l) + "." + std::to_string(h);
      }
    });
  }
  return out;
}

ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options) {
  return thumbnail_atlas(grid_thumbnails(text, options, kGridThumbnailCells),
                         static_cast<int>(text.analysis.num_heads + 1));
}

std::string grid_thumbnails_key(const FigureOptions& o) {
  return std::string(matrix_name(o.matrix)) + "|" + colormap(o.colormap).name + "|" +
         std::to_string(static_cast<int>(o.scale)) + (o.zero_diagonal ? "|z" : "|") + (o.rollout_of_norm ? "|rn" : "|");
}

}  // namespace attnscope
