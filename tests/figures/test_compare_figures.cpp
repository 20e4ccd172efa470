// The comparison figures: of two text runs (A beside B, the difference, the what-changed grid,
// both runs' bars) on MiniLM, and of two corpus runs filled by hand (shares side by side, maps
// per text and their difference).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>

#include "base/error.h"
#include "figures/compare_corpus_figures.h"
#include "figures/compare_figures.h"
#include "support/minilm.h"

namespace attnscope {
namespace {

struct Analysed {
  std::string text;
  TextRun run;
  TextAnalysis analysis;
  AnalyzedTextView view() const { return {run.encoding, run.captures, analysis}; }
  ComparedRun compared() const { return {run.encoding, text, run.captures, analysis}; }
};

Analysed analyse(const std::string& text) {
  Analysed a{text, test::minilm_checkpoint().run(text, 128), {}};
  a.analysis = analyze_text(a.run.encoding, a.run.captures, AnalysisSettings{});
  return a;
}

TEST(CompareFigures, ARunBesideItselfDiffersNowhere) {
  const Analysed a = analyse("The cat sat on the mat. The dog sat too.");
  const TextComparison c = compare_texts(a.compared(), a.compared());
  FigureOptions o;
  o.layer = 2, o.head = 4;
  const Figure side = compare_head_figure({a.view(), a.view(), c}, o);
  ASSERT_EQ(side.panels.size(), 3u);
  const auto& diff = std::get<HeatmapPanel>(side.panels[2]);
  EXPECT_EQ(diff.title, "B - A");
  for (float v : diff.values) EXPECT_EQ(v, 0.0f);
  const Figure changed = what_changed_figure({a.view(), a.view(), c}, o);
  const auto& grid = std::get<HeatmapPanel>(changed.panels[0]);
  EXPECT_EQ(grid.rows, 6);
  EXPECT_EQ(grid.cols, 12);
  for (float v : grid.values) EXPECT_NEAR(v, 0.0f, 1e-6);
  EXPECT_EQ(grid.outlined, (std::vector<std::pair<int, int>>{{2, 4}}));
}

TEST(CompareFigures, TwoTextsHaveNoDifferenceMapAndBarsForBoth) {
  const Analysed a = analyse("The cat sat on the mat."), b = analyse("The cat sat on the old mat.");
  const TextComparison c = compare_texts(a.compared(), b.compared());
  FigureOptions o;
  o.layer = 1;
  EXPECT_EQ(compare_head_figure({a.view(), b.view(), c}, o).panels.size(), 2u);
  EXPECT_EQ(what_changed_figure({a.view(), b.view(), c}, o).panels.size(), 1u);  // no attention cosine: other tokens
  const Figure stats = compare_stats_figure({a.view(), b.view(), c, "text A", "text B"}, o);
  const auto& repeats = std::get<BarPanel>(stats.panels[0]);
  ASSERT_EQ(repeats.series.size(), 2u);
  EXPECT_EQ(repeats.series[1].name, "repeat (text B)");
  EXPECT_THROW(compare_figure("10", {a.view(), b.view(), c}, o), Error);
  EXPECT_EQ(compare_figure("12", {a.view(), b.view(), c}, o).panels.size(), 12u);  // A's six layers beside B's
  o.layer = 6;
  EXPECT_THROW(compare_head_figure({a.view(), b.view(), c}, o), Error);
}

CorpusAccumulator corpus(int64_t texts, int64_t bin) {
  CorpusAccumulator acc(2, 3, 4);
  acc.set_texts(texts);
  acc.stats[CorpusAccumulator::RepeatShare].histogram.index_put_({1, 0, bin}, texts);
  acc.distance_histogram.index_put_({1, 0, 2}, 6);
  acc.distance_histogram.index_put_({1, 0, 3}, 2);
  return acc;
}

TEST(CompareCorpusFigures, DistributionsAreSharesSideBySide) {
  const CorpusAccumulator a = corpus(4, 10), b = corpus(8, 30);
  FigureOptions o;
  o.layer = 1, o.head = 0;
  const Figure six = compare_corpus_figure("6", {a, b}, o);
  const auto& repeat = std::get<BarPanel>(six.panels[0]);
  ASSERT_EQ(repeat.series.size(), 2u);
  EXPECT_EQ(repeat.series[0].values[10], 1.0);  // every text of A in bin 10, of B in bin 30
  EXPECT_EQ(repeat.series[1].values[30], 1.0);
  EXPECT_EQ(repeat.series[1].name, "B (8 texts)");
  const Figure seven = compare_corpus_figure("7", {a, b}, o);
  EXPECT_EQ(std::get<BarPanel>(seven.panels[0]).series[0].values[2], 0.75);
}

TEST(CompareCorpusFigures, MapsArePerTextWithTheirDifference) {
  const CorpusAccumulator a = corpus(4, 0), b = corpus(8, 0);
  FigureOptions o;
  o.layer = 0;
  const Figure two = compare_corpus_figure("2", {a, b}, o);
  ASSERT_EQ(two.panels.size(), 3u);
  EXPECT_EQ(std::get<HeatmapPanel>(two.panels[2]).title, "B - A");
  const CorpusAccumulator other(2, 3, 8);
  EXPECT_THROW(compare_corpus_figure("2", {a, other}, o), Error);  // different windows: no map difference
  EXPECT_THROW(compare_corpus_figure("9", {a, b}, o), Error);
}

}  // namespace
}  // namespace attnscope
