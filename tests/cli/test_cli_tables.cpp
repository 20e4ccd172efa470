// The command line's text tables on Gemma 3's SentencePiece vocabulary, which holds tabs and line
// breaks as pieces of their own: every token still one row, its columns where the header puts them.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_runner.h"
#include "support/paths.h"
#include "tokenizer/utf8.h"

namespace attnscope {
namespace {

using namespace test;

std::vector<std::string> lines_of(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(Cli, TablesOfPiecesThatAreLineBreaksKeepOneRowEach) {
  const auto model = real_model_file("models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf");
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  const std::string text = "a\tb\n\nc d";
  const Outcome tokens = run_cli({"tokenize", "--model", model.string(), "--text", text});
  ASSERT_EQ(tokens.status, 0) << tokens.err;
  const std::vector<std::string> rows = lines_of(tokens.out);
  ASSERT_EQ(rows.size(), 8u) << tokens.out;  // the header, <bos>, a, \t, b, \n\n, c, ▁d
  EXPECT_NE(rows[3].find("  \\t  "), std::string::npos) << rows[3];
  EXPECT_NE(rows[5].find("  \\n\\n  "), std::string::npos) << rows[5];
  for (const std::string& row : rows)  // the bytes column starts where the header's does
    EXPECT_EQ(count_code_points(row.substr(0, row.rfind(' ') + 1)), count_code_points(rows[0].substr(0, 37))) << row;
  EXPECT_EQ(rows[0].substr(37), "bytes");

  const Outcome pairs =
      run_cli({"pairs", "--model", model.string(), "--text", text, "--layer", "0", "--head", "0", "--tau", "1e-9"});
  ASSERT_EQ(pairs.status, 0) << pairs.err;
  const std::vector<std::string> pair_rows = lines_of(pairs.out);
  ASSERT_EQ(pair_rows.size(), 2u + 7 * 6 / 2) << pairs.out;  // a title, a header, the 21 pairs of 7 tokens
  bool line_break = false;
  for (size_t k = 1; k < pair_rows.size(); ++k) {
    line_break |= pair_rows[k].find("\u21b5\u21b5 ") != std::string::npos;
    EXPECT_EQ(count_code_points(pair_rows[k]), count_code_points(pair_rows[1])) << pair_rows[k];
  }
  EXPECT_TRUE(line_break) << "the blank line's piece shown as two line breaks";
}

}  // namespace
}  // namespace attnscope
