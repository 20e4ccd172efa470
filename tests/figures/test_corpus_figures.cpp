// Corpus figures from an accumulator filled by hand: the right slices, rows as shares.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "base/error.h"
#include "figures/corpus_figures.h"

namespace attnscope {
namespace {

CorpusAccumulator filled() {
  CorpusAccumulator acc(2, 3, 4);  // L = 2, H = 3, N = 4
  acc.set_texts(5);
  acc.distance_histogram = at::arange(2 * 3 * 4, at::kLong).reshape({2, 3, 4});
  for (auto& s : acc.stats) s.histogram.index_put_({1, 2, 10}, 4);
  acc.distinct_anchors.index_put_({1, 3}, 5);
  return acc;
}

TEST(CorpusFigures, Figure7RowsAreEachHeadsDistanceShares) {
  const CorpusAccumulator acc = filled();
  FigureOptions o;
  o.layer = 1;
  const Figure f = corpus_figure("7", acc, o);
  const auto& p = std::get<HeatmapPanel>(f.panels[0]);
  ASSERT_EQ(p.rows, 3);
  ASSERT_EQ(p.cols, 4);
  // layer 1, head 0: counts 12 13 14 15 -> shares over 54
  EXPECT_NEAR(p.value(0, 1), 13.0 / 54.0, 1e-6);
  double row = 0;
  for (int d = 0; d < 4; ++d) row += p.value(2, d);
  EXPECT_NEAR(row, 1.0, 1e-6);
}

TEST(CorpusFigures, ShareFiguresPutTheTextsInTheirBin) {
  const CorpusAccumulator acc = filled();
  FigureOptions o;  // layer -1: the last
  const Figure f = corpus_figure("6", acc, o);
  ASSERT_EQ(f.panels.size(), 2u);
  const auto& p = std::get<HeatmapPanel>(f.panels[0]);
  EXPECT_EQ(p.cols, CorpusAccumulator::kBins);
  EXPECT_FLOAT_EQ(p.value(2, 10), 1.0f);
  EXPECT_FLOAT_EQ(p.value(0, 10), 0.0f);
  const Figure f11 = corpus_figure("11", acc, o);
  const auto& distinct = std::get<HeatmapPanel>(f11.panels[1]);
  EXPECT_EQ(distinct.rows, 2);
  EXPECT_EQ(distinct.cols, 4);  // 0 .. H distinct anchors
  EXPECT_FLOAT_EQ(distinct.value(1, 3), 1.0f);
}

TEST(CorpusFigures, Figure13SharesPerChosenLayer) {
  const CorpusAccumulator acc = filled();
  FigureOptions o;
  o.layers = {0};
  const Figure f = corpus_figure("13", acc, o);
  ASSERT_EQ(f.panels.size(), 1u);
  const auto& bars = std::get<BarPanel>(f.panels[0]);
  // layer 0 pooled over heads: (0+4+8, 1+5+9, 2+6+10, 3+7+11) = 12 15 18 21 of 66
  EXPECT_NEAR(bars.series[0].values[3], 21.0 / 66.0, 1e-12);
}

TEST(CorpusFigures, MapsAndBadRequests) {
  const CorpusAccumulator acc = filled();
  EXPECT_EQ(corpus_figure("2", acc, {}).panels.size(), 2u);
  EXPECT_EQ(corpus_figure("3", acc, {}).panels.size(), 3u);
  EXPECT_EQ(corpus_figure("10", acc, {}).panels.size(), 2u);
  EXPECT_THROW(corpus_figure("5", acc, {}), Error);
  FigureOptions o;
  o.layer = 2;
  EXPECT_THROW(corpus_figure("2", acc, o), Error);
  CorpusAccumulator empty(2, 3, 4);
  EXPECT_THROW(corpus_figure("2", empty, {}), Error);
}

}  // namespace
}  // namespace attnscope
