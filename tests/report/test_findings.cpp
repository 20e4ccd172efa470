// The findings report: the derived numbers by hand on small sums, each finding's rule on numbers
// made to hold and not to hold, and the written report on a real (tiny) corpus run, its numbers
// the same as the CSV tables'.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "corpus/corpus_summary.h"
#include "corpus/window_stream.h"
#include "report/finding_figures.h"
#include "base/error.h"
#include "report/findings_report.h"
#include "results/corpus_csv.h"
#include "support/paths.h"
#include "support/test_device.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

at::Tensor& named(CorpusAccumulator& a, const std::string& name) {
  for (auto& [n, t] : a.tensors())
    if (n == name) return *t;
  throw std::runtime_error("no accumulator " + name);
}

// One layer, two heads, window 4, four texts: head 0 attends to itself (twice over), head 1 to
// position 0 from every row.
CorpusAccumulator small_sums() {
  CorpusAccumulator a(1, 2, 4);
  at::Tensor& sums = named(a, "attention_sum");
  sums[0][0] = at::eye(4, at::kDouble) * 2;
  sums[0][1].select(1, 0).fill_(1.0);
  a.stats[CorpusAccumulator::RepeatShare].sum[0][0] = 1.5;
  a.stats[CorpusAccumulator::RepeatShare].undefined[0][0] = 1;
  a.stats[CorpusAccumulator::RepeatShare].undefined[0][1] = 4;
  a.chance_sum.fill_(1.2);
  a.chance_histogram[40] = 3;
  a.distance_histogram[0][0] = at::tensor({0, 2, 0, 1}, at::kLong);
  a.distance_histogram[0][1] = at::tensor({0, 0, 1, 0}, at::kLong);
  a.distinct_anchors[0] = at::tensor({0, 1, 3}, at::kLong);
  a.separator_classes[0] = at::tensor({1, 0, 3, 0}, at::kLong);
  a.token_classes.fill_(4);
  a.set_texts(4);
  return a;
}

TEST(CorpusSummary, NumbersFromSumsByHand) {
  const CorpusAccumulator a = small_sums();
  const at::Tensor band = band_shares(a.attention_sum());
  EXPECT_DOUBLE_EQ(band[0][0].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(band[0][1].item<double>(), 0.5);  // rows 0 and 1 reach column 0 within one step
  const at::Tensor peaks = rows_peaking_on_band(a.attention_sum());
  EXPECT_DOUBLE_EQ(peaks[0][0].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(peaks[0][1].item<double>(), 0.5);
  const at::Tensor columns = layer_column_shares(a.attention_sum());
  EXPECT_DOUBLE_EQ(columns[0][0].item<double>(), 6.0 / 12.0);
  EXPECT_DOUBLE_EQ(columns[0][3].item<double>(), 2.0 / 12.0);
  EXPECT_DOUBLE_EQ(*head_stat_mean(a, CorpusAccumulator::RepeatShare, 0, 0), 0.5);
  EXPECT_FALSE(head_stat_mean(a, CorpusAccumulator::RepeatShare, 0, 1));  // undefined in every text
  EXPECT_DOUBLE_EQ(*chance_mean(a), 0.4);
  EXPECT_DOUBLE_EQ(*head_pooled_mean_distance(a, 0, 0), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(*layer_pooled_mean_distance(a, 0), 7.0 / 4.0);
  EXPECT_DOUBLE_EQ(*mean_distinct_anchors(a, 0), 7.0 / 4.0);
  EXPECT_DOUBLE_EQ(*separator_class_share(a, 0, TokenClass::Punctuation), 0.75);
  EXPECT_DOUBLE_EQ(*separator_class_share(a, 0, TokenClass::First), 0.25);
  EXPECT_DOUBLE_EQ(*token_class_share(a, TokenClass::Word), 0.25);

  const RunMeasures m = measure_run(a, "m");
  EXPECT_EQ(m.first_column_rank_in_first_layer, 1);
  EXPECT_DOUBLE_EQ(m.band_share[0], (8.0 + 2.0) / 12.0);
  EXPECT_DOUBLE_EQ(*m.separators_punctuation[0], 0.75);
  EXPECT_DOUBLE_EQ(*m.rows_on_band[0][1], 0.5);
}

TEST(CorpusSummary, ARunWithoutClassesSaysSo) {
  CorpusAccumulator a = small_sums();
  a.token_classes.zero_();
  a.separator_classes.zero_();
  EXPECT_FALSE(a.has_token_classes());
  EXPECT_FALSE(separator_class_share(a, 0, TokenClass::Punctuation));
  const Measured m = paper_findings()[2].evaluate(measure_run(a, "old"));
  EXPECT_EQ(m.verdict, Verdict::Undecided);
  EXPECT_NE(m.detail.find("run it again"), std::string::npos);
}

const Finding& finding(const std::string& key) {
  for (const Finding& f : paper_findings())
    if (f.key == key) return f;
  throw std::runtime_error("no finding " + key);
}

// Three layers of two heads, window 128, every number set by the test.
RunMeasures three_layers() {
  RunMeasures m;
  m.name = "m";
  m.layers = 3;
  m.heads = 2;
  m.window = 128;
  m.texts = 10;
  m.first_column_share = {0.3, 0.2, 0.1};
  m.first_column_rank_in_first_layer = 1;
  m.band_share = {0.1, 0.5, 0.2};
  m.separators_first = {1.0, 0.5, 0.2};
  m.separators_special = {0.0, 0.0, 0.1};
  m.separators_punctuation = {0.0, 0.5, 0.6};
  m.separators_word = {0.0, 0.0, 0.1};
  m.punctuation_base = 0.1;
  m.mean_distance = {40.0, 10.0, 20.0};
  m.same_sentence_share = {0.2, 0.4, 0.5};
  m.chance = 0.3;
  m.distinct_anchors = {2.0, 1.5, 2.0};
  m.rows_on_band = {{0.9, 0.8}, {0.7, 0.6}, {0.5, 0.9}};
  m.repeat_share = {{0.1, 0.9}, {0.2, 0.3}, {std::nullopt, 0.4}};
  m.anchor_share = {{0.6, 0.7}, {0.5, 0.4}, {0.8, 0.9}};
  m.head_distance = {{60.0, 30.0}, {10.0, 5.0}, {49.0, 51.0}};
  return m;
}

TEST(Findings, EachRuleHoldsAndFails) {
  RunMeasures m = three_layers();
  for (const char* key : {"first-token", "middle-diagonal", "separators", "summed-diagonal", "repeat-heads",
                          "distances", "last-layer-range", "same-sentence", "anchor", "distinct-anchors"})
    EXPECT_EQ(finding(key).evaluate(m).verdict, Verdict::Holds) << key;
  EXPECT_EQ(finding("repeat-heads").evaluate(m).value, "0.100 to 0.900");
  EXPECT_EQ(finding("last-layer-range").evaluate(m).value, "1 of 2 heads");
  EXPECT_EQ(finding("same-sentence").evaluate(m).value, "0.500 vs chance 0.300");
  EXPECT_EQ(finding("distinct-anchors").evaluate(m).value, "1.83 of 2 (0.92)");

  m.first_column_rank_in_first_layer = 2;
  m.band_share = {0.1, 0.5, 0.6};
  m.separators_punctuation.back() = 0.4;
  m.rows_on_band[2][0] = 0.4;  // 5 of 6 heads peak on the band: below 90%
  m.repeat_share = {{0.1, 0.3}, {0.2, 0.3}, {0.2, 0.4}};
  m.mean_distance = {20.0, 10.0, 40.0};
  m.head_distance.back() = {60.0, 51.0};
  m.same_sentence_share.back() = 0.25;
  m.anchor_share = {{0.1, 0.2}, {0.5, 0.4}, {0.3, 0.9}};
  m.distinct_anchors = {1.0, 1.0, 1.5};
  for (const Finding& f : paper_findings()) EXPECT_EQ(f.evaluate(m).verdict, Verdict::DoesNotHold) << f.key;
}

TEST(Findings, UndefinedNumbersLeaveThemUndecided) {
  RunMeasures m = three_layers();
  m.texts = 0;
  m.separators_punctuation.back() = std::nullopt;
  m.rows_on_band = {{std::nullopt, std::nullopt}, {std::nullopt, std::nullopt}, {std::nullopt, std::nullopt}};
  m.repeat_share = m.anchor_share = m.head_distance = m.rows_on_band;
  m.mean_distance = {std::nullopt, 1.0, std::nullopt};
  m.same_sentence_share.back() = std::nullopt;
  m.distinct_anchors = {std::nullopt, std::nullopt, std::nullopt};
  for (const Finding& f : paper_findings()) {
    const Measured r = f.evaluate(m);
    EXPECT_EQ(r.verdict, Verdict::Undecided) << f.key;
    EXPECT_EQ(r.value, "n/a") << f.key;
    EXPECT_FALSE(r.detail.empty()) << f.key;
  }
}

TEST(Findings, EveryFigureHasAPanelPerModel) {
  const std::vector<RunMeasures> runs{three_layers(), three_layers()};
  for (const Finding& f : paper_findings()) {
    const Figure figure = finding_figure(f, runs);
    EXPECT_EQ(figure.panels.size(), 2u) << f.key;
    EXPECT_EQ(figure.title, f.claim);
  }
}

// The CSV table's cell in `column` of the row whose first cells are `key`.
std::string csv_cell(const std::filesystem::path& file, const std::string& key, const std::string& column) {
  std::ifstream in(file);
  std::string header, line;
  std::getline(in, header);
  const auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream ss(s);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (!s.empty() && s.back() == ',') cells.push_back("");
    return cells;
  };
  const auto names = split(header);
  const size_t at = static_cast<size_t>(std::find(names.begin(), names.end(), column) - names.begin());
  while (std::getline(in, line))
    if (line.rfind(key + ",", 0) == 0) return split(line).at(at);
  return "missing";
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string fixed(const std::string& number, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, std::stod(number));
  return text;
}

TEST(FindingsReport, WrittenFromARealRunWithTheTablesNumbers) {
  test::TempDir dir;
  test::write_tiny_bert(dir.path() / "model", {});
  const auto checkpoint = Checkpoint::load(dir.path() / "model", test::test_device());
  std::string text;
  for (int i = 0; i < 12; ++i) text += "the cat sat on the mat , and a dog sat . the dogs sat on a mat ! ";
  test::write_text(dir.path() / "corpus.txt", text);
  CorpusOptions options;
  options.input = dir.path() / "corpus.txt";
  options.window = 16;
  options.batch = 4;
  auto acc = std::make_shared<CorpusAccumulator>(2, 2, 16);
  const CorpusOutcome outcome = run_corpus(*checkpoint, options, *acc);
  CorpusFile file{"model",
                  checkpoint->model().config().to_json(),
                  {},
                  {},
                  "cpu",
                  options,
                  false,
                  outcome.windows,
                  outcome.documents,
                  pieces_per_window(checkpoint->tokenizer(), options.window),
                  acc};
  save_corpus(dir.path() / "run.json", file);
  write_corpus_csv(dir.path() / "csv", *acc);
  const FindingsReport report =
      make_report({report_source("tiny", dir.path() / "run.json", load_corpus(dir.path() / "run.json"))});
  write_report_pdf(report, dir.path() / "r.pdf");
  write_report_markdown(report, dir.path() / "r.md", dir.path() / "r-figures");

  const std::string pdf = read_text(dir.path() / "r.pdf");
  EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  // cairo writes the page count in the page tree: a summary page and a page per finding.
  EXPECT_NE(pdf.find("/Count " + std::to_string(1 + paper_findings().size()) + "\n"), std::string::npos);
  for (const Finding& f : paper_findings()) {
    const std::string png = read_text(dir.path() / "r-figures" / (f.key + ".png"));
    EXPECT_EQ(png.substr(1, 3), "PNG") << f.key;
  }
  // The numbers the report writes are the tables' numbers.
  const std::string md = read_text(dir.path() / "r.md");
  const auto csv = dir.path() / "csv";
  const std::string distance = fixed(csv_cell(csv / "per_layer.csv", "0", "mean_distance"), 1) + " -> " +
                               fixed(csv_cell(csv / "per_layer.csv", "1", "mean_distance"), 1) + " tokens";
  EXPECT_NE(md.find(distance), std::string::npos) << distance << "\n" << md;
  const std::string punctuation = fixed(csv_cell(csv / "per_layer.csv", "1", "separators_punctuation_share"), 3);
  EXPECT_NE(md.find("| tiny | " + punctuation + " |"), std::string::npos) << punctuation;
  const std::string first = fixed(csv_cell(csv / "per_layer.csv", "0", "first_column_share"), 3);
  EXPECT_NE(md.find("| tiny | " + first + " (rank "), std::string::npos) << first;
  EXPECT_NE(md.find("![" + paper_findings()[0].claim + "](r-figures/first-token.png)"), std::string::npos);
  EXPECT_NE(md.find("tiny: " + std::to_string(outcome.windows) + " windows of 16 tokens"), std::string::npos);
}

TEST(FindingsReport, NeedsARun) { EXPECT_THROW(make_report({}), Error); }

}  // namespace
}  // namespace attnscope
