// attnscope-cli report: a model's corpus run made once and reused, two models side by side, a
// corpus result given as a file, and one line for every bad request.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_runner.h"

namespace attnscope {
namespace {

using namespace test;

class CliReport : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    std::string text;
    for (int i = 0; i < 6; ++i) text += "The cat sat on the mat, and the dog sat too. A bird sang! ";
    write_text(dir_ / "corpus.txt", text);
  }
  Outcome report(std::vector<std::string> args) {
    std::vector<std::string> all{"report", "--input", (dir_ / "corpus.txt").string(), "--max-len", "16"};
    all.insert(all.end(), args.begin(), args.end());
    return run_cli(all);
  }
};

TEST_F(CliReport, RunsOnceThenReusesTheRun) {
  const std::string out = (dir_ / "r.pdf").string();
  const Outcome first = report({"--model", tiny(), "--out", out});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("corpus run into"), std::string::npos) << first.err;
  EXPECT_NE(first.out.find("1. In the first layer"), std::string::npos) << first.out;
  EXPECT_EQ(slurp(out).substr(0, 5), "%PDF-");
  EXPECT_NE(slurp(dir_ / "r.md").find("| finding | paper, BERT-base | tiny |"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "r-figures" / "separators.png"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "r-runs" / "tiny.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "r-runs" / "tiny-csv" / "per_layer.csv"));
  // The command the Markdown gives for a finding's paper-style figure runs as written.
  const std::string md = slurp(dir_ / "r.md"), lead = "`attnscope-cli figure ";
  const size_t at = md.find(lead);
  ASSERT_NE(at, std::string::npos);
  std::istringstream words(md.substr(at + lead.size(), md.find('`', at + 1) - at - lead.size()));
  std::vector<std::string> figure{"figure"};
  for (std::string w; words >> w;) figure.push_back(w);
  figure.back() = (dir_ / "paper-style.png").string();
  const Outcome drawn = run_cli(figure);
  EXPECT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "paper-style.png"));

  const Outcome again = report({"--model", tiny(), "--out", out});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("reusing the corpus run"), std::string::npos) << again.err;
  EXPECT_EQ(again.out, first.out);  // the same numbers and verdicts
  // Other settings are another run: made anew.
  const Outcome other = report({"--model", tiny(), "--out", out, "--tau", "0.5"});
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_NE(other.err.find("corpus run into"), std::string::npos) << other.err;
}

TEST_F(CliReport, ModelsSideBySideAndSavedRuns) {
  ASSERT_EQ(run_cli({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--max-len", "16", "--out",
                     (dir_ / "c.json").string()})
                .status,
            0);
  const Outcome o =
      report({"--corpus", (dir_ / "c.json").string(), "--model", tiny(), "--out", (dir_ / "two.pdf").string()});
  ASSERT_EQ(o.status, 0) << o.err;
  // The saved run and the run made here are the same run: the same numbers in both columns.
  const std::string md = slurp(dir_ / "two.md");
  EXPECT_NE(md.find("| finding | paper, BERT-base | tiny | tiny |"), std::string::npos) << md;
  const auto first_rows = [&](const std::string& text) {
    const size_t at = text.find("| tiny | ");
    return text.substr(at, text.find('\n', at) - at);
  };
  const size_t table = md.find("## 1.");
  const std::string rows = md.substr(table, md.find("![", table) - table);
  const size_t second = rows.find("| tiny | ", rows.find("| tiny | ") + 1);
  ASSERT_NE(second, std::string::npos) << rows;
  EXPECT_EQ(first_rows(rows), first_rows(rows.substr(second)));
}

TEST_F(CliReport, ADamagedRunIsMadeAgainAndOneNameTwiceKeepsBothRuns) {
  std::filesystem::create_directories(dir_ / "d-runs");
  write_text(dir_ / "d-runs" / "tiny.json", "{\"format\": \"attnscope.corpus\"");
  const Outcome o = report({"--model", tiny(), "--model", tiny(), "--out", (dir_ / "d.pdf").string()});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("cannot be reused"), std::string::npos) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "d-runs" / "tiny-2.json"));
  EXPECT_NE(slurp(dir_ / "d.md").find("| finding | paper, BERT-base | tiny | tiny-2 |"), std::string::npos);
}

TEST_F(CliReport, BadRequestsGetOneLine) {
  expect_one_line_error({"report", "--out", (dir_ / "r.pdf").string()}, "--model");
  expect_one_line_error({"report", "--model", tiny(), "--out", (dir_ / "r.png").string()}, ".pdf");
  expect_one_line_error({"report", "--corpus", (dir_ / "none.json").string(), "--out", (dir_ / "r.pdf").string()},
                        "none.json");
  expect_one_line_error({"report", "--model", (dir_ / "no-model").string(), "--input", (dir_ / "corpus.txt").string(),
                         "--out", (dir_ / "r.pdf").string()},
                        "no-model");
}

}  // namespace
}  // namespace attnscope
