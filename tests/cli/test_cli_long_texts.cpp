// Long texts from the command line (--maps-up-to): a text past the length keeps queries and keys,
// not maps, and analyze, heads, stats, pairs and figure print exactly what they print with every map kept
// (the real MiniLM at 512 tokens); what needs the maps is refused in one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"

namespace attnscope {
namespace {

using namespace test;

class CliLongText : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    std::string text;
    for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "assets" / "corpus"))
      text += slurp(entry.path()) + "\n";
    file_ = (dir_.path() / "long.txt").string();
    std::ofstream(file_) << text;
  }
  std::vector<std::string> args(const std::vector<std::string>& command, bool long_text) const {
    std::vector<std::string> a = command;
    a.insert(a.end(), {"--model", minilm_dir().string(), "--file", file_, "--max-len", "512"});
    if (long_text) a.insert(a.end(), {"--maps-up-to", "100"});
    return a;
  }
  std::string file_;
};

TEST_F(CliLongText, PrintsWhatEveryMapKeptPrints) {
  for (const auto& command : std::vector<std::vector<std::string>>{
           {"heads", "--json"}, {"stats"}, {"pairs", "--layer", "5", "--head", "0"}}) {
    const Outcome long_text = run_cli(args(command, true)), maps = run_cli(args(command, false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    EXPECT_EQ(long_text.out, maps.out) << command.front();
  }
  const Outcome long_text = run_cli(args({"analyze", "--out", "-", "--captures", "none"}, true));
  const Outcome maps = run_cli(args({"analyze", "--out", "-", "--captures", "none"}, false));
  ASSERT_EQ(long_text.status, 0) << long_text.err;
  nlohmann::json a = nlohmann::json::parse(long_text.out), b = nlohmann::json::parse(maps.out);
  EXPECT_EQ(a["analysis"], b["analysis"]);
  EXPECT_EQ(a["head_roles"], b["head_roles"]);
}

// The overview (made again block by block of rows) and figure 5 (a head's maps and S made again)
// draw the same SVG as with every map kept.
TEST_F(CliLongText, DrawsTheFiguresEveryMapKeptDraws) {
  for (const std::string figure : {"grid", "5"}) {
    const std::string long_svg = (dir_.path() / ("long-" + figure + ".svg")).string(),
                      maps_svg = (dir_.path() / ("maps-" + figure + ".svg")).string();
    const Outcome long_text = run_cli(args({"figure", "--fig", figure, "--layer", "4", "--out", long_svg}, true));
    const Outcome maps = run_cli(args({"figure", "--fig", figure, "--layer", "4", "--out", maps_svg}, false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    EXPECT_EQ(slurp(long_svg), slurp(maps_svg)) << figure;
  }
  expect_one_line_error(args({"figure", "--fig", "head", "--matrix", "norm", "--out", "x.svg"}, true), "lens");
}

TEST_F(CliLongText, RefusesWhatNeedsEveryMapInOneLine) {
  expect_one_line_error(args({"analyze", "--out", (dir_.path() / "r.safetensors").string()}, true), "--captures none");
  expect_one_line_error(args({"stats", "--words"}, true), "words");
  expect_one_line_error(args({"stats", "--separators-from", "norm"}, true), "lens");
  expect_one_line_error(args({"pairs", "--layer", "0", "--head", "0", "--pairs-from", "attention"}, true), "S");
  expect_one_line_error(args({"stats", "--maps-up-to", "-3"}, false), "maps-up-to");
}

}  // namespace
}  // namespace attnscope
