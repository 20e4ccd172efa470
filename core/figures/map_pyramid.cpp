#include "figures/map_pyramid.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "figures/magnitude_pooler.h"
#include "model/reproducible_products.h"

namespace attnscope {

MapPyramid::MapPyramid(const AnalyzedTextView& text, MapOfHead map, PyramidOptions options)
    : text_(text), map_(map), options_(options), n_(static_cast<int64_t>(text.encoding.size())) {
  if (map.kind == MatrixKind::Rollout && !text.keeps_maps())
    throw Error(
        "the attention rollout R of a long text needs every attention map, which it does not keep "
        "(see --maps-up-to)");
  if (n_ <= 0) throw Error("an empty text has no map");
  while (cells(top_) > std::max<int64_t>(1, options_.top_cells)) ++top_;
  top_values_.assign(static_cast<size_t>(cells(top_) * cells(top_)), 0.0f);
  low_ = std::numeric_limits<double>::infinity();
  high_ = -low_;
  if (map.scale == ValueScale::Clipped && top_ > 0) histogram_.emplace(map.symmetric);
}

// Rows of the map are made a block at a time (about as many values as a block of the overview's)
// and folded into the level's cells as they come.
void MapPyramid::pool_rows(int level, int64_t first, int64_t count, float* out, bool track_range) {
  const int64_t k = int64_t{1} << level;
  MagnitudePooler pooler(n_, k, out, count);
  const int64_t heads = map_.head < 0 ? text_.analysis.num_heads : 1;
  // Whole blocks of k rows, so that a block of the pyramid is never split between two calls.
  const int64_t step = std::max<int64_t>(k, rows_per_block(heads * n_) / k * k);
  for (const auto& [start, size] : row_blocks(count, step)) {
    at::Tensor rows = map_rows(text_, map_.layer, map_.head, map_.kind, {first + start, size}).contiguous();
    if (map_.zero_diagonal) {
      if (text_.keeps_maps()) rows = rows.clone();  // a view of the kept maps, which stay whole
      for (int64_t r = 0; r < size; ++r) rows.data_ptr<float>()[r * n_ + first + start + r] = 0.0f;
    }
    if (track_range) {
      const auto [lo, hi] = at::aminmax(rows);
      low_ = std::min(low_, static_cast<double>(lo.item<float>()));
      high_ = std::max(high_, static_cast<double>(hi.item<float>()));
      if (histogram_) histogram_->add(rows.data_ptr<float>(), size * n_);
    }
    pooler.add_rows(rows.data_ptr<float>(), size);
  }
}

bool MapPyramid::make_top(std::chrono::duration<double> budget) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t band_rows = kTileCells << top_, side = cells(top_);
  while (!top_done()) {
    const int64_t first = top_bands_done_ * band_rows;
    pool_rows(top_, first, std::min(band_rows, n_ - first), top_values_.data() + top_bands_done_ * kTileCells * side,
              true);
    ++top_bands_done_;
    if (std::chrono::steady_clock::now() - start >= budget) break;
  }
  return top_done();
}

const PooledBand* MapPyramid::band(int level, int64_t band, bool make) {
  const auto key = std::make_pair(level, band);
  if (auto it = kept_.find(key); it != kept_.end()) {
    it->second.used = ++clock_;
    return &it->second.band;
  }
  if (!make || level < 0 || level >= top_ || band < 0 || band >= bands(level)) return nullptr;
  const int64_t k = int64_t{1} << level, first = band * kTileCells * k;
  PooledBand out;
  out.cols = cells(level);
  out.rows = std::min(kTileCells, cells(level) - band * kTileCells);
  out.values.resize(static_cast<size_t>(out.rows * out.cols));
  pool_rows(level, first, std::min(kTileCells * k, n_ - first), out.values.data(), false);
  drop_old_bands();
  KeptBand& kept = kept_[key];
  kept = {std::move(out), ++clock_};
  return &kept.band;
}

// The least recently used bands go first, until the rest (with room for one more of the finest
// level's) fit the budget.
void MapPyramid::drop_old_bands() {
  const auto bytes = [](const KeptBand& b) { return static_cast<int64_t>(b.band.values.size() * sizeof(float)); };
  int64_t total = kTileCells * n_ * static_cast<int64_t>(sizeof(float));
  for (const auto& [key, kept] : kept_) total += bytes(kept);
  while (total > options_.band_bytes && !kept_.empty()) {
    auto oldest = std::min_element(kept_.begin(), kept_.end(),
                                   [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    total -= bytes(oldest->second);
    kept_.erase(oldest);
  }
}

std::vector<std::pair<int, int>> MapPyramid::outlined(int64_t band, int64_t column_tile) const {
  std::vector<std::pair<int, int>> out;
  if (!map_.outline_pairs || map_.head < 0) return out;
  const PairMask& pairs = text_.analysis.head(map_.layer, map_.head).pairs;
  const int64_t i0 = band * kTileCells, j0 = column_tile * kTileCells;
  for (int64_t i = i0; i < std::min(n_, i0 + kTileCells); ++i)
    for (int64_t j = j0; j < std::min(n_, j0 + kTileCells); ++j)
      if (pairs.test(static_cast<int>(i), static_cast<int>(j)))
        out.emplace_back(static_cast<int>(i - i0), static_cast<int>(j - j0));
  return out;
}

float MapPyramid::value(int64_t i, int64_t j) {
  if (top_ == 0 && top_done()) return top_values_[static_cast<size_t>(i * n_ + j)];  // the map itself
  if (const PooledBand* kept = band(0, i / kTileCells, false)) return kept->value(i % kTileCells, j);
  if (map_.zero_diagonal && i == j) return 0.0f;
  return map_rows(text_, map_.layer, map_.head, map_.kind, {i, 1}).contiguous().data_ptr<float>()[j];
}

ColorScale MapPyramid::color_scale() const {
  const ValueScale scale = map_.scale;
  if (top_ == 0 || !top_done()) return color_scale_for(top_values_, scale, map_.symmetric);
  if (!histogram_ || histogram_->count() == 0) return {low_, high_, scale, map_.symmetric};
  // As color_scale_for picks its percentile.
  const auto k = static_cast<int64_t>(std::ceil(kClipPercentile * static_cast<double>(histogram_->count()))) - 1;
  const double top = histogram_->kth(k);
  if (map_.symmetric) return {-top, top, scale, true};
  return {low_, top > low_ ? top : high_, scale, false};
}

}  // namespace attnscope
