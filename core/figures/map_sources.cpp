#include "figures/map_sources.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/lens_maps.h"
#include "base/error.h"
#include "model/reproducible_products.h"

namespace attnscope {

namespace {

MapSource::Outlined outlined_in(std::shared_ptr<const PairMask> mask) {
  return
      [mask = std::move(mask)](int64_t i, int64_t j) { return mask->test(static_cast<int>(i), static_cast<int>(j)); };
}

// Whether cell (i, j) is one of the head's pairs. A long text's mask may not be kept
// (AnalysisRun::long_pair_mask_bytes): a tile's rows are made again, a tile's height at a time; the
// cells of a tile of level 0 all read the rows of its band or, below the diagonal, of its column tile.
// A lens's mask is made from the head's whole map (TextAnalysis::made_lens_mask): unless at hand
// already, that is left to the view's thread beside the window (make_outlined).
void outline_pairs(const TextAnalysis& analysis, const MapOfHead& map, MapSource& source) {
  const PairMask* kept = &analysis.head(map.layer, map.head).pairs;
  if (kept->tokens() == analysis.length) {
    source.outlined = [kept](int64_t i, int64_t j) { return kept->test(static_cast<int>(i), static_cast<int>(j)); };
    return;
  }
  if (analysis.pair_map) {
    if (std::optional<PairMask> mask = analysis.pair_mask_at_hand(map.layer, map.head)) {
      source.outlined = outlined_in(std::make_shared<const PairMask>(std::move(*mask)));
      return;
    }
    source.make_outlined = [&analysis, map] {
      return outlined_in(std::make_shared<const PairMask>(analysis.pair_mask(map.layer, map.head)));
    };
    source.outlines_key = "pairs of " + std::to_string(map.layer) + "," + std::to_string(map.head);
    return;
  }
  struct Band {
    int64_t first = -1;
    PairMask rows;
  };
  auto band = std::make_shared<Band>();
  source.outlined = [&analysis, map, band](int64_t i, int64_t j) {
    const int64_t row = std::min(i, j), height = MapPyramid::kTileCells;
    if (band->first < 0 || row < band->first || row >= band->first + height) {
      band->first = row / height * height;
      band->rows =
          analysis.pair_mask(map.layer, map.head, {band->first, std::min(height, analysis.length - band->first)});
    }
    return band->rows.test(static_cast<int>(i), static_cast<int>(j));
  };
}

// A long text's attention map or norm-based map (a head's, or its layer's own) made again a block
// of rows at a time over the keys the rows may see: a decoder's rows hold no key after their own, a
// local layer's a band (at 32,768 tokens Gemma 3's 575 keys of a row), so pooling a map costs its band.
std::function<MapRows(int64_t, int64_t)> held_map_rows(const AnalyzedTextView& text, const MapOfHead& map) {
  return [text, map](int64_t first, int64_t count) {
    const AttentionBlock block = text.attention_blocks(map.layer, map.head, {first, count});
    at::Tensor values;  // [count, keys]
    if (map.kind == MatrixKind::Norm)
      values = map.head < 0 ? layer_norm_rows(block, text.captures, map.layer)
                            : head_norm_rows(block, text.captures, map.layer, map.head)[0];
    else
      values = map.head < 0 ? block.maps[0].sum(0) : block.maps[0][0];
    if (map.zero_diagonal) {
      values = values.clone();                            // may be the block itself
      values.diagonal(first - block.keys.first).zero_();  // cells (r, first + r)
    }
    return MapRows{values.contiguous(), block.keys};
  };
}

// A kept map drawn from tiles (one longer than a pyramid's top level): made whole once, as a whole
// figure's panel is (head_matrix), its rows read from that. Its lenses make a layer's maps at a
// time and its rollout passes every layer before it, which each block of rows would do again.
std::function<at::Tensor(int64_t, int64_t)> kept_map_rows(const AnalyzedTextView& text, const MapOfHead& map) {
  const int64_t n = text.analysis.length;
  return [text, map, n, whole = std::make_shared<std::vector<float>>()](int64_t first, int64_t count) {
    if (whole->empty()) {
      *whole = head_matrix(text, map.layer, map.head, map.kind, map.rollout_of_norm);
      if (map.zero_diagonal)
        for (int64_t i = 0; i < n; ++i) (*whole)[static_cast<size_t>(i * (n + 1))] = 0.0f;
    }
    return at::from_blob(whole->data() + first * n, {count, n}, at::kFloat).clone();  // the source keeps its own
  };
}

}  // namespace

MapSource head_map_source(const AnalyzedTextView& text, const MapOfHead& map, ValueScale scale, bool symmetric) {
  if (map.kind == MatrixKind::Rollout && !text.keeps_maps() && !text.rollout_of(map.layer, map.rollout_of_norm))
    throw Error("this view draws no attention rollout of a long text after layer " + std::to_string(map.layer) +
                " (each is made beforehand, minutes at 8,192 tokens): the Head view, the Layers view and the overview "
                "draw it, as does attnscope-cli figure --matrix rollout");
  MapSource source;
  source.n = text.analysis.length;
  source.block_rows = rows_per_block((map.head < 0 ? text.analysis.num_heads : 1) * source.n);
  if (text.keeps_maps())
    source.rows = kept_map_rows(text, map);
  else
    source.rows = [text, map](int64_t first, int64_t count) {
      at::Tensor rows = map_rows(text, map.layer, map.head, map.kind, {first, count});
      if (!map.zero_diagonal) return rows;
      rows = rows.clone();
      rows.diagonal(first).zero_();  // cells (r, first + r): the map's diagonal
      return rows;
    };
  if ((map.kind == MatrixKind::Attention || map.kind == MatrixKind::Norm) && !text.keeps_maps() &&
      text.attention_blocks)
    source.held_rows = held_map_rows(text, map);
  if (map.outline_pairs && map.head >= 0) outline_pairs(text.analysis, map, source);
  source.scale = scale;
  source.symmetric = symmetric;
  return source;
}

MapSource separator_mask_source(const std::vector<int>& separators, int64_t n) {
  auto marked = std::make_shared<std::vector<float>>(static_cast<size_t>(n), 0.0f);
  for (int p : separators) marked->at(static_cast<size_t>(p)) = 1.0f;
  MapSource source;
  source.n = n;
  source.rows = [marked, n](int64_t first, int64_t count) {
    const at::Tensor columns = at::from_blob(marked->data(), {1, n}, at::kFloat);
    const at::Tensor rows = at::from_blob(marked->data() + first, {count, 1}, at::kFloat);
    return at::maximum(rows, columns);  // a new tensor: the blobs stay the source's
  };
  return source;
}

namespace {

// The segments of a text as tensors: each segment's first and one-past-last token, each token's segment.
struct SegmentIndex {
  at::Tensor start, end, of;
  std::vector<int64_t> first_of;    // per segment, its first token
  std::vector<int64_t> segment_of;  // per token
};

SegmentIndex segment_index(const std::vector<Segment>& segments, int64_t n) {
  SegmentIndex x;
  std::vector<int64_t> ends;
  x.segment_of.assign(static_cast<size_t>(n), 0);
  for (size_t s = 0; s < segments.size(); ++s) {
    x.first_of.push_back(segments[s].first);
    ends.push_back(segments[s].last + 1);
    for (int i = segments[s].first; i <= segments[s].last; ++i)
      x.segment_of[static_cast<size_t>(i)] = static_cast<int64_t>(s);
  }
  const auto opts = at::TensorOptions().dtype(at::kLong);
  x.start = at::tensor(x.first_of, opts);
  x.end = at::tensor(ends, opts);
  x.of = at::tensor(x.segment_of, opts);
  return x;
}

// Rows [first, first + count) of the block averages: the sums of S over the blocks of the
// segments those rows are in (their whole rows made again, a block at a time, each row summed
// over every segment's columns by differences of its running sum, in double, its own S_ii left
// out), over the blocks' cells. Only those segments' sums are held: a text whose every token is a
// separator has n segments, and n x n blocks.
at::Tensor block_average_rows(const AnalyzedTextView& text, int layer, int head, const SegmentIndex& x, int64_t first,
                              int64_t count) {
  const int64_t n = text.analysis.length, k = x.start.size(0);
  const int64_t a0 = x.segment_of[static_cast<size_t>(first)],
                a1 = x.segment_of[static_cast<size_t>(first + count - 1)];
  const int64_t rows_first = x.first_of[static_cast<size_t>(a0)], rows_end = x.end[a1].item<int64_t>();
  at::Tensor sums = at::zeros({a1 - a0 + 1, k}, at::kDouble);
  const auto opts = at::TensorOptions().dtype(at::kLong);
  for (const auto& [start, size] : row_blocks(rows_end - rows_first, rows_per_block(n))) {
    const int64_t from = rows_first + start;
    const at::Tensor s = map_rows(text, layer, head, MatrixKind::Similarity, {from, size}).to(at::kDouble);
    const at::Tensor running = at::constant_pad_nd(s.cumsum(1), {1, 0}, 0);  // [size, n + 1], 0 first
    at::Tensor by_segment = running.index_select(1, x.end) - running.index_select(1, x.start);  // [size, k]
    const at::Tensor own = x.of.narrow(0, from, size);
    const at::Tensor diagonal = s.gather(1, at::arange(from, from + size, opts).unsqueeze(1));
    by_segment.scatter_add_(1, own.unsqueeze(1), -diagonal);
    sums.index_add_(0, own - a0, by_segment);
  }
  const at::Tensor sizes = (x.end - x.start).to(at::kDouble);
  at::Tensor cells = sizes.narrow(0, a0, a1 - a0 + 1).unsqueeze(1) * sizes.unsqueeze(0);
  cells.narrow(1, a0, a1 - a0 + 1)
      .diagonal()
      .sub_(sizes.narrow(0, a0, a1 - a0 + 1));  // a segment with itself: no i == j
  const at::Tensor means =
      at::where(cells > 0, sums / cells.clamp_min(1), std::numeric_limits<double>::quiet_NaN()).to(at::kFloat);
  return means.index_select(0, x.of.narrow(0, first, count) - a0).index_select(1, x.of);
}

}  // namespace

MapSource block_average_source(const AnalyzedTextView& text, int layer, int head, const std::vector<Segment>& segments,
                               ValueScale scale) {
  if (segments.empty()) throw Error("block averages need the text's segments");
  MapSource source;
  source.n = text.analysis.length;
  source.rows = [text, layer, head, x = std::make_shared<SegmentIndex>(segment_index(segments, source.n))](
                    int64_t first, int64_t count) { return block_average_rows(text, layer, head, *x, first, count); };
  source.scale = scale;
  source.symmetric = true;
  return source;
}

}  // namespace attnscope
