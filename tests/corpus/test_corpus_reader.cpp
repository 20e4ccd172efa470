// Reading a corpus: files, JSON Lines, folders; chunks that end at white space; bad input.
#include <gtest/gtest.h>

#include "corpus/corpus_reader.h"
#include "corpus/window_stream.h"
#include "tokenizer/bert_tokenizer.h"
#include "base/error.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

std::vector<std::pair<std::string, bool>> chunks(CorpusReader& reader) {
  std::vector<std::pair<std::string, bool>> out;
  std::string chunk;
  bool new_document = false;
  while (reader.next(chunk, new_document)) out.emplace_back(chunk, new_document);
  return out;
}

TEST(CorpusReader, ATextFileIsOneDocumentInChunksCutAtWhiteSpace) {
  const test::TempDir dir;
  test::write_text(dir / "a.txt", "alpha beta gamma delta epsilon");
  CorpusReader reader(dir / "a.txt", 8);
  const auto got = chunks(reader);
  std::string joined;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].second, i == 0);
    if (i + 1 < got.size()) EXPECT_TRUE(std::isspace(static_cast<unsigned char>(got[i].first.back()))) << got[i].first;
    joined += got[i].first;
  }
  EXPECT_EQ(joined, "alpha beta gamma delta epsilon");
  EXPECT_EQ(reader.total_bytes(), 30u);
}

TEST(CorpusReader, JsonLinesRecordsAreDocumentsAndFoldersAreSorted) {
  const test::TempDir dir;
  std::filesystem::create_directories(dir / "c" / "sub");
  test::write_text(dir / "c" / "b.jsonl", "{\"text\": \"second\"}\n\n{\"text\": \"third\", \"id\": 3}\n");
  test::write_text(dir / "c" / "a.txt", "first");
  test::write_text(dir / "c" / "sub" / "z.txt", "fourth");
  test::write_text(dir / "c" / ".hidden", "never");
  CorpusReader reader(dir / "c");
  const auto got = chunks(reader);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].first, "first");
  EXPECT_EQ(got[1].first, "second");
  EXPECT_EQ(got[2].first, "third");
  EXPECT_EQ(got[3].first, "fourth");
  for (const auto& c : got) EXPECT_TRUE(c.second);
}

TEST(CorpusReader, BadInputNamesTheFileAndLine) {
  const test::TempDir dir;
  EXPECT_THROW(CorpusReader(dir / "absent.txt"), Error);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_THROW(CorpusReader(dir / "empty"), Error);
  test::write_text(dir / "bad.jsonl", "{\"text\": \"ok\"}\n{\"txt\": \"no\"}\n");
  CorpusReader reader(dir / "bad.jsonl");
  try {
    chunks(reader);
    FAIL() << "a record without text was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl line 2"), std::string::npos) << e.what();
  }
  test::write_text(dir / "broken.jsonl", "{\"text\": \n");
  CorpusReader broken(dir / "broken.jsonl");
  EXPECT_THROW(chunks(broken), Error);
}

class Windows : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_.path(), {});
    tokenizer_ = load_bert_tokenizer(dir_.path());
  }
  std::vector<Encoding> windows(const std::filesystem::path& input, size_t window, size_t chunk = 1 << 16,
                                const Tokenizer* tokenizer = nullptr) {
    CorpusReader reader(input, chunk);
    WindowStream stream(reader, tokenizer ? *tokenizer : *tokenizer_, window);
    std::vector<Encoding> out;
    Encoding e;
    while (stream.next(e)) out.push_back(e);
    return out;
  }
  test::TempDir dir_;
  std::unique_ptr<TokenizerPipeline> tokenizer_;
};

TEST_F(Windows, DocumentsAreCutIntoWindowsOfNMinusTwoPieces) {
  test::write_text(dir_ / "doc.txt", "the cat sat on the mat . the dog sat on the mat .");  // 14 pieces
  const auto w = windows(dir_ / "doc.txt", 6);  // 4 pieces a window: 4 + 4 + 4 + 2
  ASSERT_EQ(w.size(), 4u);
  for (const auto& e : w) {
    EXPECT_EQ(e.tokens.front().text, "[CLS]");
    EXPECT_EQ(e.tokens.back().text, "[SEP]");
  }
  EXPECT_EQ(w[0].size(), 6u);
  EXPECT_EQ(w[1].tokens[2].text, "mat");  // the second window: the mat . the
  EXPECT_EQ(w[3].size(), 4u);             // the last, shorter window is kept
}

// A decoder's template adds a start token or nothing: its windows fill all N positions with the
// pieces that fit (METHOD.md, Decoders), not N - 2 as BERT's [CLS] ... [SEP] leave.
TEST_F(Windows, ADecodersWindowsFillEveryPositionTheTemplateLeaves) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "the cat sat on the mat. ";
  test::write_text(dir_ / "doc.txt", text);
  for (const auto& [name, added] : {std::pair<std::string, size_t>{"llama3_split_bpe", 1}, {"qwen2_split_bpe", 0}}) {
    const auto tokenizer = load_tokenizer(test::golden_dir() / "tokenizers" / name);
    const size_t pieces = tokenizer->tokenize(text).size();
    const auto w = windows(dir_ / "doc.txt", 16, 1 << 16, tokenizer.get());
    ASSERT_GE(w.size(), 2u) << name;
    size_t seen = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      if (k + 1 < w.size()) EXPECT_EQ(w[k].size(), 16u) << name << " window " << k;
      EXPECT_EQ(w[k].tokens.front().special, added == 1) << name;
      seen += w[k].size() - added;
    }
    EXPECT_EQ(seen, pieces) << name;                                                          // every piece once
    EXPECT_THROW(windows(dir_ / "doc.txt", added, 1 << 16, tokenizer.get()), Error) << name;  // no room for a piece
  }
}

TEST_F(Windows, WindowsNeverCrossDocumentsAndChunkingChangesNothing) {
  test::write_text(dir_ / "docs.jsonl", "{\"text\": \"the cat sat\"}\n{\"text\": \"a dog sat on a mat\"}\n");
  const auto w = windows(dir_ / "docs.jsonl", 6);
  ASSERT_EQ(w.size(), 3u);  // 3 pieces; then 6 pieces = 4 + 2
  EXPECT_EQ(w[0].size(), 5u);
  EXPECT_EQ(w[1].tokens[1].text, "a");
  std::string text;
  for (int i = 0; i < 50; ++i) text += "the cats sat on the mats . ";
  test::write_text(dir_ / "long.txt", text);
  const auto whole = windows(dir_ / "long.txt", 16), chunked = windows(dir_ / "long.txt", 16, 7);
  ASSERT_EQ(whole.size(), chunked.size());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(whole[i].ids(), chunked[i].ids());
}

}  // namespace
}  // namespace attnscope
