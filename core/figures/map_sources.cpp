#include "figures/map_sources.h"

#include <ATen/ATen.h>

#include <limits>
#include <memory>

#include "base/error.h"
#include "model/reproducible_products.h"

namespace attnscope {

MapSource head_map_source(const AnalyzedTextView& text, const MapOfHead& map, ValueScale scale, bool symmetric) {
  if (map.kind == MatrixKind::Rollout && !text.keeps_maps())
    throw Error(
        "the attention rollout R of a long text needs every attention map, which it does not keep "
        "(see --maps-up-to)");
  MapSource source;
  source.n = text.analysis.length;
  source.block_rows = rows_per_block((map.head < 0 ? text.analysis.num_heads : 1) * source.n);
  source.rows = [text, map](int64_t first, int64_t count) {
    at::Tensor rows = map_rows(text, map.layer, map.head, map.kind, {first, count});
    if (!map.zero_diagonal) return rows;
    rows = rows.clone();           // may be a view of the maps a short text keeps
    rows.diagonal(first).zero_();  // cells (r, first + r): the map's diagonal
    return rows;
  };
  if (map.outline_pairs && map.head >= 0) {
    const PairMask* pairs = &text.analysis.head(map.layer, map.head).pairs;
    source.outlined = [pairs](int64_t i, int64_t j) { return pairs->test(static_cast<int>(i), static_cast<int>(j)); };
  }
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

// [k, k] sums of S over each pair of segments, the diagonal left out, and the counts of their cells:
// each block of S's rows summed over the columns of each segment (differences of the rows' running
// sums, in double), then added to its rows' segments.
std::pair<at::Tensor, at::Tensor> block_sums(const AnalyzedTextView& text, int layer, int head,
                                             const std::vector<Segment>& segments) {
  const int64_t n = text.analysis.length, k = static_cast<int64_t>(segments.size());
  const auto opts = at::TensorOptions().dtype(at::kLong);
  std::vector<int64_t> starts, ends, segment_of(static_cast<size_t>(n), 0);
  for (int64_t s = 0; s < k; ++s) {
    starts.push_back(segments[s].first);
    ends.push_back(segments[s].last + 1);
    for (int i = segments[s].first; i <= segments[s].last; ++i) segment_of[static_cast<size_t>(i)] = s;
  }
  const at::Tensor start = at::tensor(starts, opts), end = at::tensor(ends, opts);
  const at::Tensor of = at::tensor(segment_of, opts);
  at::Tensor sums = at::zeros({k, k}, at::kDouble);
  for (const auto& [first, count] : row_blocks(n, rows_per_block(n))) {
    const at::Tensor s = map_rows(text, layer, head, MatrixKind::Similarity, {first, count}).to(at::kDouble);
    const at::Tensor running = at::constant_pad_nd(s.cumsum(1), {1, 0}, 0);                 // [count, n + 1], 0 first
    at::Tensor by_segment = running.index_select(1, end) - running.index_select(1, start);  // [count, k]
    const at::Tensor rows = of.narrow(0, first, count);
    // The diagonal S_ii lies in row i's own segment.
    const at::Tensor diagonal = s.gather(1, at::arange(first, first + count, opts).unsqueeze(1)).squeeze(1);
    by_segment.scatter_add_(1, rows.unsqueeze(1), -diagonal.unsqueeze(1));
    sums.index_add_(0, rows, by_segment);
  }
  const at::Tensor sizes = (end - start).to(at::kDouble);
  at::Tensor cells = sizes.unsqueeze(1) * sizes.unsqueeze(0);
  cells.diagonal().sub_(sizes);  // a segment with itself: its diagonal left out
  return {sums, cells};
}

}  // namespace

MapSource block_average_source(const AnalyzedTextView& text, int layer, int head, const std::vector<Segment>& segments,
                               ValueScale scale) {
  const int64_t n = text.analysis.length;
  if (segments.empty()) throw Error("block averages need the text's segments");
  const auto [sums, cells] = block_sums(text, layer, head, segments);
  const at::Tensor means =
      at::where(cells > 0, sums / cells.clamp_min(1), std::numeric_limits<double>::quiet_NaN()).to(at::kFloat);
  std::vector<int64_t> segment_of(static_cast<size_t>(n), 0);
  for (size_t s = 0; s < segments.size(); ++s)
    for (int i = segments[s].first; i <= segments[s].last; ++i)
      segment_of[static_cast<size_t>(i)] = static_cast<int64_t>(s);
  const at::Tensor of = at::tensor(segment_of, at::TensorOptions().dtype(at::kLong));
  MapSource source;
  source.n = n;
  source.rows = [means, of](int64_t first, int64_t count) {
    return means.index_select(0, of.narrow(0, first, count)).index_select(1, of);
  };
  source.scale = scale;
  source.symmetric = true;
  return source;
}

}  // namespace attnscope
