#include "figures/map_pyramid.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "figures/magnitude_pooler.h"
#include "model/reproducible_products.h"

namespace attnscope {

MapPyramid::MapPyramid(MapSource source, PyramidOptions options)
    : source_(std::move(source)), options_(options), n_(source_.n) {
  if (n_ <= 0 || (!source_.rows && !source_.held_rows)) throw Error("an empty map cannot be shown");
  while (cells(top_) > std::max<int64_t>(1, options_.top_cells)) ++top_;
  top_values_.assign(static_cast<size_t>(cells(top_) * cells(top_)), 0.0f);
  low_ = std::numeric_limits<double>::infinity();
  high_ = -low_;
  if (source_.scale == ValueScale::Clipped && top_ > 0)
    for (auto& histogram : histograms_) histogram.emplace(source_.symmetric);
}

// Whole blocks of k rows, so that a block of the pyramid is never split between two calls.
int64_t MapPyramid::block_step(int level) const {
  const int64_t k = int64_t{1} << level;
  return std::max<int64_t>(k, std::max<int64_t>(1, source_.block_rows) / k * k);
}

MapRows MapPyramid::rows_of(int64_t first, int64_t count) const {
  if (source_.held_rows) return source_.held_rows(first, count);
  return {source_.rows(first, count).contiguous(), {0, n_}};
}

// Rows of the map are made a block at a time and folded into the level's cells as they come.
void MapPyramid::pool_rows(int level, int64_t first, int64_t count, float* out) {
  MagnitudePooler pooler(n_, int64_t{1} << level, out, count);
  for (const auto& [start, size] : row_blocks(count, block_step(level))) {
    const MapRows rows = rows_of(first + start, size);
    pooler.add_rows(rows.values.data_ptr<float>(), size, rows.columns);
  }
}

// The range and the histogram of every cell; NaN (an empty cell) is skipped by the comparisons
// themselves. The range runs in kLanes minima and maxima side by side, which the compiler makes
// vector lanes: one running pair is a chain of comparisons each waiting for the last (0.2 s of a
// head's map at 8,192 tokens, against a few hundredths). The two halves of the values go to two
// threads where there are (a view's job; the drawing thread has one), each with its own histogram
// and range: counts, minima and maxima do not hang on the order they are taken in.
void MapPyramid::track(const float* values, int64_t count) {
  constexpr int64_t kLanes = 16;
  std::array<std::pair<float, float>, 2> range;
  const int64_t half = count / 2;
  at::parallel_for(0, 2, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const float* v = values + (part == 0 ? 0 : half);
      const int64_t size = part == 0 ? half : count - half;
      std::array<float, kLanes> lo, hi;
      lo.fill(static_cast<float>(low_));
      hi.fill(static_cast<float>(high_));
      int64_t k = 0;
      for (; k + kLanes <= size; k += kLanes)
        for (int64_t i = 0; i < kLanes; ++i) {
          lo[i] = v[k + i] < lo[i] ? v[k + i] : lo[i];
          hi[i] = v[k + i] > hi[i] ? v[k + i] : hi[i];
        }
      for (; k < size; ++k) {
        lo[0] = v[k] < lo[0] ? v[k] : lo[0];
        hi[0] = v[k] > hi[0] ? v[k] : hi[0];
      }
      range[static_cast<size_t>(part)] = {*std::min_element(lo.begin(), lo.end()),
                                          *std::max_element(hi.begin(), hi.end())};
      if (auto& histogram = histograms_[static_cast<size_t>(part)]) histogram->add(v, size);
    }
  });
  low_ = std::min(range[0].first, range[1].first);
  high_ = std::max(range[0].second, range[1].second);
}

void MapPyramid::track_zeros(int64_t count) {
  if (count <= 0) return;
  low_ = std::min(low_, 0.0);
  high_ = std::max(high_, 0.0);
  if (histograms_[0]) histograms_[0]->add_zeros(count);
}

// A block of rows at a time (a layer's summed map at 8,192 tokens: a band of the top level is
// 1,024 rows of 12 heads, a block some 80), so that a frame's budget is kept to a block.
bool MapPyramid::make_top(std::chrono::duration<double> budget) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t band_rows = kTileCells << top_, side = cells(top_);
  while (!top_done()) {
    const int64_t first = top_bands_done_ * band_rows, count = std::min(band_rows, n_ - first);
    if (!top_band_)
      top_band_.emplace(n_, int64_t{1} << top_, top_values_.data() + top_bands_done_ * kTileCells * side, count);
    const int64_t size = std::min(block_step(top_), count - top_rows_done_);
    const MapRows rows = rows_of(first + top_rows_done_, size);
    track(rows.values.data_ptr<float>(), size * rows.columns.count);
    track_zeros(size * (n_ - rows.columns.count));
    top_band_->add_rows(rows.values.data_ptr<float>(), size, rows.columns);
    if ((top_rows_done_ += size) == count) {
      top_band_.reset();
      top_rows_done_ = 0;
      ++top_bands_done_;
    }
    if (std::chrono::steady_clock::now() - start >= budget) break;
  }
  return top_done();
}

double MapPyramid::top_share() const {
  const int64_t band_rows = kTileCells << top_;
  return (static_cast<double>(top_bands_done_) + static_cast<double>(top_rows_done_) / static_cast<double>(band_rows)) /
         static_cast<double>(bands(top_));
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
  pool_rows(level, first, std::min(kTileCells * k, n_ - first), out.values.data());
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
  if (!source_.outlined) return out;
  const int64_t i0 = band * kTileCells, j0 = column_tile * kTileCells;
  for (int64_t i = i0; i < std::min(n_, i0 + kTileCells); ++i)
    for (int64_t j = j0; j < std::min(n_, j0 + kTileCells); ++j)
      if (source_.outlined(i, j)) out.emplace_back(static_cast<int>(i - i0), static_cast<int>(j - j0));
  return out;
}

float MapPyramid::value(int64_t i, int64_t j) {
  if (top_ == 0 && top_done()) return top_values_[static_cast<size_t>(i * n_ + j)];  // the map itself
  if (const PooledBand* kept = band(0, i / kTileCells, false)) return kept->value(i % kTileCells, j);
  const MapRows row = rows_of(i, 1);
  const int64_t at = j - row.columns.first;
  return at >= 0 && at < row.columns.count ? row.values.data_ptr<float>()[at] : 0.0f;
}

ColorScale MapPyramid::color_scale() const {
  if (source_.fixed_scale) return *source_.fixed_scale;
  const ValueScale scale = source_.scale;
  if (top_ == 0 || !top_done()) return color_scale_for(top_values_, scale, source_.symmetric);
  if (low_ > high_) return {0, 1, scale, source_.symmetric};  // every cell empty
  if (!histograms_[0]) return {low_, high_, scale, source_.symmetric};
  ValueHistogram histogram = *histograms_[0];
  histogram.add(*histograms_[1]);
  if (histogram.count() == 0) return {low_, high_, scale, source_.symmetric};
  // As color_scale_for picks its percentile.
  const auto k = static_cast<int64_t>(std::ceil(kClipPercentile * static_cast<double>(histogram.count()))) - 1;
  const double top = histogram.kth(k);
  if (source_.symmetric) return {-top, top, scale, true};
  return {low_, top > low_ ? top : high_, scale, false};
}

}  // namespace attnscope
