// The figures of one text carry exactly the numbers of the analysis (what the command line's JSON
// holds), on the real MiniLM checkpoint.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "analysis/strongest_pairs.h"
#include "base/error.h"
#include "figures/figure_export.h"
#include "figures/figure_layout.h"
#include "figures/query_key_figure.h"
#include "figures/text_figures.h"
#include "support/minilm.h"
#include "support/paths.h"

namespace attnscope {
namespace {

struct RunAndAnalysis {
  TextRun run;
  TextAnalysis analysis;
  AnalyzedTextView view() const { return {run.encoding, run.captures, analysis}; }
};

const RunAndAnalysis& analysed() {
  static const RunAndAnalysis a = [] {
    RunAndAnalysis r;
    r.run = test::minilm_checkpoint().run("The cat sat. The dog ran to the cat! A bird sang.", 128);
    r.analysis = analyze_text(r.run.encoding, r.run.captures, AnalysisSettings{});
    return r;
  }();
  return a;
}

std::vector<float> floats(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kFloat).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

FigureOptions focus(int layer, int head) {
  FigureOptions o;
  o.layer = layer;
  o.head = head;
  return o;
}

TEST(TextFigures, MatrixPanelsHoldTheCapturedAndAnalysedValues) {
  const RunAndAnalysis& a = analysed();
  const auto attention = matrix_panel(a.view(), 2, 7, MatrixKind::Attention, {});
  EXPECT_EQ(attention.values, floats(a.run.captures.attention[2][7]));
  EXPECT_EQ(attention.rows, static_cast<int>(a.run.encoding.size()));
  EXPECT_EQ(attention.row_labels[1], "the");
  const auto similarity = matrix_panel(a.view(), 2, 7, MatrixKind::Similarity, {});
  EXPECT_EQ(similarity.values, floats(a.analysis.similarity.similarity[2][7]));
  EXPECT_EQ(similarity.colormap, ColormapId::Diverging);
  EXPECT_TRUE(similarity.color_scale.symmetric);
  EXPECT_EQ(similarity.outlined.size(), 2 * static_cast<size_t>(a.analysis.head(2, 7).pairs.count()));
  const auto layer_sum = matrix_panel(a.view(), 2, -1, MatrixKind::Attention, {});
  EXPECT_EQ(layer_sum.values, floats(a.run.captures.attention[2].sum(0)));
}

TEST(TextFigures, CosineIsSimilarityOverNorms) {
  const RunAndAnalysis& a = analysed();
  const auto cosine = matrix_panel(a.view(), 1, 3, MatrixKind::Cosine, {});
  const auto s = a.analysis.similarity.similarity[1][3];
  const auto norms = a.analysis.similarity.norms[1][3];
  const int n = cosine.rows;
  for (int i = 0; i < n; i += 3)
    for (int j = 0; j < n; j += 2) {
      const double expected =
          i == j ? 0.0 : s[i][j].item<double>() / (norms[i].item<double>() * norms[j].item<double>());
      EXPECT_NEAR(cosine.value(i, j), expected, 1e-5) << i << "," << j;
    }
}

TEST(TextFigures, Figure5PanelsAreAttentionSimilarityMaskAndBlocks) {
  const RunAndAnalysis& a = analysed();
  const Figure f = figure5(a.view(), focus(5, 2));
  ASSERT_EQ(f.panels.size(), 4u);
  const auto& mask = std::get<HeatmapPanel>(f.panels[2]);
  const auto& seps = a.analysis.head(5, 2).separators.positions;
  ASSERT_FALSE(seps.empty());
  const auto is_sep = [&](int k) { return std::find(seps.begin(), seps.end(), k) != seps.end(); };
  for (int i = 0; i < mask.rows; ++i)
    for (int j = 0; j < mask.cols; ++j) EXPECT_EQ(mask.value(i, j), (is_sep(i) || is_sep(j)) ? 1.0f : 0.0f);
  const auto& blocks = std::get<HeatmapPanel>(f.panels[3]);
  const auto expected = floats(block_average(a.analysis.similarity.similarity[5][2], segments_from(seps, mask.rows)));
  ASSERT_EQ(blocks.values.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k)
    if (std::isnan(expected[k]))
      EXPECT_TRUE(std::isnan(blocks.values[k]));
    else
      EXPECT_FLOAT_EQ(blocks.values[k], expected[k]);
}

TEST(TextFigures, Figure9ColoursOneColourPerTokenValueAndListsEveryPair) {
  const RunAndAnalysis& a = analysed();
  const Figure f = figure9(a.view(), focus(3, 4));
  const auto& t = std::get<TokenTextPanel>(f.panels[0]);
  const auto pairs = head_pairs(a.analysis, 3, 4);
  ASSERT_GT(pairs.size(), 0u);
  ASSERT_EQ(t.table.size(), std::min<size_t>(pairs.size(), kTableRowsShown));  // the rows a figure shows
  EXPECT_EQ(t.rows_in_all(), static_cast<int64_t>(pairs.size()));
  std::map<int32_t, int> colour_of;
  std::vector<bool> in_pair(t.tokens.size(), false);
  for (const TokenPair& p : pairs) in_pair[p.i] = in_pair[p.j] = true;
  for (size_t k = 0; k < t.tokens.size(); ++k) {
    EXPECT_EQ(t.color_index[k] >= 0, in_pair[k]) << k;
    if (t.color_index[k] < 0) continue;
    const int32_t id = a.run.encoding.tokens[k].id;
    const auto [it, fresh] = colour_of.try_emplace(id, t.color_index[k]);
    EXPECT_EQ(it->second, t.color_index[k]) << "token " << k << " has another colour than the same token elsewhere";
  }
  EXPECT_EQ(t.table[0][2], std::to_string(pairs[0].i));
  EXPECT_EQ(t.table[0][3], std::to_string(pairs[0].j));
}

// Asked for its strongest, Fig. 9's table of a head with more pairs than it shows lists them,
// strongest first (strongest_pairs.h), its title saying so; those the caller found already where given.
TEST(TextFigures, Figure9ListsAHeadsStrongestPairsWhenAsked) {
  const RunAndAnalysis& a = analysed();
  AnalysisSettings settings;
  settings.tau = 0.05;  // more pairs than a figure's table shows
  const TextAnalysis many = analyze_text(a.run.encoding, a.run.captures, settings);
  const AnalyzedTextView view{a.run.encoding, a.run.captures, many};
  FigureOptions o = focus(3, 4);
  ASSERT_GT(many.head(3, 4).pair_count, kTableRowsShown);
  const Figure first = figure9(view, o);
  o.pair_table = PairListing::Strongest;
  const Figure strongest = figure9(view, o);
  const auto& table = std::get<TokenTextPanel>(strongest.panels[0]).table;
  const std::vector<TokenPair> expected = strongest_head_pairs(many, 3, 4, kTableRowsShown);
  ASSERT_EQ(table.size(), expected.size());
  for (size_t k = 0; k < table.size(); ++k)
    EXPECT_EQ(table[k][2] + "," + table[k][3], std::to_string(expected[k].i) + "," + std::to_string(expected[k].j));
  EXPECT_NE(std::get<TokenTextPanel>(first.panels[0]).table, table);
  EXPECT_NE(strongest.title.find("; the table: the 40 strongest)"), std::string::npos) << strongest.title;
  EXPECT_EQ(first.title.find("strongest"), std::string::npos) << first.title;
  const std::vector<TokenPair> found = {expected[1], expected[0]};
  EXPECT_EQ(std::get<TokenTextPanel>(figure9(view, o, &found).panels[0]).table[0][2], std::to_string(found[0].i));
  // A head whose pairs the table shows all: in the paper's order.
  int few = 0;
  while (few < many.num_heads &&
         !(a.analysis.head(3, few).pair_count > 1 && a.analysis.head(3, few).pair_count <= kTableRowsShown))
    ++few;
  ASSERT_LT(few, many.num_heads);
  o.head = few;
  EXPECT_EQ(std::get<TokenTextPanel>(figure9(a.view(), o).panels[0]).table,
            std::get<TokenTextPanel>(figure9(a.view(), focus(3, few)).panels[0]).table);
}

TEST(TextFigures, StatisticsFigureShowsUndefinedAsNan) {
  const RunAndAnalysis& a = analysed();
  const Figure f = stats_figure(a.view(), focus(4, 0));
  const auto& repeats = std::get<BarPanel>(f.panels[0]);
  ASSERT_EQ(repeats.categories.size(), 12u);
  for (int h = 0; h < 12; ++h) {
    const auto& s = a.analysis.head(4, h).stats;
    if (s.repeat_share)
      EXPECT_DOUBLE_EQ(repeats.series[0].values[h], *s.repeat_share);
    else
      EXPECT_TRUE(std::isnan(repeats.series[0].values[h]));
  }
  const auto& sentence = std::get<BarPanel>(f.panels[1]);
  EXPECT_TRUE(sentence.series[1].markers);  // the chance level is a marker beside the bar
}

TEST(TextFigures, ALongTextsPairDistancesAreSummedIntoRoundBins) {
  // The fixture's short text: one bar per distance.
  const RunAndAnalysis& a = analysed();
  const auto distances = [](const Figure& f) { return std::get<BarPanel>(f.panels.back()); };
  const BarPanel short_bars = distances(stats_figure(a.view(), focus(4, 0)));
  EXPECT_EQ(short_bars.categories.size(), a.analysis.head(4, 0).stats.distance_histogram.size());
  EXPECT_EQ(short_bars.x_label, "distance j - i");
  // 512 tokens: more distances than kDistanceBars (256), summed two a bar.
  std::string text;
  while (text.size() < 4000) text += "The cat sat on the mat while the dog ran to the cat. ";
  RunAndAnalysis r;
  r.run = test::minilm_checkpoint().run(text, 512);
  r.analysis = analyze_text(r.run.encoding, r.run.captures, AnalysisSettings{});
  ASSERT_EQ(r.run.encoding.size(), 512u);
  const std::vector<int64_t>& counts = r.analysis.head(4, 0).stats.distance_histogram;
  const BarPanel bars = distances(stats_figure(r.view(), focus(4, 0)));
  EXPECT_EQ(bars.x_label, "distance j - i (bars of 2)");
  ASSERT_EQ(bars.categories.size(), (counts.size() + 1) / 2);
  for (size_t k = 0; k < bars.categories.size(); ++k) {
    EXPECT_EQ(bars.categories[k], std::to_string(2 * k));
    const int64_t second = 2 * k + 1 < counts.size() ? counts[2 * k + 1] : 0;
    EXPECT_EQ(bars.series[0].values[k], static_cast<double>(counts[2 * k] + second)) << k;
  }
}

TEST(TextFigures, LayerFiguresTakeTheChosenLayers) {
  const RunAndAnalysis& a = analysed();
  FigureOptions o;
  o.layers = {0, 5};
  const Figure f12 = figure12(a.view(), o);
  ASSERT_EQ(f12.panels.size(), 2u);
  EXPECT_EQ(std::get<HeatmapPanel>(f12.panels[1]).values, floats(a.analysis.summed_similarity(5)));
  const Figure f13 = figure13(a.view(), o);
  const auto& bars = std::get<BarPanel>(f13.panels[0]);
  double total = 0;
  for (double v : bars.series[0].values) total += v;
  EXPECT_NEAR(total, 1.0, 1e-9);  // shares of the layer's pooled pairs
  o.layers = {6};
  EXPECT_THROW(figure12(a.view(), o), Error);
}

TEST(TextFigures, GridHasEveryHeadAndTheLayerSums) {
  const RunAndAnalysis& a = analysed();
  const Figure f = grid_figure(a.view(), {});
  EXPECT_EQ(f.columns, 13);
  EXPECT_EQ(f.panels.size(), 6u * 13u);
  EXPECT_EQ(panel_title(f.panels[12]), "L0 sum");
}

// An n x n map pooled by hand: each k x k block keeps its entry of largest magnitude, sign and all.
std::vector<float> pooled_by_hand(const std::vector<float>& m, int n, int k) {
  const int cells = (n + k - 1) / k;
  std::vector<float> out(static_cast<size_t>(cells) * cells);
  for (int bi = 0; bi < cells; ++bi)
    for (int bj = 0; bj < cells; ++bj) {
      float best = 0;
      for (int i = bi * k; i < std::min(n, (bi + 1) * k); ++i)
        for (int j = bj * k; j < std::min(n, (bj + 1) * k); ++j)
          if (std::abs(m[static_cast<size_t>(i) * n + j]) > std::abs(best)) best = m[static_cast<size_t>(i) * n + j];
      out[static_cast<size_t>(bi) * cells + bj] = best;
    }
  return out;
}

// Head h of layer l as the head view shows it (h == H: the layer's sum), diagonal zeroed if asked.
std::vector<float> shown_map(const AnalyzedTextView& text, int l, int h, const FigureOptions& o) {
  std::vector<float> m = head_matrix(text, l, h == text.analysis.num_heads ? -1 : h, o.matrix, o.rollout_of_norm);
  const auto n = static_cast<size_t>(text.analysis.length);
  if (o.zero_diagonal)
    for (size_t i = 0; i < n; ++i) m[i * n + i] = 0;
  return m;
}

void expect_thumbnails_are_pooled_maps(const AnalyzedTextView& text, const FigureOptions& o, int max_cells) {
  const auto thumbnails = grid_thumbnails(text, o, max_cells);
  const int n = static_cast<int>(text.analysis.length), k = (n + max_cells - 1) / max_cells,
            per_layer = text.analysis.num_heads + 1;
  ASSERT_EQ(thumbnails.size(), static_cast<size_t>(text.analysis.num_layers * per_layer));
  for (int index = 0; index < static_cast<int>(thumbnails.size()); ++index) {
    const HeatmapPanel& p = thumbnails[static_cast<size_t>(index)];
    const std::vector<float> expected = pooled_by_hand(shown_map(text, index / per_layer, index % per_layer, o), n, k);
    ASSERT_EQ(p.rows, (n + k - 1) / k);
    ASSERT_EQ(p.values.size(), expected.size());
    for (size_t c = 0; c < expected.size(); ++c)
      ASSERT_NEAR(p.values[c], expected[c], 1e-5 * (1 + std::abs(expected[c])))
          << matrix_name(o.matrix) << " panel " << index << " cell " << c;
    EXPECT_EQ(p.color_scale.hi, color_scale_for(p.values, o.scale, p.colormap == ColormapId::Diverging).hi);
  }
}

// With the lenses' captures, which the norm-based maps need.
RunAndAnalysis analysed_with_lenses(const std::string& text, size_t max_length) {
  RunAndAnalysis a;
  a.run = test::minilm_checkpoint().run(text, max_length, {.lenses = true});
  a.analysis = analyze_text(a.run.encoding, a.run.captures, AnalysisSettings{});
  return a;
}

TEST(TextFigures, GridThumbnailsAreTheShownMapsPooledByLargestMagnitude) {
  const RunAndAnalysis a = analysed_with_lenses("The cat sat. The dog ran to the cat! A bird sang.", 128);
  const int n = static_cast<int>(a.analysis.length);
  ASSERT_EQ(n % 2, 1);
  for (MatrixKind kind :
       {MatrixKind::Attention, MatrixKind::Similarity, MatrixKind::Cosine, MatrixKind::Norm, MatrixKind::Rollout})
    // Full size, then pooled in blocks of 2 (the overview's own shortcut; n is odd, so its last
    // cell is ragged), then of 3.
    for (int max_cells : {1024, (n + 1) / 2, 8}) {
      FigureOptions o = focus(0, 0);
      o.matrix = kind;
      expect_thumbnails_are_pooled_maps(a.view(), o, max_cells);
      o.zero_diagonal = kind == MatrixKind::Attention;
      o.rollout_of_norm = kind == MatrixKind::Rollout;
      expect_thumbnails_are_pooled_maps(a.view(), o, max_cells);
    }
  EXPECT_EQ(grid_thumbnails(a.view(), focus(0, 0), 1024)[0].rows, n);
}

TEST(TextFigures, GridThumbnailsOfALongTextTakeTheLayersAFewAtATime) {
  // 512 tokens: a layer's zeroed maps are 12 MB, so the layers are pooled two or three at a time.
  std::string text;
  for (const char* name :
       {"classroom.txt", "lighthouse.txt", "classroom.txt", "lighthouse.txt", "classroom.txt", "lighthouse.txt"}) {
    std::ifstream in(test::source_dir() / "assets/examples" / name);
    text += std::string(std::istreambuf_iterator<char>(in), {}) + " ";
  }
  const RunAndAnalysis a = analysed_with_lenses(text, 512);
  ASSERT_EQ(a.run.encoding.size(), 512u);
  FigureOptions o = focus(0, 0);
  o.zero_diagonal = true;
  expect_thumbnails_are_pooled_maps(a.view(), o, kGridThumbnailCells);
  o.zero_diagonal = false;
  o.matrix = MatrixKind::Norm;
  expect_thumbnails_are_pooled_maps(a.view(), o, kGridThumbnailCells);
}

TEST(TextFigures, GridAtlasIsTheThumbnailsColouredAndItsKeyIgnoresTheFocus) {
  const RunAndAnalysis& a = analysed();
  const FigureOptions o = focus(0, 0);
  const ThumbnailAtlas atlas = grid_atlas(a.view(), o);
  EXPECT_EQ(atlas.rgba, thumbnail_atlas(grid_thumbnails(a.view(), o, kGridThumbnailCells), 13).rgba);
  EXPECT_EQ(atlas.columns, 13);
  EXPECT_EQ(atlas.rows, 6);
  // The focused head does not change the thumbnails; each option they are coloured by does.
  EXPECT_EQ(grid_thumbnails_key(focus(3, 7)), grid_thumbnails_key(o));
  for (const auto& change : std::vector<std::function<void(FigureOptions&)>>{
           [](FigureOptions& x) { x.matrix = MatrixKind::Similarity; },
           [](FigureOptions& x) { x.colormap = ColormapId::Magma; },
           [](FigureOptions& x) { x.scale = ValueScale::Log; }, [](FigureOptions& x) { x.zero_diagonal = true; },
           [](FigureOptions& x) { x.rollout_of_norm = true; }}) {
    FigureOptions other = o;
    change(other);
    EXPECT_NE(grid_thumbnails_key(other), grid_thumbnails_key(o));
  }
}

TEST(TextFigures, AttentionLinesSayWhenAHeadSpreadsItsAttentionTooThinForAny) {
  std::string text;
  for (int k = 0; k < 12; ++k) text += "The cat sat on the mat. ";
  RunAndAnalysis r;
  r.run = test::minilm_checkpoint().run(text, 128);
  r.analysis = analyze_text(r.run.encoding, r.run.captures, AnalysisSettings{});
  const auto n = static_cast<double>(r.run.encoding.size());
  ASSERT_GT(n, 50);  // 1 / n below the lines' 0.02
  // Head 0 of layer 0 made to attend evenly: every weight 1 / n, none with a line.
  r.run.captures.attention = r.run.captures.attention.clone();
  r.run.captures.attention[0][0].fill_(1.0 / n);
  const auto title = [&](std::vector<int> heads) {
    FigureOptions o = focus(0, 0);
    o.heads = std::move(heads);
    return std::get<LinesPanel>(lines_figure(r.view(), o).panels[0]).title;
  };
  const std::string even = title({0});
  EXPECT_NE(even.find("a line for each A_ij >= 0.02 (none here: this head spreads its attention thinner)"),
            std::string::npos)
      << even;
  // Beside a head with lines, the panel has some: no such note.
  EXPECT_EQ(title({0, 1}).find("none here"), std::string::npos) << title({0, 1});
}

TEST(TextFigures, AttentionLinesForSeveralHeadsAndOneToken) {
  const RunAndAnalysis& a = analysed();
  FigureOptions o = focus(2, 3);
  o.heads = {1, 3};
  Figure f = lines_figure(a.view(), o);
  auto& lines = std::get<LinesPanel>(f.panels[0]);
  ASSERT_EQ(lines.heads.size(), 2u);
  // Head 3's lines: the cells of its map of at least min_weight, row by row.
  const std::vector<float> map = head_matrix(a.view(), 2, 3, MatrixKind::Attention);
  std::vector<AttentionLine> kept;
  const int n = static_cast<int>(lines.tokens.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (map[static_cast<size_t>(i * n + j)] >= lines.min_weight)
        kept.push_back({i, j, map[static_cast<size_t>(i * n + j)]});
  EXPECT_EQ(lines.heads[1].lines, kept);
  EXPECT_FALSE(kept.empty());
  // The title says which weights have a line; "none here" only when no head has one.
  EXPECT_NE(lines.title.find("a line for each A_ij >= 0.02"), std::string::npos) << lines.title;
  EXPECT_EQ(lines.title.find("none here"), std::string::npos) << lines.title;
  EXPECT_FALSE(lines.heads[0].color.r == lines.heads[1].color.r && lines.heads[0].color.g == lines.heads[1].color.g);
  const auto count_lines = [&] {
    const std::string svg = render_figure(f, FigureFormat::Svg);
    size_t count = 0;
    for (size_t at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1)) ++count;
    return count;
  };
  const size_t all = count_lines();
  lines.focus_side = 0;  // token 4 on the left: what it attends to, in both heads
  lines.focus_index = 4;
  size_t expected = 0;
  for (const LinesHead& h : lines.heads)
    for (const AttentionLine& line : h.lines) expected += line.from == 4;
  const size_t from_token = count_lines();
  EXPECT_EQ(from_token, expected);
  EXPECT_LT(from_token, all);
  lines.focus_side = 1;  // into token 4 on the right: who attends to it
  expected = 0;
  for (const LinesHead& h : lines.heads)
    for (const AttentionLine& line : h.lines) expected += line.to == 4;
  EXPECT_EQ(count_lines(), expected);
}

// The query/key view (bertviz's neuron view) of MiniLM: the query, the keys and their products
// dimension by dimension, each row of which sums to q_i . k_j as its title says; its 32 dimensions
// labelled at round steps where crowded.
TEST(TextFigures, QueryKeyViewRowsSumToTheDotProducts) {
  CheckpointRun with_queries;
  with_queries.lenses = true;
  const TextRun run = test::minilm_checkpoint().run("The cat sat. The dog ran to the cat!", 128, with_queries);
  const TextAnalysis analysis = analyze_text(run.encoding, run.captures, AnalysisSettings{});
  FigureOptions o = focus(3, 5);
  o.query = 4;
  const Figure f = query_key_figure({run.encoding, run.captures, analysis}, o);
  ASSERT_EQ(f.panels.size(), 4u);
  const auto& products = std::get<HeatmapPanel>(f.panels[2]);
  EXPECT_NE(products.title.find("a row sums to q_i . k_j"), std::string::npos) << products.title;
  const at::Tensor q = run.captures.queries[3][5][4], k = run.captures.keys[3][run.captures.key_head(5)];
  ASSERT_EQ(products.cols, q.size(0));
  for (int j = 0; j < products.rows; ++j) {
    double sum = 0;
    for (int c = 0; c < products.cols; ++c) sum += products.value(j, c);
    EXPECT_NEAR(sum, at::dot(q, k[j]).item<double>(), 1e-4) << j;
  }
  const auto& keys = std::get<HeatmapPanel>(f.panels[1]);
  EXPECT_TRUE(keys.cols_counted);
  const PanelLayout narrow = layout_figure(f, 400, 10, approximate_text_width).panels[1];
  EXPECT_GT(narrow.col_label_every, 1);
  EXPECT_EQ(narrow.col_label_every, round_step(narrow.col_label_every));
}

TEST(TextFigures, BadChoicesAreRefusedWithAMessage) {
  const RunAndAnalysis& a = analysed();
  EXPECT_THROW(head_figure(a.view(), focus(6, 0)), Error);
  EXPECT_THROW(head_figure(a.view(), focus(0, 12)), Error);
  try {
    text_figure("2", a.view(), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("corpus"), std::string::npos);
  }
  EXPECT_EQ(text_figure("lines", a.view(), focus(-1, 0)).panels.size(), 1u);
}

}  // namespace
}  // namespace attnscope
