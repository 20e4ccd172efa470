// Figure layout without any renderer: grid placement, square heatmaps, thinned labels, hit tests.
#include <gtest/gtest.h>

#include <cmath>

#include "figures/figure_layout.h"

namespace attnscope {
namespace {

HeatmapPanel heatmap(int n, bool labels) {
  HeatmapPanel p;
  p.title = "map";
  p.rows = p.cols = n;
  p.values.assign(static_cast<size_t>(n) * n, 0.5f);
  if (labels)
    for (int i = 0; i < n; ++i) {
      p.row_labels.push_back("tok" + std::to_string(i));
      p.col_labels.push_back("tok" + std::to_string(i));
    }
  p.colorbar_label = "A";
  return p;
}

bool overlap(const Rect& a, const Rect& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
}

TEST(FigureLayout, PanelsFillAGridWithoutOverlapping) {
  Figure f;
  f.title = "title";
  f.columns = 2;
  for (int k = 0; k < 3; ++k) f.panels.push_back(heatmap(8, true));
  const FigureLayout l = layout_figure(f, 800, 10, approximate_text_width);
  ASSERT_EQ(l.panels.size(), 3u);
  EXPECT_DOUBLE_EQ(l.panels[0].cell.y, l.panels[1].cell.y);
  EXPECT_GT(l.panels[1].cell.x, l.panels[0].cell.right());
  EXPECT_GT(l.panels[2].cell.y, l.panels[0].cell.bottom());
  EXPECT_DOUBLE_EQ(l.panels[2].cell.x, l.panels[0].cell.x);
  for (size_t a = 0; a < 3; ++a) {
    EXPECT_GT(l.panels[a].plot.y, l.title.bottom());
    EXPECT_LE(l.panels[a].cell.right(), 800);
    EXPECT_LE(l.panels[a].cell.bottom(), l.height);
    for (size_t b = a + 1; b < 3; ++b) EXPECT_FALSE(overlap(l.panels[a].cell, l.panels[b].cell));
  }
}

TEST(FigureLayout, HeatmapsAreSquareWithTheColorbarBeside) {
  Figure f;
  f.panels.push_back(heatmap(10, true));
  const PanelLayout p = layout_figure(f, 500, 10, approximate_text_width).panels[0];
  EXPECT_DOUBLE_EQ(p.plot.w, p.plot.h);
  EXPECT_GT(p.colorbar.x, p.plot.right());
  EXPECT_DOUBLE_EQ(p.colorbar.h, p.plot.h);
  EXPECT_LE(p.colorbar.right(), p.cell.right());
  EXPECT_GT(p.plot.x, p.cell.x);  // room for the row labels
}

TEST(FigureLayout, LabelsAreThinnedWhenCellsAreSmallerThanText) {
  Figure f;
  f.panels.push_back(heatmap(10, true));
  EXPECT_EQ(layout_figure(f, 600, 10, approximate_text_width).panels[0].row_label_every, 1);
  Figure many;
  many.panels.push_back(heatmap(128, true));
  const PanelLayout p = layout_figure(many, 400, 10, approximate_text_width).panels[0];
  const double cell = p.plot.h / 128;
  EXPECT_GT(p.row_label_every, 1);
  EXPECT_GE(p.row_label_every * cell, p.label_font);               // labels no longer overlap
  EXPECT_LT((p.row_label_every - 1) * cell, p.label_font * 1.15);  // ... and not thinned more than needed
}

// Maps over the same tokens label the same tokens: a map beside a wider colour bar (its plot a
// little narrower) takes the step of its neighbour, the larger.
TEST(FigureLayout, MapsOfOneLengthShareTheirLabelSteps) {
  HeatmapPanel narrow_bar = heatmap(512, true), wide_bar = heatmap(512, true);
  narrow_bar.color_scale = {0, 1, ValueScale::Linear, false};
  wide_bar.color_scale = {-123456.5, 123456.5, ValueScale::Linear, true};
  const auto steps = [](const std::vector<HeatmapPanel>& panels) {
    Figure f;
    f.columns = 2;
    for (const HeatmapPanel& p : panels) f.panels.push_back(p);
    std::vector<std::pair<int, int>> out;
    for (const PanelLayout& l : layout_figure(f, 700, 10, approximate_text_width).panels)
      out.emplace_back(l.row_label_every, l.col_label_every);
    return out;
  };
  const auto alone = steps({narrow_bar, narrow_bar});
  const auto wide = steps({wide_bar, wide_bar});
  ASSERT_LT(alone[0].first, wide[0].first) << "pick a width where the two bars give two steps";
  const auto together = steps({narrow_bar, wide_bar});
  EXPECT_EQ(together[0], wide[0]);
  EXPECT_EQ(together[1], wide[0]);
  HeatmapPanel shorter = heatmap(500, true);  // another length keeps its own step
  shorter.color_scale = narrow_bar.color_scale;
  EXPECT_EQ(steps({shorter, wide_bar})[0], steps({shorter, shorter})[0]);
}

// Maps of one shape in one figure are drawn one size, the smaller: beside a wider colour bar the
// other map would otherwise be a few points larger (Fig. 2's head, "62", beside its layer, "248").
TEST(FigureLayout, MapsOfOneShapeAreDrawnOneSize) {
  HeatmapPanel narrow_bar = heatmap(128, true), wide_bar = heatmap(128, true);
  narrow_bar.color_scale = {0, 62, ValueScale::Linear, false};
  wide_bar.color_scale = {-123456.5, 123456.5, ValueScale::Linear, true};
  const auto layout = [](const std::vector<HeatmapPanel>& panels) {
    Figure f;
    f.columns = 3;
    for (const HeatmapPanel& p : panels) f.panels.push_back(p);
    return layout_figure(f, 900, 10, approximate_text_width);
  };
  const double narrow_side = layout({narrow_bar}).panels[0].plot.w, wide_side = layout({wide_bar}).panels[0].plot.w;
  ASSERT_GT(narrow_side, wide_side + 5);
  HeatmapPanel other_shape = heatmap(100, true);
  other_shape.color_scale = narrow_bar.color_scale;
  const FigureLayout together = layout({narrow_bar, wide_bar, other_shape});
  EXPECT_DOUBLE_EQ(together.panels[0].plot.w, wide_side);
  EXPECT_DOUBLE_EQ(together.panels[0].plot.h, wide_side);
  EXPECT_DOUBLE_EQ(together.panels[1].plot.w, wide_side);
  EXPECT_DOUBLE_EQ(together.panels[0].colorbar.h, wide_side);                           // the bar as tall as its map
  EXPECT_DOUBLE_EQ(together.panels[2].plot.w, layout({other_shape}).panels[0].plot.w);  // its own size
  EXPECT_NEAR(together.panels[0].colorbar.x - together.panels[0].plot.right(),
              together.panels[1].colorbar.x - together.panels[1].plot.right(), 1e-9);
}

TEST(FigureLayout, ThumbnailsWithoutLabelsHaveNoColorbar) {
  Figure f;
  HeatmapPanel p = heatmap(16, false);
  p.colorbar_label.clear();
  f.panels.push_back(p);
  const PanelLayout l = layout_figure(f, 200, 10, approximate_text_width).panels[0];
  EXPECT_DOUBLE_EQ(l.plot.x, l.cell.x);
  EXPECT_NEAR(l.plot.w, l.cell.w, 1e-9);
}

TEST(FigureLayout, HeatmapCellHitTest) {
  Figure f;
  f.panels.push_back(heatmap(4, true));
  const FigureLayout l = layout_figure(f, 400, 10, approximate_text_width);
  const HeatmapPanel& p = std::get<HeatmapPanel>(f.panels[0]);
  const Rect& r = l.panels[0].plot;
  EXPECT_EQ(heatmap_cell(p, l.panels[0], r.x + 0.1, r.y + 0.1), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(heatmap_cell(p, l.panels[0], r.right() - 0.1, r.bottom() - 0.1), (std::pair<int, int>{3, 3}));
  EXPECT_EQ(heatmap_cell(p, l.panels[0], r.x + r.w * 0.6, r.y + r.h * 0.3), (std::pair<int, int>{1, 2}));
  EXPECT_EQ(heatmap_cell(p, l.panels[0], r.x - 1, r.y), (std::pair<int, int>{-1, -1}));
}

TEST(FigureLayout, TokenTextWrapsWithinTheCell) {
  Figure f;
  TokenTextPanel t;
  for (int i = 0; i < 60; ++i) {
    t.tokens.push_back("word" + std::to_string(i));
    t.color_index.push_back(-1);
  }
  t.table_header = {"a", "b"};
  for (int i = 0; i < 50; ++i) t.table.push_back({"x", "y"});
  f.panels.push_back(t);
  const PanelLayout l = layout_figure(f, 300, 10, approximate_text_width).panels[0];
  ASSERT_EQ(l.token_boxes.size(), 60u);
  for (const Rect& b : l.token_boxes) EXPECT_LE(b.right(), l.cell.right() + 1e-9);
  EXPECT_GT(l.token_boxes.back().y, l.token_boxes.front().y);  // wrapped onto later lines
  EXPECT_EQ(l.table_rows_shown, 40);                           // the rest is summarised
  EXPECT_GE(l.table.y, l.plot.bottom());
}

TEST(FigureLayout, LongLabelsAreCutOnCharacterBoundaries) {
  EXPECT_EQ(axis_label("short"), "short");
  const std::string cut = axis_label("ééééééééééééééééééé");  // 19 two-byte characters
  EXPECT_EQ(cut, "ééééééééééééé\u2026");
}

// A value axis from the data is ticked at round numbers, two to four above 0, the last within the top.
TEST(BarAxisTicks, AreRoundStepsFromZero) {
  const auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << k;
  };
  near(bar_axis_ticks(1.0), {0, 0.5, 1});  // shares: as before
  near(bar_axis_ticks(32.55), {0, 10, 20, 30});
  near(bar_axis_ticks(11.2), {0, 5, 10});
  near(bar_axis_ticks(0.43), {0, 0.2, 0.4});
  near(bar_axis_ticks(0.3), {0, 0.1, 0.2, 0.3});
  near(bar_axis_ticks(1000), {0, 500, 1000});
  near(bar_axis_ticks(9), {0, 2.5, 5, 7.5});
  near(bar_axis_ticks(0), {0});
  near(bar_axis_ticks(5.25, true), {0, 2, 4});  // counts: whole steps
  near(bar_axis_ticks(1.05, true), {0, 1});
  near(bar_axis_ticks(52.5, true), {0, 25, 50});
  BarPanel counts;
  counts.series.push_back({"pairs", {5.0, 1.0, 2.0}});
  near(bar_axis_ticks(counts), {0, 2, 4});
  counts.series[0].values[1] = 1.5;  // not counts
  near(bar_axis_ticks(counts), {0, 2.5, 5});
  for (double top = 1e-3; top < 1e6; top *= 1.07) {
    const std::vector<double> t = bar_axis_ticks(top);
    EXPECT_GE(t.size(), 3u) << top;
    EXPECT_LE(t.size(), 5u) << top;
    EXPECT_LE(t.back(), top * (1 + 1e-9)) << top;
    const double step = t[1] / std::pow(10.0, std::floor(std::log10(t[1]) + 1e-12));
    EXPECT_TRUE(std::abs(step - 1) < 1e-9 || std::abs(step - 2) < 1e-9 || std::abs(step - 2.5) < 1e-9 ||
                std::abs(step - 5) < 1e-9)
        << top << ": step " << t[1];
  }
}

TEST(TickLabels, ThreeDigitsAndThousandsInFull) {
  EXPECT_EQ(tick_label(0.5478), "0.548");
  EXPECT_EQ(tick_label(29.94), "29.9");
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(8934.2), "8934");
  EXPECT_EQ(tick_label(-8934.2), "-8934");
  EXPECT_EQ(tick_label(999.7), "1000");
  EXPECT_EQ(tick_label(2.5e6), "2.5e+06");
  EXPECT_EQ(tick_label(1.5e-4), "0.00015");
}

// A bar panel without a legend leaves half a line between its title and the tick at the axis' top.
TEST(FigureLayout, ABarPanelsTopTickStaysOffItsTitle) {
  Figure f;
  BarPanel p;
  p.title = "mean pair distance";
  p.categories = {"h0", "h1"};
  p.series.push_back({"distance", {10.0, 8.0}});
  f.panels.push_back(p);
  const PanelLayout l = layout_figure(f, 500, 10, approximate_text_width).panels[0];
  EXPECT_GE(l.plot.y - l.label_font / 2, l.title.bottom() + l.label_font * 0.05);
}

TEST(FigureLayout, ACrowdedHistogramIsLabelledAtRoundDistances) {
  const auto label_every = [](size_t categories, double width) {
    Figure f;
    BarPanel p;
    p.title = "pair distances";
    for (size_t d = 0; d < categories; ++d) p.categories.push_back(std::to_string(d));
    p.series.push_back({"pairs", std::vector<double>(categories, 1.0)});
    p.label_every = 8;
    f.panels.push_back(p);
    return layout_figure(f, width, 10, approximate_text_width).panels[0].col_label_every;
  };
  // Room for every 8th label: the panel's own step is kept.
  EXPECT_EQ(label_every(40, 800), 8);
  // 8,192 distances in 800 pixels need a label every 50 or more: the step is 1, 2 or 5 x 10^k.
  const int step = label_every(8192, 800);
  EXPECT_GE(step, 50);
  int mantissa = step;
  while (mantissa % 10 == 0) mantissa /= 10;
  EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << step;
}

// A corpus figure's positions (0 .. 127) are labelled every 5th, 10th ... as a crowded bar axis
// is, where a map of tokens keeps every k-th label that fits (Fig. 2 of SmolLM2's corpus run was
// labelled 0, 6, 12 ... beside a panel labelled 0, 5, 10).
TEST(FigureLayout, CountedMapLabelsAreWrittenAtRoundSteps) {
  const auto steps = [](bool counted, double width) {
    Figure f;
    HeatmapPanel p;
    p.title = "summed attention";
    p.rows = p.cols = 128;
    p.values.assign(128 * 128, 1.0f);
    for (int i = 0; i < 128; ++i) p.row_labels.push_back(std::to_string(i));
    p.col_labels = p.row_labels;
    p.rows_counted = p.cols_counted = counted;
    f.panels.push_back(p);
    const PanelLayout l = layout_figure(f, width, 10, approximate_text_width).panels[0];
    return std::pair{l.row_label_every, l.col_label_every};
  };
  for (double width : {300.0, 500.0, 700.0, 1200.0}) {
    const auto [rows, cols] = steps(true, width);
    const auto [token_rows, token_cols] = steps(false, width);
    EXPECT_EQ(rows, round_step(token_rows)) << width;  // the smallest round step at least as sparse
    EXPECT_EQ(cols, round_step(token_cols)) << width;
    for (int step : {rows, cols}) {
      int mantissa = step;
      while (mantissa % 10 == 0) mantissa /= 10;
      EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << step;
    }
  }
  EXPECT_GT(steps(false, 500).first, 1);  // a width where the labels are crowded
  EXPECT_NE(steps(false, 500).first % 5, 0) << "pick a width where tokens' step is not round already";
}

}  // namespace
}  // namespace attnscope
