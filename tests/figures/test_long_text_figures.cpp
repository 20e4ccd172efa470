// The pictures of a long text (its maps not kept: the forward keeps queries and keys, the
// analysis head outputs) equal the pictures of the same text with every map kept, on the real
// MiniLM at 512 tokens: the overview's thumbnails made and pooled a block of rows at a time (blocks
// that do not line up with the thumbnails' cells), and a head's or a layer's whole matrix made
// again, for attention, S, cosine, the norm-based lens and rollout, to the bit; and a tiny
// decoder's thumbnails made from blocks over the keys their rows may see.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "figures/overview_thumbnails.h"
#include "figures/text_figures.h"
#include "figures/tensor_values.h"
#include "figures/text_matrices.h"
#include "model/attention_rows.h"
#include "model/reproducible_products.h"
#include "support/long_text_views.h"
#include "support/minilm.h"

namespace attnscope {
namespace {

using test::both_paths;
using test::BothPaths;
using test::long_view;
using test::maps_view;

TEST(LongTextFigures, ThumbnailsPooledFromBlocksOfRowsEqualThoseOfTheWholeMaps) {
  ASSERT_FALSE(long_view().keeps_maps());
  for (const MatrixKind kind : {MatrixKind::Attention, MatrixKind::Similarity, MatrixKind::Cosine, MatrixKind::Norm}) {
    FigureOptions o;
    o.matrix = kind;
    o.zero_diagonal = kind == MatrixKind::Attention;
    // 37 rows a block: cells of 8 rows are cut across blocks, and the last block takes a rest.
    const auto streamed = grid_thumbnails(long_view(), o, kGridThumbnailCells, {.block_rows = 37});
    const auto whole = grid_thumbnails(maps_view(), o, kGridThumbnailCells);
    ASSERT_EQ(streamed.size(), whole.size());
    for (size_t p = 0; p < whole.size(); ++p) {
      ASSERT_EQ(streamed[p].rows, 64);
      EXPECT_EQ(streamed[p].values, whole[p].values) << matrix_name(kind) << " panel " << whole[p].title;
      EXPECT_EQ(streamed[p].color_scale.lo, whole[p].color_scale.lo);
      EXPECT_EQ(streamed[p].color_scale.hi, whole[p].color_scale.hi);
      EXPECT_EQ(streamed[p].title, whole[p].title);
    }
  }
}

// The overview's rollout of a long text: each layer's R_l made from the one before and the layer's
// maps made again, 37 rows a block, pooled as it is made: the thumbnails of the whole maps'
// rollout, to the bit, every layer reported as it is pooled.
TEST(LongTextFigures, RolloutThumbnailsMadeLayerByLayerEqualThoseOfTheWholeMaps) {
  for (const bool of_norm : {false, true}) {
    FigureOptions o;
    o.matrix = MatrixKind::Rollout;
    o.rollout_of_norm = of_norm;
    std::vector<double> reported;
    const LongTextThumbnails long_text{.block_rows = 37, .progress = [&](std::string_view stage, double f) {
                                         EXPECT_EQ(stage, "overview");
                                         reported.push_back(f);
                                       }};
    const auto streamed = grid_thumbnails(long_view(), o, kGridThumbnailCells, long_text);
    const auto whole = grid_thumbnails(maps_view(), o, kGridThumbnailCells);
    ASSERT_EQ(streamed.size(), whole.size());
    for (size_t p = 0; p < whole.size(); ++p) {
      EXPECT_EQ(streamed[p].values, whole[p].values) << (of_norm ? "norm " : "") << "panel " << whole[p].title;
      EXPECT_EQ(streamed[p].color_scale.hi, whole[p].color_scale.hi);
      EXPECT_EQ(streamed[p].title, whole[p].title);
    }
    ASSERT_EQ(reported.size(), size_t{6});  // MiniLM's layers
    EXPECT_DOUBLE_EQ(reported.front(), 1.0 / 6);
    EXPECT_DOUBLE_EQ(reported.back(), 1.0);
  }
}

// A long text's grid figure is its overview's thumbnails at up to kLongGridCells a side: at 512
// tokens the panels of every map kept, value for value, rollout too (made once, not per panel).
TEST(LongTextFigures, TheGridFigureOfALongTextIsItsThumbnailsAtFullSize) {
  for (const MatrixKind kind : {MatrixKind::Attention, MatrixKind::Rollout}) {
    FigureOptions o;
    o.matrix = kind;
    const Figure streamed = grid_figure(long_view(), o), whole = grid_figure(maps_view(), o);
    ASSERT_EQ(streamed.panels.size(), whole.panels.size());
    ASSERT_EQ(streamed.panels.size(), size_t{6 * 13});
    for (size_t p = 0; p < whole.panels.size(); ++p) {
      const auto& a = std::get<HeatmapPanel>(streamed.panels[p]);
      const auto& b = std::get<HeatmapPanel>(whole.panels[p]);
      ASSERT_EQ(a.rows, 512);
      EXPECT_EQ(a.values, b.values) << matrix_name(kind) << " panel " << b.title;
      EXPECT_EQ(a.title, b.title);
      EXPECT_EQ(a.color_scale.hi, b.color_scale.hi);
    }
  }
}

// The grid figure of a long text, made beside the explorer's window for its export, reports its
// layers as they are pooled and stops between blocks of rows when asked.
TEST(LongTextFigures, TheGridFigureOfALongTextReportsItsLayersAndStops) {
  FigureOptions o;
  o.matrix = MatrixKind::Similarity;
  std::vector<double> reported;
  LongTextThumbnails long_text;
  long_text.progress = [&](std::string_view, double f) { reported.push_back(f); };
  EXPECT_EQ(grid_figure(long_view(), o, long_text).panels.size(), size_t{6 * 13});
  ASSERT_EQ(reported.size(), size_t{6});
  EXPECT_DOUBLE_EQ(reported.back(), 1.0);
  long_text.keep_going = [] { return false; };
  EXPECT_THROW(grid_figure(long_view(), o, long_text), Cancelled);
}

// Asked to stop, a long text's overview stops between blocks of rows (rollout or not); a view
// without a model to make its maps again is refused in one line.
TEST(LongTextFigures, ALongTextsOverviewStopsWhenAskedAndSaysWhatItLacks) {
  for (const MatrixKind kind : {MatrixKind::Rollout, MatrixKind::Similarity}) {
    FigureOptions o;
    o.matrix = kind;
    int asked = 0;
    const KeepGoing three_blocks = [&] { return ++asked <= 3; };
    EXPECT_THROW(grid_thumbnails(long_view(), o, kGridThumbnailCells, {.block_rows = 64, .keep_going = three_blocks}),
                 Cancelled)
        << matrix_name(kind);
    EXPECT_EQ(asked, 4) << matrix_name(kind);
  }
  const BothPaths& b = both_paths();
  FigureOptions rollout;
  rollout.matrix = MatrixKind::Rollout;
  EXPECT_THROW(grid_thumbnails({b.encoding, b.long_text.captures, b.long_text.analysis}, rollout, kGridThumbnailCells),
               Error);
}

// The forward's own blocks of maps pooled as it makes them (29 rows a block, across cells of 8):
// the same attention thumbnails again, with no model at hand to make any map afterwards.
TEST(LongTextFigures, ThumbnailsPooledDuringTheForwardEqualThoseOfTheWholeMaps) {
  const BothPaths& b = both_paths();
  const ModelConfig& config = test::minilm_checkpoint().model().config();
  OverviewPooler pooler(config.num_layers, config.num_heads, kGridThumbnailCells);
  test::minilm_checkpoint().model().forward(
      {b.encoding.ids()}, {.kept = KeptAttention::QueriesAndKeys, .block_rows = 29, .attention_blocks = pooler.sink()});
  ASSERT_TRUE(pooler.complete());
  const AnalyzedTextView without_model{b.encoding, b.long_text.captures, b.long_text.analysis};
  const auto pooled = grid_thumbnails(without_model, {}, kGridThumbnailCells, {.pooled = &pooler});
  const auto whole = grid_thumbnails(maps_view(), {}, kGridThumbnailCells);
  ASSERT_EQ(pooled.size(), whole.size());
  for (size_t p = 0; p < whole.size(); ++p) {
    EXPECT_EQ(pooled[p].values, whole[p].values) << "panel " << whole[p].title;
    EXPECT_EQ(pooled[p].color_scale.hi, whole[p].color_scale.hi);
    EXPECT_EQ(pooled[p].title, whole[p].title);
  }
  // What it did not pool (the diagonal zeroed, another matrix, other cells) is made again.
  FigureOptions zeroed;
  zeroed.zero_diagonal = true;
  EXPECT_THROW(grid_thumbnails(without_model, zeroed, kGridThumbnailCells, {.pooled = &pooler}), Error);
  EXPECT_EQ(grid_thumbnails(long_view(), zeroed, kGridThumbnailCells, {.pooled = &pooler})[5].values,
            grid_thumbnails(maps_view(), zeroed, kGridThumbnailCells)[5].values);
  EXPECT_THROW(grid_thumbnails(without_model, {}, 32, {.pooled = &pooler}), Error);
}

// Rows [first, first + rows) of maps over every key.
AttentionBlock whole_block(const at::Tensor& maps, int64_t first) {
  return {maps, {first, maps.size(2)}, {0, maps.size(3)}, maps.size(3)};
}

TEST(LongTextFigures, ThePoolerRefusesBlocksOutOfOrder) {
  OverviewPooler pooler(2, 3, 8);
  const at::Tensor block = at::rand({1, 3, 4, 20});
  EXPECT_FALSE(pooler.complete());
  pooler.add(0, whole_block(block, 0));
  EXPECT_THROW(pooler.add(0, whole_block(block, 8)), Error);                    // a gap
  EXPECT_THROW(pooler.add(1, whole_block(block, 4)), Error);                    // a layer not begun at its first row
  EXPECT_THROW(pooler.add(0, whole_block(at::rand({2, 3, 4, 20}), 4)), Error);  // two texts
  EXPECT_THROW(pooler.add(0, whole_block(at::rand({1, 3, 4, 21}), 4)), Error);  // another length
  EXPECT_THROW(pooler.add(0, {block.narrow(3, 0, 8), {4, 4}, {14, 8}, 20}), Error);  // keys past the last
  for (int64_t first = 4; first < 20; first += 4) pooler.add(0, whole_block(block, first));
  EXPECT_FALSE(pooler.complete());
  for (int64_t first = 0; first < 20; first += 4) pooler.add(1, whole_block(block, first));
  EXPECT_TRUE(pooler.complete());
  EXPECT_EQ(pooler.side(), 7);           // 20 tokens in cells of 3
  pooler.add(0, whole_block(block, 0));  // a forward begun again: pooled again from the start
  EXPECT_FALSE(pooler.complete());
}

// Rows [from, n) of causal maps [1, H, n, n] in blocks of `step` rows (from a multiple of it), each
// over the keys up to its last row, as a decoder's long text's forward hands them out; the last
// block at least 4 rows (row_blocks); those whose first row is in `resumable` marked so.
void add_causal_blocks(OverviewPooler& pooler, const at::Tensor& maps, int64_t from, int64_t step,
                       const std::vector<int64_t>& resumable = {}) {
  const int64_t n = maps.size(2);
  for (int64_t layer = 0; layer < pooler.layers(); ++layer)
    for (const auto& [first, count] : row_blocks(n, step)) {
      if (first < from) continue;
      const KeySpan keys{0, first + count};
      AttentionBlock block{maps.narrow(2, first, count).narrow(3, 0, keys.count), {first, count}, keys, n};
      block.resumable = std::find(resumable.begin(), resumable.end(), first) != resumable.end();
      pooler.add(layer, block);
    }
}

// A decoder's text typed on at its end, its blocks from the last run's last block on alone: pooled
// on from where that run's pooler stood as its last blocks came, every panel equals a pooler's fed
// every block of the new text, whatever the cells' size (none, 2, 3 tokens) and whether the text
// grew or shrank; cells of another size, or a row not kept, do not resume.
TEST(LongTextFigures, AnOverviewPooledOnFromTheRunBeforeEqualsOnePooledWhole) {
  at::manual_seed(3);
  const at::Tensor longest = at::rand({1, 2, 60, 60}).tril();  // row i holds no key after i
  for (const int cells : {64, 30, 20}) {
    for (const auto& [before, after] : {std::pair<int64_t, int64_t>{55, 58}, {57, 60}, {58, 56}}) {
      SCOPED_TRACE(std::to_string(cells) + " cells, " + std::to_string(before) + " then " + std::to_string(after));
      const at::Tensor first_maps = longest.narrow(2, 0, before).narrow(3, 0, before);
      const at::Tensor maps = longest.narrow(2, 0, after).narrow(3, 0, after);
      const int64_t last = row_blocks(before, 8).back().first, last_after = row_blocks(after, 8).back().first;
      OverviewPooler earlier(3, 2, cells);
      add_causal_blocks(earlier, first_maps, 0, 8, {16, last});
      const auto point = earlier.resume_point();
      ASSERT_TRUE(point);
      ASSERT_EQ(point->opens.size(), 2u);
      OverviewPooler resumed(3, 2, cells, point), whole(3, 2, cells);
      ASSERT_TRUE(point->resumes(after, last, cells));
      add_causal_blocks(resumed, maps, last, 8, {16, last_after});
      add_causal_blocks(whole, maps, 0, 8, {16, last_after});
      ASSERT_TRUE(resumed.complete() && whole.complete());
      for (size_t p = 0; p < 9; ++p) EXPECT_EQ(resumed.values(p), whole.values(p)) << "panel " << p;
      const auto resumed_point = resumed.resume_point(), whole_point = whole.resume_point();
      ASSERT_EQ(resumed_point->opens.size(), whole_point->opens.size());
      for (size_t o = 0; o < whole_point->opens.size(); ++o) {
        EXPECT_EQ(resumed_point->opens[o].row, whole_point->opens[o].row);
        for (size_t p = 0; p < 9; ++p)
          EXPECT_EQ(resumed_point->opens[o].panels[p].high, whole_point->opens[o].panels[p].high);
      }
      EXPECT_EQ(whole.resume_point({16})->opens.size(), 1u) << "the rows the forward kept alone";
    }
  }
  OverviewPooler earlier(1, 2, 20);
  add_causal_blocks(earlier, longest.narrow(2, 0, 57).narrow(3, 0, 57), 0, 8, {48});
  const auto point = earlier.resume_point();
  EXPECT_FALSE(point->resumes(62, 48, 20)) << "cells of 4 tokens, not 3";
  EXPECT_FALSE(point->resumes(58, 40, 20)) << "a row whose blocks were not kept";
  OverviewPooler none(1, 2, 20);
  EXPECT_THROW(add_causal_blocks(none, longest, 48, 8), Error) << "nothing to resume from";
  EXPECT_FALSE(none.resume_point());
  OverviewPooler other_row(1, 2, 20, point);
  EXPECT_THROW(add_causal_blocks(other_row, longest, 40, 8), Error);
}

// A decoder's text edited in its middle, its blocks from the last row kept before the edit on
// alone: pooled on from what the run before's pooler held there, every panel equals a pooler's fed
// every block of the edited text, whatever the cells' size (a row in the middle of a block row of 3
// among them) and whether the text grew or shrank.
TEST(LongTextFigures, AnOverviewEditedInItsMiddlePooledOnFromARowBeforeEqualsOnePooledWhole) {
  at::manual_seed(4);
  const at::Tensor longest = at::rand({1, 2, 60, 60}).tril();
  for (const int cells : {64, 30, 20}) {
    for (const auto& [before, after] : {std::pair<int64_t, int64_t>{56, 56}, {52, 59}, {58, 50}}) {
      SCOPED_TRACE(std::to_string(cells) + " cells, " + std::to_string(before) + " then " + std::to_string(after));
      const at::Tensor first_maps = longest.narrow(2, 0, before).narrow(3, 0, before);
      at::Tensor maps = longest.narrow(2, 0, after).narrow(3, 0, after).clone();
      maps.narrow(2, 21, after - 21).copy_(at::rand({1, 2, after - 21, after}).tril(21));  // token 21 edited
      OverviewPooler earlier(2, 2, cells);
      add_causal_blocks(earlier, first_maps, 0, 8, {8, 16, 32});
      const auto point = earlier.resume_point();
      ASSERT_TRUE(point->resumes(after, 16, cells));
      OverviewPooler resumed(2, 2, cells, point), whole(2, 2, cells);
      add_causal_blocks(resumed, maps, 16, 8, {8, 16, 32});
      add_causal_blocks(whole, maps, 0, 8);
      ASSERT_TRUE(resumed.complete() && whole.complete());
      for (size_t p = 0; p < 6; ++p) EXPECT_EQ(resumed.values(p), whole.values(p)) << "panel " << p;
      const auto again = resumed.resume_point();
      ASSERT_EQ(again->opens.size(), 3u) << "the row before taken, those from 16 on pooled again";
      EXPECT_EQ(again->opens[0].panels[0].high, point->opens[0].panels[0].high);
    }
  }
}

// A block holding some keys alone pools as the same rows with zeros at every other key, whatever
// the cells' size (1: no pooling); some of the values negative, as a difference of maps has them.
TEST(LongTextFigures, ABlockOfSomeKeysPoolsAsItsRowsOverEveryKey) {
  for (const int cells : {30, 8}) {
    OverviewPooler narrow(1, 2, cells), whole(1, 2, cells);
    at::manual_seed(cells);
    for (const auto& [first, keys] : {std::pair<int64_t, KeySpan>{0, {0, 7}},
                                      {5, {3, 12}},
                                      {10, {9, 21}},
                                      {15, {27, 3}},
                                      {20, {0, 30}},
                                      {25, {20, 10}}}) {
      const at::Tensor maps = at::randn({1, 2, 5, keys.count});
      const AttentionBlock block{maps, {first, 5}, keys, 30};
      narrow.add(0, block);
      whole.add(0, whole_block(block.whole(), first));
    }
    ASSERT_TRUE(narrow.complete() && whole.complete());
    for (size_t p = 0; p < 3; ++p) EXPECT_EQ(narrow.values(p), whole.values(p)) << cells << " cells, panel " << p;
  }
}

// A decoder's rows hold no key after their own, a sliding-window layer's a band: its thumbnails
// of attention and of the norm-based maps (the heads' and the layer's own), pooled from such blocks
// (of 64 rows, the last shorter), are those of its maps kept, to the bit, the diagonal zeroed or not.
TEST(LongTextFigures, ADecodersThumbnailsPoolBlocksOverTheKeysTheirRowsSee) {
  for (const MatrixKind kind : {MatrixKind::Attention, MatrixKind::Norm})
    for (const bool zeroed : {false, true}) {
      FigureOptions o;
      o.matrix = kind;
      o.zero_diagonal = zeroed;
      const auto made = grid_thumbnails(test::decoder_long_view(), o, 32, {.block_rows = 64});
      const auto kept = grid_thumbnails(test::decoder_maps_view(), o, 32);
      ASSERT_EQ(made.size(), kept.size());
      for (size_t p = 0; p < made.size(); ++p)
        EXPECT_EQ(made[p].values, kept[p].values)
            << matrix_name(kind) << ", panel " << p << (zeroed ? ", diagonal zeroed" : "");
    }
}

TEST(LongTextFigures, AHeadsOrALayersWholeMatrixIsMadeAgainToTheBit) {
  for (const MatrixKind kind : {MatrixKind::Attention, MatrixKind::Similarity, MatrixKind::Cosine, MatrixKind::Norm})
    for (const int head : {3, -1}) {
      const auto made = head_matrix(long_view(), 5, head, kind), kept = head_matrix(maps_view(), 5, head, kind);
      ASSERT_EQ(made.size(), size_t{512 * 512});
      EXPECT_EQ(made, kept) << matrix_name(kind) << " head " << head;
    }
  const at::Tensor rows = head_rows(long_view(), 2, 7, MatrixKind::Attention, {100, 2});  // fewer than 4 rows
  EXPECT_TRUE(at::equal(rows, both_paths().maps.captures.attention[2][7].narrow(0, 100, 2).unsqueeze(0)));
}

// A long text keeps no S: its pairs' values come from blocks of S's rows made again, equal to the
// bit to those read from the whole S; a limit lists the first pairs only.
TEST(LongTextFigures, PairsOfALongTextAreListedFromRowsOfSAndStopAtALimit) {
  const BothPaths& b = both_paths();
  ASSERT_FALSE(b.long_text.analysis.similarity.similarity.defined());
  for (const auto& [layer, head] : {std::pair{4, 1}, {0, 0}, {5, 11}}) {
    const auto streamed = head_pairs(b.long_text.analysis, layer, head);
    const auto whole = head_pairs(b.maps.analysis, layer, head);
    ASSERT_EQ(streamed.size(), whole.size());
    for (size_t k = 0; k < whole.size(); ++k) {
      ASSERT_EQ(streamed[k].i, whole[k].i);
      ASSERT_EQ(streamed[k].j, whole[k].j);
      ASSERT_EQ(streamed[k].value, whole[k].value) << k;
    }
    if (whole.size() < 3) continue;
    const auto first = head_pairs(b.long_text.analysis, layer, head, 2);
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(first[1].j, whole[1].j);
    EXPECT_EQ(first[1].value, whole[1].value);
  }
}

// Rollout after a layer, of the mean attention or of the norm-based layer maps, made a block of rows
// at a time from the maps made again (two n x n matrices held): the rollout of the whole maps.
TEST(LongTextFigures, TheRolloutIsMadeFromBlocksOfRowsToTheBit) {
  for (const bool of_norm : {false, true})
    for (const int layer : {0, 5}) {
      const auto made = head_matrix(long_view(), layer, 2, MatrixKind::Rollout, of_norm),
                 kept = head_matrix(maps_view(), layer, 2, MatrixKind::Rollout, of_norm);
      ASSERT_EQ(made.size(), size_t{512 * 512});
      EXPECT_EQ(made, kept) << "layer " << layer << (of_norm ? " of the norm-based maps" : "");
    }
}

// A long text's rollout made beforehand (as the explorer's Head view has it made off the UI thread):
// the whole maps' rollout to the bit, its layers reported as they are made; kept in the text's
// view, the Head view's tiles read it for its layer and lens, and refuse another in one line.
TEST(LongTextFigures, ARolloutMadeBeforehandIsWhatTheHeadViewsTilesShow) {
  for (const bool of_norm : {false, true}) {
    std::vector<double> reported;
    RolloutControl control;
    control.progress = [&](std::string_view stage, double f) {
      EXPECT_EQ(stage, "rollout");
      reported.push_back(f);
    };
    const KeptRollout kept = long_text_rollout(long_view(), 3, of_norm, control);
    EXPECT_EQ(tensor_values(kept.matrix), head_matrix(maps_view(), 3, 0, MatrixKind::Rollout, of_norm));
    EXPECT_EQ(reported, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
    FigureOptions o;
    o.matrix = MatrixKind::Rollout;
    o.layer = 3;
    o.rollout_of_norm = of_norm;
    EXPECT_THROW(tiled_head_figure(long_view(), o), Error);  // not made yet
    AnalyzedTextView view = long_view();
    view.rollouts = {kept};
    const TiledFigure tiled = tiled_head_figure(view, o);
    ASSERT_EQ(tiled.tiled.size(), size_t{1});
    EXPECT_TRUE(at::equal(tiled.tiled[0].source.rows(100, 37), kept.matrix.narrow(0, 100, 37)));
    EXPECT_EQ(tiled.figure.title, head_figure(maps_view(), o).title);
    EXPECT_EQ(head_matrix(view, 3, -1, MatrixKind::Rollout, of_norm), tensor_values(kept.matrix));
    o.rollout_of_norm = !of_norm;
    EXPECT_THROW(tiled_head_figure(view, o), Error);  // the other lens
    o.rollout_of_norm = of_norm;
    o.layer = 2;
    EXPECT_THROW(tiled_head_figure(view, o), Error);  // another layer
  }
  RolloutControl stop;
  stop.keep_going = [] { return false; };
  EXPECT_THROW(long_text_rollout(long_view(), 1, false, stop), Cancelled);
}

// The rollouts after several layers, made in one pass up to the last (as the Layers view has them
// made): each the whole maps' rollout to the bit, the pass reported layer by layer; the Layers
// figure of a long text draws them, made by itself or beforehand, as it draws the kept maps'.
TEST(LongTextFigures, RolloutsAfterSeveralLayersAreMadeInOnePass) {
  std::vector<double> reported;
  RolloutControl control;
  control.progress = [&](std::string_view, double f) { reported.push_back(f); };
  const std::vector<KeptRollout> kept = long_text_rollouts(long_view(), {1, 2, 4}, true, control);
  ASSERT_EQ(kept.size(), size_t{3});
  for (size_t k = 0; k < kept.size(); ++k) {
    EXPECT_EQ(kept[k].layer, std::vector<int>({1, 2, 4})[k]);
    EXPECT_TRUE(kept[k].of_norm);
    EXPECT_EQ(tensor_values(kept[k].matrix), head_matrix(maps_view(), kept[k].layer, 0, MatrixKind::Rollout, true))
        << "layer " << kept[k].layer;
  }
  EXPECT_EQ(reported, (std::vector<double>{0.2, 0.4, 0.6, 0.8, 1.0}));
  for (const std::vector<int>& bad : std::vector<std::vector<int>>{{}, {2, 1}, {1, 1}, {-1}, {6}})
    EXPECT_THROW(long_text_rollouts(long_view(), bad, false), Error);

  FigureOptions o;
  o.layer_matrix = MatrixKind::Rollout;
  o.rollout_of_norm = true;
  o.layers = {4, 1, 2};
  EXPECT_EQ(figure12_rollout_layers(long_view().analysis, o), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(figure12_rollout_layers(long_view().analysis, {}), std::vector<int>{});  // the paper's summed S
  o.matrix = MatrixKind::Rollout;
  EXPECT_EQ(head_figure_rollout_layers(long_view().analysis, o), std::vector<int>{5});  // layer -1: the last
  const Figure made_here = figure12(long_view(), o), whole = figure12(maps_view(), o);
  ASSERT_EQ(made_here.panels.size(), size_t{3});
  for (size_t p = 0; p < whole.panels.size(); ++p)
    EXPECT_EQ(std::get<HeatmapPanel>(made_here.panels[p]).values, std::get<HeatmapPanel>(whole.panels[p]).values);
  EXPECT_THROW(tiled_figure12(long_view(), o), Error);  // tiles draw rollouts made beforehand only
  AnalyzedTextView view = long_view();
  view.rollouts = kept;
  const TiledFigure tiled = tiled_figure12(view, o);
  ASSERT_EQ(tiled.tiled.size(), size_t{3});
  EXPECT_TRUE(at::equal(tiled.tiled[2].source.rows(300, 50), kept[1].matrix.narrow(0, 300, 50)));  // layer 2
  EXPECT_EQ(tiled.figure.title, whole.title);
}

// Rollouts kept beside the pass's two matrices are refused past kMostRolloutBytes, saying how many
// layers fit, before any is made.
TEST(LongTextFigures, TooManyRolloutsOfALongTextAreRefusedSayingHowManyFit) {
  const BothPaths& b = both_paths();
  TextAnalysis analysis = b.long_text.analysis;
  analysis.length = 8192;  // 268 MB a rollout: two worked in, and at most 12 kept besides them
  analysis.num_layers = 22;
  const AnalyzedTextView view{b.encoding, b.long_text.captures, analysis};
  std::vector<int> layers(22);
  std::iota(layers.begin(), layers.end(), 0);
  try {
    long_text_rollouts(view, layers, false);
    ADD_FAILURE() << "22 rollouts of 8,192 tokens were not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 13 layers"), std::string::npos) << e.what();
  }
}

TEST(LongTextFigures, WhatNeedsEveryMapIsRefusedInOneLine) {
  const BothPaths& b = both_paths();
  EXPECT_THROW(head_matrix({b.encoding, b.long_text.captures, b.long_text.analysis}, 0, 0, MatrixKind::Rollout), Error);
  const AnalyzedTextView without_model{b.encoding, b.long_text.captures, b.long_text.analysis};
  EXPECT_THROW(head_matrix(without_model, 0, 0, MatrixKind::Attention), Error);
  TextCaptures without_lenses = b.long_text.captures;  // the norm-based lens needs the value vectors
  without_lenses.value_norms = without_lenses.value_gram = at::Tensor();
  const AnalyzedTextView no_norms =
      analyzed_text_view(b.encoding, without_lenses, b.long_text.analysis, &test::minilm_checkpoint().model());
  EXPECT_THROW(head_matrix(no_norms, 0, 0, MatrixKind::Norm), Error);
  EXPECT_THROW(head_matrix(no_norms, 0, -1, MatrixKind::Norm), Error);
  EXPECT_EQ(head_matrix(without_model, 0, 0, MatrixKind::Similarity),
            head_matrix(maps_view(), 0, 0, MatrixKind::Similarity));
}

}  // namespace
}  // namespace attnscope
