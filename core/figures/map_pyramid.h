#pragma once
// A long text's map as a pyramid of tiles, for the views that show maps: level k pools blocks of
// 2^k x 2^k cells (each keeping its value of largest magnitude, with its sign, as the overview's
// thumbnails do), level 0 is the map itself. A band (kTileCells rows of a level's cells) is made
// from the map's rows made again a block at a time (MapSource), so that showing any part of an
// 8,192- or 32,768-token map costs the rows it covers and the screen's pixels, never an n x n
// matrix. The top level (at most `top_cells` a side) is made first, a band at a time, and gives
// the colour scale; finer bands are made when asked and the least recently used dropped past a
// memory budget.
#include <ATen/core/Tensor.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "figures/colormap.h"
#include "figures/magnitude_pooler.h"
#include "figures/value_histogram.h"
#include "model/row_span.h"

namespace attnscope {

// Rows of a map over some of its columns, every other column 0 (a decoder's block of attention
// rows over the keys they may see).
struct MapRows {
  at::Tensor values;  // [rows, columns.count] float32 on the host, contiguous
  KeySpan columns;    // count given
};

// An n x n map a pyramid shows, made a block of rows at a time (figures/map_sources.h makes them
// for a text: a head's map, a layer's, the separator mask, block averages).
struct MapSource {
  int64_t n = 0;
  // [count, n] float32 on the host: rows [first, first + count) of the map.
  std::function<at::Tensor(int64_t first, int64_t count)> rows;
  // Set beside `rows` where the map's rows hold some columns alone: the same rows over those, which
  // the pyramid reads instead (no column of zeros made, pooled or counted one by one).
  std::function<MapRows(int64_t first, int64_t count)> held_rows;
  int64_t block_rows = 256;  // rows made at a time (about 32 MB of what making them holds)
  // Cells outlined at level 0 (a head's pairs), or empty.
  using Outlined = std::function<bool(int64_t i, int64_t j)>;
  Outlined outlined;
  // Set instead where the outlines need something slow made first (a long text's lens head's mask,
  // from its whole map: some 0.7 s at 8,192 tokens): makes them, for a view to run off its UI thread
  // and hand back (MapPyramid::set_outlined); `outlines_key` names what it makes.
  std::function<Outlined()> make_outlined;
  std::string outlines_key;
  // How it is coloured (color_scale): a clipped scale's percentile is counted as the top level is made.
  ValueScale scale = ValueScale::Linear;
  bool symmetric = false;                 // a signed map, its scale centred at 0
  std::optional<ColorScale> fixed_scale;  // set: the colour scale, whatever the values (a mask's 0 and 1)
};

struct PyramidOptions {
  int64_t top_cells = 1024;         // the top level's side at most
  int64_t band_bytes = 64ll << 20;  // bands below the top level kept at most (the top is always kept)
};

// Whether a view draws a text's maps from pyramids: a long text's, made again, always; kept maps
// where they are larger than the top level. Drawn whole, such a map costs the window some 26 bytes
// a cell (its values, colour positions and full-size textures: the Layers view of Gemma 3 at 2,048
// tokens held 0.9 GB more), made on the UI thread; tiles cost the screen's pixels, made beside it.
inline bool draws_from_tiles(bool maps_kept, int64_t n, const PyramidOptions& options) {
  return !maps_kept || n > options.top_cells;
}

// kTileCells rows of one level's cells, all its columns, row-major.
struct PooledBand {
  int64_t rows = 0, cols = 0;
  std::vector<float> values;
  float value(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

class MapPyramid {
 public:
  static constexpr int64_t kTileCells = 128;

  // Used from one thread at a time (a source reading a text's maps keeps its view's state).
  explicit MapPyramid(MapSource source, PyramidOptions options = {});

  int64_t length() const { return n_; }
  int top_level() const { return top_; }
  int64_t cells(int level) const { return (n_ + (int64_t{1} << level) - 1) >> level; }  // a side
  int64_t bands(int level) const { return (cells(level) + kTileCells - 1) / kTileCells; }

  // Makes the top level's next blocks of rows until `budget` has passed (at least one); true once it is whole.
  bool make_top(std::chrono::duration<double> budget);
  bool top_done() const { return top_bands_done_ == bands(top_); }
  double top_share() const;
  // The top level, cells(top_level()) a side, row-major (rows not yet made are 0).
  const std::vector<float>& top() const { return top_values_; }

  // Band `band` of `level`, made first when `make` (else null when not made). Valid until the next
  // call that makes a band.
  const PooledBand* band(int level, int64_t band, bool make);
  // The pairs among level 0's cells of tile (band, column tile), as (row, column) within the tile.
  std::vector<std::pair<int, int>> outlined(int64_t band, int64_t column_tile) const;
  // The outlines are still to be made (MapSource::make_outlined) and handed over here.
  bool outlines_pending() const { return !source_.outlined && source_.make_outlined; }
  const MapSource& source() const { return source_; }
  void set_outlined(MapSource::Outlined outlined) { source_.outlined = std::move(outlined); }
  // One cell of the map itself, from a band when it is kept, else from its row made again.
  float value(int64_t i, int64_t j);

  // The map's whole range (lowest, highest), once the top level is whole.
  std::pair<double, double> range() const { return {low_, high_}; }
  // The map's colour scale (MapSource::scale), once the top level is whole: color_scale_for's of the
  // whole map, its range exact and a clipped scale's 99th percentile to within about one part in a
  // thousand (ValueHistogram); exact where the top level is the map itself.
  ColorScale color_scale() const;

 private:
  int64_t block_step(int level) const;
  // Rows [first, first + count) of the map, pooled into `out` by 2^level.
  void pool_rows(int level, int64_t first, int64_t count, float* out);
  MapRows rows_of(int64_t first, int64_t count) const;  // held_rows', or rows' over every column
  void track(const float* values, int64_t count);
  void track_zeros(int64_t count);  // cells of columns the rows do not hold
  void drop_old_bands();

  MapSource source_;
  PyramidOptions options_;
  int64_t n_ = 0;
  int top_ = 0;
  std::vector<float> top_values_;
  int64_t top_bands_done_ = 0, top_rows_done_ = 0;  // of the top level: whole bands, then rows of the next
  std::optional<MagnitudePooler> top_band_;         // the band being made
  double low_ = 0, high_ = 0;
  // Of every cell, for a clipped scale: one for each of the two halves of a block track counts on
  // threads of its own (a histogram's count is a chain of increments, a third of a head's map made).
  std::array<std::optional<ValueHistogram>, 2> histograms_;
  struct KeptBand {
    PooledBand band;
    uint64_t used = 0;
  };
  std::map<std::pair<int, int64_t>, KeptBand> kept_;  // (level, band), below the top level
  uint64_t clock_ = 0;
};

}  // namespace attnscope
