// The commands on encoders other than BERT, as a new user would try them.
#include <gtest/gtest.h>

#include "cli/cli_runner.h"
#include "support/nested_tensor.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

using namespace test;

// The commands on encoders other than BERT, as a new user would try them: a RoBERTa-style and a
// ModernBERT-style checkpoint folder (tokenizer.json, no vocab.txt; tests/golden/checkpoints).
class CliEncoders : public ::testing::TestWithParam<std::string> {
 protected:
  std::string model() const { return (test::golden_dir() / "checkpoints" / GetParam()).string(); }
  test::TempDir dir_;
};

TEST_P(CliEncoders, TokenizeStatsPairsFigureAndCorpus) {
  const std::string text = "The keeper climbed the stairs. He lit the lamp at dusk!";
  const Outcome tokens = run_cli({"tokenize", "--model", model(), "--text", text, "--json"});
  ASSERT_EQ(tokens.status, 0) << tokens.err;
  const auto json = nlohmann::json::parse(tokens.out);
  ASSERT_GT(json["tokens"].size(), 5u);
  EXPECT_TRUE(json["tokens"][0]["special"].get<bool>());
  const Outcome stats = run_cli({"stats", "--model", model(), "--text", text, "--json"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  const Outcome pairs = run_cli({"pairs", "--model", model(), "--text", text, "--layer", "1", "--head", "0"});
  ASSERT_EQ(pairs.status, 0) << pairs.err;
  EXPECT_EQ(pairs.out.find("\u0120"), std::string::npos) << "a byte-level marker was printed:\n" << pairs.out;
  EXPECT_EQ(pairs.out.find("\u2581"), std::string::npos) << "a SentencePiece marker was printed:\n" << pairs.out;
  const std::string svg = (dir_ / "lines.svg").string();
  const Outcome figure = run_cli(
      {"figure", "--model", model(), "--text", text, "--fig", "5", "--layer", "2", "--head", "1", "--out", svg});
  ASSERT_EQ(figure.status, 0) << figure.err;
  EXPECT_NE(slurp(svg).find(">keeper</text>"), std::string::npos);  // "Ġkeeper" shown as the word it starts
  std::string corpus;
  for (int k = 0; k < 20; ++k) corpus += text + " ";
  test::write_text(dir_ / "corpus.txt", corpus);
  const Outcome run = run_cli({"corpus", "--model", model(), "--input", (dir_ / "corpus.txt").string(), "--max-len",
                               "24", "--batch", "4", "--out", (dir_ / "c.json").string()});
  ASSERT_EQ(run.status, 0) << run.err;
  const Outcome fig2 =
      run_cli({"figure", "--corpus", (dir_ / "c.json").string(), "--fig", "2", "--out", (dir_ / "c2.svg").string()});
  EXPECT_EQ(fig2.status, 0) << fig2.err;
}

INSTANTIATE_TEST_SUITE_P(Architectures, CliEncoders,
                         ::testing::Values("roberta", "modernbert", "xlm-roberta", "albert"),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(CliEncoderErrors, AnUnsupportedModelTypeIsOneLine) {
  const test::TempDir dir;
  std::filesystem::copy(test::golden_dir() / "checkpoints" / "roberta", dir.path(),
                        std::filesystem::copy_options::recursive);
  test::write_text(dir / "config.json", R"({"model_type": "funnel", "hidden_size": 32})");
  expect_one_line_error({"stats", "--model", dir.path().string(), "--text", "hello"},
                        "model_type \"funnel\" is not supported; attnscope reads bert, distilbert, roberta");
  std::filesystem::copy_file(test::golden_dir() / "checkpoints" / "roberta" / "config.json", dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  test::write_text(
      dir / "tokenizer.json",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}, "pre_tokenizer": {"type": "ByteLevel"}})");
  expect_one_line_error({"stats", "--model", dir.path().string(), "--text", "hello"},
                        "merge 0 (\"a\") is not two entries");
}

}  // namespace
}  // namespace attnscope
