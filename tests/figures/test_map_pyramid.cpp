// A long text's maps as pyramids of tiles (figures/map_pyramid.h, figures/map_sources.h), on the
// real MiniLM at 512 tokens made again from queries and keys, against the same text's whole maps
// kept: every level's bands equal the whole map pooled by MagnitudePooler, level 0 and single cells
// equal the map to the bit, the range and colour scale are the whole map's, the pairs outlined are
// the head's, bands dropped past the memory budget come back the same, and the tiled figures
// (head, Fig. 5, Fig. 12) hold the same panels as the whole ones, their maps from their sources.
// A tiny decoder's maps pool the same from blocks over the keys their rows may see.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "analysis/lens_maps.h"
#include "base/error.h"
#include "figures/magnitude_pooler.h"
#include "figures/map_pyramid.h"
#include "figures/map_sources.h"
#include "figures/text_figures.h"
#include "pipeline/long_text_lens_pairs.h"
#include "support/minilm.h"
#include "support/long_text_views.h"

namespace attnscope {
namespace {

using test::long_view;
using test::maps_view;

MapSource source_of(const MapOfHead& m, ValueScale scale = ValueScale::Linear, bool symmetric = false) {
  return head_map_source(long_view(), m, scale, symmetric);
}

// Every row of a source, as one n x n matrix.
std::vector<float> whole_of(const MapSource& source) {
  const at::Tensor rows = source.rows(0, source.n).contiguous();
  return {rows.data_ptr<float>(), rows.data_ptr<float>() + source.n * source.n};
}

// The whole map (head_matrix of the text keeping its maps), diagonal zeroed when asked.
std::vector<float> whole_map(const MapOfHead& m) {
  std::vector<float> whole = head_matrix(maps_view(), m.layer, m.head, m.kind);
  if (m.zero_diagonal)
    for (int64_t i = 0; i < 512; ++i) whole[static_cast<size_t>(i * 513)] = 0.0f;
  return whole;
}

std::vector<float> pooled(std::vector<float> whole, int64_t k) {
  const int64_t n = 512, side = (n + k - 1) / k;
  std::vector<float> out(static_cast<size_t>(side * side));
  MagnitudePooler(n, k, out.data()).add_rows(whole.data(), n);
  return out;
}

// Band b of a level: rows [b * 128, ...) of that level's pooled map.
std::vector<float> band_of(const std::vector<float>& level, int64_t side, int64_t b) {
  const int64_t first = b * MapPyramid::kTileCells, rows = std::min(MapPyramid::kTileCells, side - first);
  return {level.begin() + first * side, level.begin() + (first + rows) * side};
}

TEST(MapPyramid, EveryLevelEqualsTheWholeMapPooled) {
  for (const MapOfHead m : {MapOfHead{3, 2, MatrixKind::Attention, true}, MapOfHead{5, -1, MatrixKind::Similarity},
                            MapOfHead{1, 4, MatrixKind::Norm}, MapOfHead{0, 7, MatrixKind::Cosine}}) {
    SCOPED_TRACE(std::string(matrix_name(m.kind)) + " head " + std::to_string(m.head));
    const std::vector<float> whole = whole_map(m);
    MapPyramid pyramid(source_of(m), {.top_cells = 64});
    ASSERT_EQ(pyramid.top_level(), 3);  // 512 tokens in cells of 8
    EXPECT_FALSE(pyramid.top_done());
    while (!pyramid.make_top(std::chrono::seconds(0))) EXPECT_GT(pyramid.top_share(), 0.0);
    EXPECT_EQ(pyramid.top(), pooled(whole, 8));
    for (int level = 0; level < 3; ++level) {
      const std::vector<float> expected = pooled(whole, int64_t{1} << level);
      for (int64_t b = 0; b < pyramid.bands(level); ++b) {
        EXPECT_EQ(pyramid.band(level, b, false), nullptr);
        const PooledBand* band = pyramid.band(level, b, true);
        ASSERT_NE(band, nullptr);
        EXPECT_EQ(band->cols, pyramid.cells(level));
        EXPECT_EQ(band->values, band_of(expected, pyramid.cells(level), b)) << "level " << level << " band " << b;
      }
    }
    const auto [low, high] = std::minmax_element(whole.begin(), whole.end());
    EXPECT_EQ(pyramid.range(), std::make_pair(static_cast<double>(*low), static_cast<double>(*high)));
    for (const auto& [i, j] : {std::pair<int64_t, int64_t>{0, 0}, {17, 400}, {300, 300}, {511, 2}})
      EXPECT_EQ(pyramid.value(i, j), whole[static_cast<size_t>(i * 512 + j)]) << i << "," << j;
  }
}

// The colour scale of the whole map: the range exact, a clipped scale's percentile counted in a
// histogram of every cell (within a thousandth), exactly color_scale_for's where the top is the map.
TEST(MapPyramid, ColoursAsTheWholeMapIsColoured) {
  for (const auto& [kind, scale] : {std::pair{MatrixKind::Attention, ValueScale::Clipped},
                                    {MatrixKind::Similarity, ValueScale::Clipped},
                                    {MatrixKind::Attention, ValueScale::Linear}}) {
    const bool symmetric = kind == MatrixKind::Similarity;
    const MapOfHead m{2, 4, kind};
    const ColorScale whole = color_scale_for(whole_map(m), scale, symmetric);
    MapPyramid tiled(source_of(m, scale, symmetric), {.top_cells = 64});
    MapPyramid one_level(source_of(m, scale, symmetric), {.top_cells = 512});
    tiled.make_top(std::chrono::hours(1));
    one_level.make_top(std::chrono::hours(1));
    const ColorScale near = tiled.color_scale(), exact = one_level.color_scale();
    SCOPED_TRACE(std::string(matrix_name(kind)) + " " + value_scale_name(scale));
    EXPECT_EQ(exact.lo, whole.lo);
    EXPECT_EQ(exact.hi, whole.hi);
    EXPECT_EQ(near.symmetric, symmetric);
    EXPECT_NEAR(near.lo, whole.lo, 1e-3 * std::abs(whole.lo));
    EXPECT_NEAR(near.hi, whole.hi, 1e-3 * std::abs(whole.hi));
    if (scale == ValueScale::Linear) EXPECT_EQ(near.hi, whole.hi);
  }
}

TEST(MapPyramid, SingleCellsAndBandsPastTheBudgetAreMadeAgainTheSame) {
  // Room for one band of level 0 at a time: each band asked drops the one before.
  MapPyramid pyramid(source_of({2, 9, MatrixKind::Attention}), {.top_cells = 64, .band_bytes = 128 * 512 * 4});
  const std::vector<float> first = pyramid.band(0, 0, true)->values;
  const std::vector<float> whole = head_matrix(maps_view(), 2, 9, MatrixKind::Attention);
  EXPECT_EQ(pyramid.value(5, 6), whole[5 * 512 + 6]);      // from the kept band
  EXPECT_EQ(pyramid.value(450, 6), whole[450 * 512 + 6]);  // its row made again
  ASSERT_NE(pyramid.band(0, 3, true), nullptr);
  EXPECT_EQ(pyramid.band(0, 0, false), nullptr);
  EXPECT_EQ(pyramid.band(0, 0, true)->values, first);
  EXPECT_EQ(pyramid.band(3, 0, true), nullptr);  // the top level is top()
  EXPECT_EQ(pyramid.band(0, 4, true), nullptr);  // past the last band
}

TEST(MapPyramid, OutlinesTheHeadsPairsAndRefusesWhatNeedsEveryMap) {
  const AnalyzedTextView text = long_view();
  MapPyramid pyramid(source_of({4, 1, MatrixKind::Similarity, false, true}), {.top_cells = 64});
  // Not kept for a long text: the pyramid's outlines made again a tile's rows at a time, the mask whole.
  EXPECT_EQ(text.analysis.head(4, 1).pairs.tokens(), 0);
  const PairMask pairs = text.analysis.pair_mask(4, 1);
  ASSERT_GT(pairs.count(), 0);
  int64_t listed = 0;
  for (int64_t b = 0; b < 4; ++b)
    for (int64_t t = 0; t < 4; ++t)
      for (const auto& [r, c] : pyramid.outlined(b, t)) {
        EXPECT_TRUE(pairs.test(static_cast<int>(b * 128 + r), static_cast<int>(t * 128 + c)));
        ++listed;
      }
  EXPECT_EQ(listed, 2 * pairs.count());  // each pair in both halves of the map
  EXPECT_TRUE(MapPyramid(source_of({4, 1, MatrixKind::Similarity})).outlined(0, 0).empty());
  EXPECT_THROW(source_of({0, 0, MatrixKind::Rollout}), Error);
  EXPECT_THROW(MapPyramid(MapSource{}), Error);
}

// A long text's pairs from a lens are outlined from the head's mask, made from its whole map: the
// source makes none when built (a view's UI thread builds it), make_outlined makes it once (a view's
// job), and a source built once it is at hand outlines at once.
TEST(MapPyramid, ALensHeadsOutlinesAreMadeWhenAskedNotWhenShown) {
  const test::BothPaths& b = test::both_paths();
  AnalysisSettings settings;
  settings.pairs_from = PairInput::Attention;
  AnalysisRun run;
  const auto captures = std::make_shared<const TextCaptures>(b.long_text.captures);
  find_long_text_pairs_in_lens(
      run, {[captures] { return recomputed_attention_blocks(test::minilm_checkpoint().model(), *captures); }, captures},
      PairInput::Attention);
  TextAnalysis a = analyze_text(b.encoding, b.long_text.captures, settings, run);
  const TextAnalysis whole = analyze_text(b.encoding, b.maps.captures, settings);
  int made = 0;
  a.pair_map = [&made, map = a.pair_map](int64_t layer, int64_t head) {
    ++made;
    return map(layer, head);
  };
  const AnalyzedTextView text{b.encoding, b.long_text.captures, a};
  const MapOfHead m{3, 5, MatrixKind::Attention, false, true};
  ASSERT_GT(whole.head(3, 5).pair_count, 0);
  const MapSource later = head_map_source(text, m, ValueScale::Linear, false);
  EXPECT_EQ(made, 0);
  EXPECT_FALSE(later.outlined);
  ASSERT_TRUE(later.make_outlined);
  EXPECT_EQ(later.outlines_key, "pairs of 3,5");
  MapPyramid pyramid(later, {.top_cells = 64});
  EXPECT_TRUE(pyramid.outlines_pending());
  EXPECT_TRUE(pyramid.outlined(0, 0).empty());
  pyramid.set_outlined(later.make_outlined());
  EXPECT_EQ(made, 1);
  EXPECT_FALSE(pyramid.outlines_pending());
  const MapSource at_once = head_map_source(text, m, ValueScale::Linear, false);
  EXPECT_FALSE(at_once.make_outlined);
  ASSERT_TRUE(at_once.outlined);
  const PairMask& pairs = whole.head(3, 5).pairs;
  int64_t listed = 0;
  for (int64_t band = 0; band < 4; ++band)
    for (int64_t tile = 0; tile < 4; ++tile)
      for (const auto& [r, c] : pyramid.outlined(band, tile)) {
        const int i = static_cast<int>(band * 128 + r), j = static_cast<int>(tile * 128 + c);
        EXPECT_TRUE(pairs.test(i, j) && at_once.outlined(i, j)) << i << "," << j;
        ++listed;
      }
  EXPECT_EQ(listed, 2 * pairs.count());
  EXPECT_EQ(made, 1);
}

// A decoder's maps made again over the keys their rows may see (MapSource::held_rows): a tiny
// Gemma 3 at 230 tokens, past its window of 5 and past blocks of 64 rows. Every level of a local
// layer's head, a global layer's head and a layer's own map, of attention (the heads' sum) and of
// the norm-based lens, equals its whole captured map pooled, to the bit; so do single cells (after the diagonal, the
// zeros no block holds), the range and the clipped colour scale's percentile (the cells no block holds counted as
// zeros).
TEST(MapPyramid, ADecodersMapPoolsOverTheKeysItsRowsSee) {
  const test::DecoderBothPaths& both = test::decoder_both_paths();
  const TextCaptures& maps = both.maps.captures;
  const auto n = static_cast<int64_t>(both.encoding.size());
  const AnalyzedTextView view = test::decoder_long_view();
  for (const MapOfHead m : {MapOfHead{0, 1, MatrixKind::Attention, true}, MapOfHead{1, 3, MatrixKind::Attention},
                            MapOfHead{2, -1, MatrixKind::Attention}, MapOfHead{0, 2, MatrixKind::Norm, true},
                            MapOfHead{1, 0, MatrixKind::Norm}, MapOfHead{2, -1, MatrixKind::Norm}}) {
    SCOPED_TRACE(std::string(matrix_name(m.kind)) + ", layer " + std::to_string(m.layer) + " head " +
                 std::to_string(m.head));
    at::Tensor map;
    if (m.kind == MatrixKind::Norm)
      map = (m.head < 0 ? layer_norm_maps(maps, m.layer, 1)[0] : head_norm_maps(maps, m.layer)[m.head]).clone();
    else
      map = m.head < 0 ? maps.attention[m.layer].sum(0) : maps.attention[m.layer][m.head].clone();
    if (m.zero_diagonal) map.diagonal().zero_();
    map = map.contiguous();
    const std::vector<float> whole(map.data_ptr<float>(), map.data_ptr<float>() + n * n);
    const auto pooled_by = [&](int64_t k) {
      std::vector<float> out(static_cast<size_t>(((n + k - 1) / k) * ((n + k - 1) / k)));
      MagnitudePooler(n, k, out.data()).add_rows(whole.data(), n);
      return out;
    };
    MapSource source = head_map_source(view, m, ValueScale::Clipped, false);
    source.block_rows = 64;  // the top level made of blocks that do not hold every key, as a long text's are
    ASSERT_TRUE(source.held_rows);
    EXPECT_LT(source.held_rows(0, 64).columns.count, n);  // the first block holds its keys alone
    MapPyramid pyramid(source, {.top_cells = 64});
    ASSERT_EQ(pyramid.top_level(), 2);
    pyramid.make_top(std::chrono::hours(1));
    EXPECT_EQ(pyramid.top(), pooled_by(4));
    for (int level = 0; level < 2; ++level)
      for (int64_t b = 0; b < pyramid.bands(level); ++b)
        EXPECT_EQ(pyramid.band(level, b, true)->values,
                  band_of(pooled_by(int64_t{1} << level), pyramid.cells(level), b))
            << "level " << level << " band " << b;
    const auto [low, high] = std::minmax_element(whole.begin(), whole.end());
    EXPECT_EQ(pyramid.range(), std::make_pair(static_cast<double>(*low), static_cast<double>(*high)));
    const ColorScale want = color_scale_for(whole, ValueScale::Clipped, false);
    EXPECT_NEAR(pyramid.color_scale().hi, want.hi, 1e-3 * std::abs(want.hi));
    for (const auto& [i, j] : {std::pair<int64_t, int64_t>{0, 0}, {17, 200}, {150, 148}, {229, 2}, {229, 229}}) {
      MapPyramid fresh(source);  // no band kept: each cell's row made again
      EXPECT_EQ(fresh.value(i, j), whole[static_cast<size_t>(i * n + j)]) << i << "," << j;
    }
  }
}

// The tiled figures are the whole figures without their maps' values: the same panels (titles,
// labels, colormaps), and each tiled map's source gives the whole figure's values (to the bit,
// the block averages to float rounding, as they are summed in another order).
// Kept maps are drawn from tiles past the top level's side (a 2,048-token map drawn whole lost
// its single columns to the texture's sampling); their sources give the whole figure's values,
// every kind's, made once.
TEST(MapPyramid, KeptMapsPastTheTopLevelAreTiledFromTheWholeFiguresValues) {
  EXPECT_TRUE(draws_from_tiles(false, 100, {}));  // made again: always
  EXPECT_FALSE(draws_from_tiles(true, 1024, {}));
  EXPECT_TRUE(draws_from_tiles(true, 1025, {}));
  EXPECT_TRUE(draws_from_tiles(true, 512, {.top_cells = 256}));
  ASSERT_TRUE(maps_view().keeps_maps());
  for (const MapOfHead m :
       {MapOfHead{3, 2, MatrixKind::Attention, true}, MapOfHead{5, -1, MatrixKind::Similarity},
        MapOfHead{0, 7, MatrixKind::Cosine}, MapOfHead{1, 4, MatrixKind::Norm}, MapOfHead{2, -1, MatrixKind::Norm},
        MapOfHead{4, 0, MatrixKind::Rollout}, MapOfHead{4, -1, MatrixKind::Rollout, false, false, true}}) {
    SCOPED_TRACE(std::string(matrix_name(m.kind)) + " layer " + std::to_string(m.layer) + " head " +
                 std::to_string(m.head));
    std::vector<float> whole = head_matrix(maps_view(), m.layer, m.head, m.kind, m.rollout_of_norm);
    if (m.zero_diagonal)
      for (int64_t i = 0; i < 512; ++i) whole[static_cast<size_t>(i * 513)] = 0.0f;
    const MapSource source = head_map_source(maps_view(), m, ValueScale::Linear, false);
    EXPECT_EQ(whole_of(source), whole);
    const at::Tensor rows = source.rows(100, 7).contiguous();  // any block: its rows of the whole
    ASSERT_EQ(rows.sizes(), (at::IntArrayRef{7, 512}));
    EXPECT_TRUE(std::equal(whole.begin() + 100 * 512, whole.begin() + 107 * 512, rows.data_ptr<float>()));
  }
}

TEST(MapPyramid, TiledFiguresHoldTheWholeFiguresMapsAsSources) {
  FigureOptions o;
  o.layer = 3;
  o.head = 2;
  o.layers = {1, 4};
  const auto check = [](const Figure& whole, const TiledFigure& tiled) {
    ASSERT_EQ(tiled.figure.panels.size(), whole.panels.size());
    EXPECT_EQ(tiled.figure.title, whole.title);
    for (const TiledPanel& t : tiled.tiled) {
      const auto& w = std::get<HeatmapPanel>(whole.panels.at(t.panel));
      const auto& p = std::get<HeatmapPanel>(tiled.figure.panels.at(t.panel));
      SCOPED_TRACE(w.title);
      EXPECT_EQ(p.title, w.title);
      EXPECT_EQ(p.colorbar_label, w.colorbar_label);
      EXPECT_EQ(p.colormap, w.colormap);
      EXPECT_TRUE(p.values.empty());
      const std::vector<float> made = whole_of(t.source);
      ASSERT_EQ(made.size(), w.values.size());
      const bool blocks = w.title == "block averages of S";
      for (size_t k = 0; k < made.size(); ++k) {
        if (std::isnan(w.values[k])) {
          EXPECT_TRUE(std::isnan(made[k])) << k;
        } else if (blocks) {
          EXPECT_NEAR(made[k], w.values[k], 1e-5 * std::abs(w.values[k]) + 1e-7) << k;
        } else {
          ASSERT_EQ(made[k], w.values[k]) << k;
        }
      }
      MapPyramid pyramid(t.source);
      pyramid.make_top(std::chrono::hours(1));
      if (!blocks) EXPECT_EQ(pyramid.color_scale().hi, w.color_scale.hi);
    }
  };
  check(head_figure(maps_view(), o), tiled_head_figure(long_view(), o));
  const TiledFigure five = tiled_figure5(long_view(), o);
  EXPECT_EQ(five.tiled.size(), 4u);
  check(figure5(maps_view(), o), five);
  const TiledFigure twelve = tiled_figure12(long_view(), o);
  EXPECT_EQ(twelve.tiled.size(), 2u);
  check(figure12(maps_view(), o), twelve);
}

}  // namespace
}  // namespace attnscope
