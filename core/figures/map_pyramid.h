#pragma once
// A long text's map of one head as a pyramid of tiles, for the Head view: level k pools blocks of
// 2^k x 2^k cells (each keeping its value of largest magnitude, with its sign, as the overview's
// thumbnails do), level 0 is the map itself. A band (kTileCells rows of a level's cells) is made
// from the head's rows made again a block at a time (map_rows), so that showing any part of an
// 8,192- or 32,768-token map costs the rows it covers and the screen's pixels, never an n x n
// matrix. The top level (at most `top_cells` a side) is made first, a band at a time, and gives
// the colour scale; finer bands are made when asked and the least recently used dropped past a
// memory budget.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "figures/colormap.h"
#include "figures/figure_options.h"
#include "figures/text_matrices.h"
#include "figures/value_histogram.h"

namespace attnscope {

// Which map a pyramid shows.
struct MapOfHead {
  int layer = 0, head = 0;  // head -1: the layer's own map
  MatrixKind kind = MatrixKind::Attention;
  bool zero_diagonal = false;  // shown with its diagonal set to 0 (FigureOptions::zero_diagonal)
  bool outline_pairs = false;  // level 0's tiles list the head's pairs among their cells
  // How it is coloured (color_scale): a clipped scale's percentile is counted as the top level is made.
  ValueScale scale = ValueScale::Linear;
  bool symmetric = false;  // a signed map, its scale centred at 0
};

struct PyramidOptions {
  int64_t top_cells = 1024;         // the top level's side at most
  int64_t band_bytes = 64ll << 20;  // bands below the top level kept at most (the top is always kept)
};

// kTileCells rows of one level's cells, all its columns, row-major.
struct PooledBand {
  int64_t rows = 0, cols = 0;
  std::vector<float> values;
  float value(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

class MapPyramid {
 public:
  static constexpr int64_t kTileCells = 128;

  // What `text` refers to must outlive the pyramid, which keeps a view of its own, for one thread
  // at a time (AnalyzedTextView).
  // Throws attnscope::Error for a map that needs every map whole (rollout of a long text).
  MapPyramid(const AnalyzedTextView& text, MapOfHead map, PyramidOptions options = {});

  const MapOfHead& map() const { return map_; }
  int64_t length() const { return n_; }
  int top_level() const { return top_; }
  int64_t cells(int level) const { return (n_ + (int64_t{1} << level) - 1) >> level; }  // a side
  int64_t bands(int level) const { return (cells(level) + kTileCells - 1) / kTileCells; }

  // Makes the top level's next bands until `budget` has passed (at least one); true once it is whole.
  bool make_top(std::chrono::duration<double> budget);
  bool top_done() const { return top_bands_done_ == bands(top_); }
  double top_share() const { return static_cast<double>(top_bands_done_) / static_cast<double>(bands(top_)); }
  // The top level, cells(top_level()) a side, row-major (rows not yet made are 0).
  const std::vector<float>& top() const { return top_values_; }

  // Band `band` of `level`, made first when `make` (else null when not made). Valid until the next
  // call that makes a band.
  const PooledBand* band(int level, int64_t band, bool make);
  // The pairs among level 0's cells of tile (band, column tile), as (row, column) within the tile.
  std::vector<std::pair<int, int>> outlined(int64_t band, int64_t column_tile) const;
  // One cell of the map itself, from a band when it is kept, else from its row made again.
  float value(int64_t i, int64_t j);

  // The map's whole range (lowest, highest), once the top level is whole.
  std::pair<double, double> range() const { return {low_, high_}; }
  // The map's colour scale (MapOfHead::scale), once the top level is whole: color_scale_for's of the
  // whole map, its range exact and a clipped scale's 99th percentile to within about one part in a
  // thousand (ValueHistogram); exact where the top level is the map itself.
  ColorScale color_scale() const;

 private:
  // Rows [first, first + count) of the map, pooled into `out` by 2^level.
  void pool_rows(int level, int64_t first, int64_t count, float* out, bool track_range);
  void drop_old_bands();

  AnalyzedTextView text_;
  MapOfHead map_;
  PyramidOptions options_;
  int64_t n_ = 0;
  int top_ = 0;
  std::vector<float> top_values_;
  int64_t top_bands_done_ = 0;
  double low_ = 0, high_ = 0;
  std::optional<ValueHistogram> histogram_;  // of every cell, for a clipped scale
  struct KeptBand {
    PooledBand band;
    uint64_t used = 0;
  };
  std::map<std::pair<int, int64_t>, KeptBand> kept_;  // (level, band), below the top level
  uint64_t clock_ = 0;
};

}  // namespace attnscope
