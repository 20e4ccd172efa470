// attnscope-cli figure: every format from a text (every lens, words, the query/key view) and the
// corpus figures from a saved run; bad requests get one line.
#include <gtest/gtest.h>

#include "cli/cli_runner.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

using namespace test;

class CliFigure : public Cli {};

TEST_F(CliFigure, WritesEveryFormatFromAText) {
  for (const char* ext : {".png", ".svg", ".pdf"}) {
    const std::string out = (dir_ / (std::string("fig5") + ext)).string();
    const Outcome o = run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--fig", "5",
                               "--layer", "1", "--head", "1", "--out", out});
    ASSERT_EQ(o.status, 0) << o.err;
    ASSERT_TRUE(std::filesystem::exists(out)) << ext;
    EXPECT_GT(std::filesystem::file_size(out), 1000u) << ext;
  }
  const std::string svg = slurp(dir_ / "fig5.svg");
  EXPECT_NE(svg.find("separators of layer 1, head 1"), std::string::npos);
  EXPECT_NE(svg.find(">cat</text>"), std::string::npos);
  for (const char* fig : {"4", "9", "stats", "12", "13", "grid", "head", "lines", "qk"}) {
    const Outcome o = run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--fig", fig,
                               "--out", (dir_ / "f.png").string(), "--png-scale", "1"});
    EXPECT_EQ(o.status, 0) << fig << ": " << o.err;
  }
  // Every lens, and words, where a matrix is chosen.
  for (const char* matrix : {"norm", "rollout"})
    for (const char* fig : {"grid", "head"}) {
      const Outcome o = run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--fig", fig,
                                 "--matrix", matrix, "--out", (dir_ / "lens.svg").string()});
      EXPECT_EQ(o.status, 0) << matrix << " " << fig << ": " << o.err;
    }
  EXPECT_NE(slurp(dir_ / "lens.svg").find("attention rollout"), std::string::npos);
  ASSERT_EQ(run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--fig", "head", "--words",
                     "--out", (dir_ / "words.svg").string()})
                .status,
            0);
  expect_one_line_error({"figure", "--model", tiny(), "--text", "The cat sat.", "--fig", "head", "--matrix", "norm",
                         "--words", "--out", (dir_ / "w.svg").string()},
                        "did not capture");
  for (const char* from : {"norm", "rollout"}) {
    const Outcome o = run_cli(
        {"stats", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--separators-from", from, "--json"});
    EXPECT_EQ(o.status, 0) << from << ": " << o.err;
    EXPECT_NE(o.out.find(std::string("\"separators_from\":\"") + from), std::string::npos) << o.out.substr(0, 300);
  }
  // Pairs and statistics of another matrix (--matrix on pairs, stats and analyze; --pairs-from everywhere).
  for (const char* matrix : {"similarity", "cosine", "attention", "norm", "rollout"}) {
    const Outcome pairs = run_cli({"pairs", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--layer", "1",
                                   "--head", "0", "--matrix", matrix});
    EXPECT_EQ(pairs.status, 0) << matrix << ": " << pairs.err;
    const bool of_s = std::string(matrix) == "similarity";
    EXPECT_NE(pairs.out.find(of_s ? "S / max S" : "M / max M"), std::string::npos) << pairs.out;
    if (!of_s) EXPECT_NE(pairs.out.find(std::string("M: ") + matrix), std::string::npos) << pairs.out;
    const Outcome stats =
        run_cli({"stats", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--matrix", matrix, "--json"});
    EXPECT_EQ(stats.status, 0) << matrix << ": " << stats.err;
    EXPECT_NE(stats.out.find(std::string("\"pairs_from\":\"") + matrix), std::string::npos) << stats.out.substr(0, 300);
  }
  const Outcome fig9 = run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran.", "--fig", "9",
                                "--pairs-from", "attention", "--out", (dir_ / "fig9.svg").string()});
  EXPECT_EQ(fig9.status, 0) << fig9.err;
  EXPECT_NE(slurp(dir_ / "fig9.svg").find("pairs of attention"), std::string::npos);
  const Outcome strongest =
      run_cli({"figure", "--model", tiny(), "--text", "The cat sat. The dog ran to the mat.", "--fig", "9", "--tau",
               "0.01", "--strongest", "--out", (dir_ / "fig9-strongest.svg").string()});
  EXPECT_EQ(strongest.status, 0) << strongest.err;
  const std::string fig9_svg = slurp(dir_ / "fig9-strongest.svg");
  EXPECT_NE(fig9_svg.find("the 40 strongest)"), std::string::npos) << fig9_svg.substr(fig9_svg.find("Fig. 9"), 200);
  expect_one_line_error({"stats", "--model", tiny(), "--text", "The cat sat.", "--matrix", "values"}, "--matrix");
  expect_one_line_error({"stats", "--model", tiny(), "--text", "The cat sat.", "--matrix", "norm", "--words"},
                        "did not capture");
  test::write_text(dir_ / "few.txt", "The cat sat on the mat. The dog ran.");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", (dir_ / "few.txt").string(), "--max-len", "16",
                         "--words", "--out", (dir_ / "c.json").string()},
                        "corpus run takes its pairs");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", (dir_ / "few.txt").string(), "--max-len", "16",
                         "--pairs-from", "cosine", "--out", (dir_ / "c.json").string()},
                        "corpus run takes its pairs");
}

TEST_F(CliFigure, CorpusFiguresFromASavedRun) {
  std::string text;
  for (int k = 0; k < 30; ++k) text += "The cat sat on the mat. The dog ran. ";
  test::write_text(dir_ / "corpus.txt", text);
  const std::string result = (dir_ / "run.json").string();
  ASSERT_EQ(run_cli({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--max-len", "16", "--out",
                     result})
                .status,
            0);
  for (const char* fig : {"2", "3", "6", "7", "8", "10", "11", "13"}) {
    const std::string out = (dir_ / (std::string("c") + fig + ".svg")).string();
    const Outcome o = run_cli({"figure", "--corpus", result, "--fig", fig, "--out", out});
    ASSERT_EQ(o.status, 0) << fig << ": " << o.err;
    EXPECT_NE(slurp(out).find("Fig. " + std::string(fig)), std::string::npos) << fig;
  }
  EXPECT_NE(slurp(dir_ / "c3.svg").find("separator columns zeroed"), std::string::npos);
}

TEST_F(CliFigure, BadRequestsGetOneLine) {
  const std::string out = (dir_ / "f.png").string();
  expect_one_line_error({"figure", "--model", tiny(), "--text", "cat", "--fig", "99", "--out", out}, "figure \"99\"");
  expect_one_line_error({"figure", "--model", tiny(), "--text", "cat", "--fig", "2", "--out", out}, "--corpus");
  expect_one_line_error(
      {"figure", "--model", tiny(), "--text", "cat", "--fig", "5", "--out", (dir_ / "f.jpg").string()}, ".jpg");
  expect_one_line_error({"figure", "--text", "cat", "--fig", "5", "--out", out}, "--model");
  expect_one_line_error({"figure", "--model", tiny(), "--text", "cat", "--fig", "5", "--layer", "7", "--out", out},
                        "layer 7");
  expect_one_line_error({"figure", "--corpus", (dir_ / "missing.json").string(), "--fig", "2", "--out", out},
                        "missing.json");
  expect_one_line_error({"figure", "--model", tiny(), "--text", "cat", "--fig", "5", "--png-scale", "9", "--out", out},
                        "png-scale");
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace attnscope
