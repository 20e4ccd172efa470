// attnscope-cli compare and the figures of two runs: two texts or two models (table, JSON, CSV,
// figures, agreement with an independent implementation), and two corpus results side by side.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_runner.h"
#include "support/modified_checkpoint.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

using namespace test;

class CliCompare : public Cli {};

TEST_F(CliCompare, TwoTextsAsATableJsonAndCsv) {
  const std::vector<std::string> runs{
      "compare", "--model", tiny(), "--text", "the cat sat. the dog sat.", "--text-b", "the cat ran. the dog sat."};
  const Outcome table = run_cli(runs);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("share 9 tokens"), std::string::npos) << table.out;
  // One model on two texts keeps its heads' identity: nothing is matched, so no column says so.
  EXPECT_EQ(table.out.find("match (CKA)"), std::string::npos) << table.out;
  auto json_args = runs;
  json_args.push_back("--json");
  const Outcome json = run_cli(json_args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json c = nlohmann::json::parse(json.out);
  EXPECT_FALSE(c["alignment"]["identical"].get<bool>());
  EXPECT_EQ(c["heads"].size(), 4u);  // the tiny model: 2 layers x 2 heads
  EXPECT_TRUE(c["heads"][0]["attention_cosine"].is_null());
  EXPECT_TRUE(c["heads"][0]["cka"].is_number());
  auto csv_args = runs;
  csv_args.push_back("--csv");
  const Outcome csv = run_cli(csv_args);
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("layer,head,", 0), 0u) << csv.out.substr(0, 80);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 5);
  test::write_text(dir_ / "compare.csv", csv.out);
  const std::string check =
      test::venv_python().string() +
      " -c \"import pandas as pd, sys; t = pd.read_csv(sys.argv[1]); "
      "assert len(t) == 4 and t['cka'].between(0, 1.000001).all() and t['attention_cosine'].isna().all()\" " +
      (dir_ / "compare.csv").string();
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
}

// A long text's counts (most pairs of 512 tokens at tau 1e-9: over 100,000 on each side) are wider
// than the pairs column's least width: every row's cells still end under their header's.
TEST_F(CliCompare, LargeCountsKeepTheTablesColumnsInLine) {
  const std::string text = slurp(source_dir() / "assets/corpus/04-railway.txt");
  const Outcome table = run_cli({"compare", "--model", test::minilm_dir().string(), "--text", text, "--text-b",
                                 "A " + text, "--max-len", "512", "--tau", "1e-9", "--layer", "0"});
  ASSERT_EQ(table.status, 0) << table.err;
  std::istringstream in(table.out);
  std::string header;
  while (std::getline(in, header) && header.rfind("layer", 0) != 0) {
  }
  const size_t anchor = header.find("  anchor");
  ASSERT_NE(anchor, std::string::npos) << table.out;
  int rows = 0;
  for (std::string row; std::getline(in, row) && !row.empty(); ++rows) {
    std::istringstream cells(row);
    std::string pairs;
    for (int k = 0; k < 8; ++k) cells >> pairs;  // the eighth column: "A's->B's"
    EXPECT_GT(pairs.size(), 11u) << row;
    EXPECT_EQ(row.substr(anchor, 2), "  ") << row << "\n" << header;
    EXPECT_NE(row[anchor - 1], ' ') << row << "\n" << header;
  }
  EXPECT_EQ(rows, 12);
}

// Models of different shapes: the table's match is the head of B with the largest CKA among all of
// B's heads, as the JSON's all_heads_cka row of that head of A has it.
TEST_F(CliCompare, ModelsOfDifferentShapesMatchEachHeadToItsBestAnywhere) {
  const std::vector<std::string> runs{
      "compare", "--model", tiny(), "--model-b", test::minilm_dir().string(), "--text", "the cat sat. the dog sat."};
  const Outcome table = run_cli(runs);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("differ in shape: the table covers the 2 layers x 2 heads both have (A 2 x 2, B 6 x 12)"),
            std::string::npos)
      << table.out;
  auto json_args = runs;
  json_args.push_back("--json");
  const Outcome json = run_cli(json_args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json all = nlohmann::json::parse(json.out)["all_heads_cka"];
  ASSERT_EQ(all.size(), 4u);  // the tiny model's 2 x 2 heads against MiniLM's 6 x 12
  for (int a = 0; a < 4; ++a) {
    ASSERT_EQ(all[a].size(), 72u);
    int best = 0;
    for (int b = 1; b < 72; ++b)
      if (all[a][b].get<double>() > all[a][best].get<double>()) best = b;
    char cell[64];
    std::snprintf(cell, sizeof cell, " %d.%d (%.3f)\n", best / 12, best % 12, all[a][best].get<double>());
    EXPECT_NE(table.out.find(cell), std::string::npos) << "head " << a << ": " << cell << table.out;
  }
}

TEST_F(CliCompare, BadInputsGetOneClearLine) {
  expect_one_line_error({"compare", "--model", tiny(), "--text", "x"}, "second run");
  expect_one_line_error({"compare", "--model", tiny(), "--text", "x", "--model-b", (dir_ / "absent").string()},
                        "not a folder");
  expect_one_line_error({"compare", "--model", tiny(), "--text", "x", "--text-b", "y", "--file-b", "z"}, "not both");
  expect_one_line_error({"compare", "--model", tiny(), "--text", "x", "--text-b", "y", "--json", "--csv"}, "excludes");
  expect_one_line_error({"compare", "--model", tiny(), "--text", "x", "--text-b", "y", "--layer", "9"}, "not in both");
  expect_one_line_error(
      {"figure", "--model", tiny(), "--text", "x", "--text-b", "y", "--fig", "10", "--out", (dir_ / "f.svg").string()},
      "no comparison figure");
}

TEST_F(CliCompare, FiguresOfTwoRuns) {
  for (const char* fig : {"head", "changed", "stats", "5", "9", "12", "lines"}) {
    const std::string out = (dir_ / (std::string(fig) + ".svg")).string();
    const Outcome o = run_cli({"figure", "--model", tiny(), "--text", "the cat sat. the dog sat.", "--text-b",
                               "the cat sat. the dog ran.", "--fig", fig, "--layer", "1", "--head", "0", "--out", out});
    ASSERT_EQ(o.status, 0) << fig << ": " << o.err;
  }
  EXPECT_NE(slurp(dir_ / "head.svg").find("Compared: attention, layer 1, head 0"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "changed.svg").find("1 - CKA"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "stats.svg").find("repeat (text B)"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "5.svg").find("text B: "), std::string::npos) << "B's separators beside A's";
  const std::string same = (dir_ / "same.svg").string();  // the same tokens: the difference map too
  ASSERT_EQ(run_cli({"figure", "--model", tiny(), "--text", "the cat sat.", "--model-b", tiny(), "--fig", "head",
                     "--out", same})
                .status,
            0);
  EXPECT_NE(slurp(same).find(">B - A<"), std::string::npos);
  const std::string pdf = (dir_ / "head.pdf").string();
  ASSERT_EQ(run_cli({"figure", "--model", tiny(), "--text", "the cat sat.", "--model-b", tiny(), "--fig", "head",
                     "--out", pdf})
                .status,
            0);
  EXPECT_GT(std::filesystem::file_size(pdf), 1000u);
}

// MiniLM against a copy with noise in its weights: the command line's measures agree with
// tools/reference_compare.py, written from docs/compare.md on transformers' outputs (1e-5).
TEST_F(CliCompare, AgreesWithAnIndependentImplementation) {
  test::write_modified_checkpoint(test::minilm_dir(), dir_ / "noisy", test::add_noise(0.05, 3));
  const std::string text =
      "The keeper lit the lamp. Ships passed the rocks, and the keeper wrote their names in the log.";
  const Outcome o = run_cli({"compare", "--model", test::minilm_dir().string(), "--model-b", (dir_ / "noisy").string(),
                             "--text", text, "--json"});
  ASSERT_EQ(o.status, 0) << o.err;
  test::write_text(dir_ / "compare.json", o.out);
  const Outcome reference =
      run({test::venv_python().string(), (test::source_dir() / "tools" / "reference_compare.py").string(), "--model-a",
           test::minilm_dir().string(), "--model-b", (dir_ / "noisy").string(), "--text", text, "--json",
           (dir_ / "compare.json").string()});
  EXPECT_EQ(reference.status, 0) << reference.out << reference.err;
  const nlohmann::json c = nlohmann::json::parse(o.out);
  double change = 0;
  for (const auto& head : c["heads"]) change += 1 - head["cka"].get<double>();
  EXPECT_GT(change / 72, 0.001) << "the noise changed nothing";
}

class CliCorpusCompare : public Cli {};

TEST_F(CliCorpusCompare, TwoCorpusResultsSideBySideAsPdfAndSvg) {
  std::string text_a, text_b;
  for (int k = 0; k < 20; ++k)
    text_a += "The cat sat on the mat. The dog ran. ", text_b += "A bird flew over the old house, and it sang. ";
  test::write_text(dir_ / "a.txt", text_a);
  test::write_text(dir_ / "b.txt", text_b);
  for (const char* name : {"a", "b"})
    ASSERT_EQ(run_cli({"corpus", "--model", tiny(), "--input", (dir_ / (std::string(name) + ".txt")).string(),
                       "--max-len", "16", "--out", (dir_ / (std::string(name) + ".json")).string()})
                  .status,
              0);
  const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string();
  for (const char* fig : {"2", "3", "6", "7", "8", "10", "11", "13"}) {
    const Outcome o = run_cli(
        {"figure", "--corpus", a, "--corpus-b", b, "--fig", fig, "--layer", "1", "--out", (dir_ / "c.svg").string()});
    EXPECT_EQ(o.status, 0) << fig << ": " << o.err;
  }
  ASSERT_EQ(
      run_cli({"figure", "--corpus", a, "--corpus-b", b, "--fig", "6", "--out", (dir_ / "c.svg").string()}).status, 0);
  const std::string svg = slurp(dir_ / "c.svg");
  EXPECT_NE(svg.find(">A ("), std::string::npos) << "A's legend";
  EXPECT_NE(svg.find(">B ("), std::string::npos) << "B's legend";
  const std::string pdf = (dir_ / "c.pdf").string();
  ASSERT_EQ(run_cli({"figure", "--corpus", a, "--corpus-b", b, "--fig", "2", "--out", pdf}).status, 0);
  EXPECT_EQ(slurp(pdf).rfind("%PDF", 0), 0u);
  expect_one_line_error({"figure", "--corpus-b", b, "--fig", "6", "--out", pdf}, "give both");
  expect_one_line_error({"figure", "--corpus", a, "--corpus-b", b, "--fig", "9", "--out", pdf},
                        "does not compare corpus runs");
}

}  // namespace
}  // namespace attnscope
