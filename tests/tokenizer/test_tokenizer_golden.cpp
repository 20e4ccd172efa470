// Token ids and byte ranges identical to the reference (transformers' BertTokenizer) on 370
// diverse strings, with the MiniLM (uncased) vocabulary, lower-cased and cased.
#include <gtest/gtest.h>

#include "support/paths.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/utf8.h"

namespace attnscope {
namespace {

std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text)
    out += (c < 32 || c == 127) ? "\\x" + std::to_string(c) : std::string(1, static_cast<char>(c));
  return out;
}

TEST(TokenizerGolden, IdsAndByteRangesMatchTheReference) {
  const auto& cases = test::golden("tokenizer_cases.json")["cases"];
  ASSERT_GE(cases.size(), 600u);
  const Vocab vocab = Vocab::load(test::minilm_dir() / "vocab.txt");
  NormalizerOptions cased;
  cased.lowercase = cased.strip_accents = false;
  const auto lower = bert_tokenizer(vocab, NormalizerOptions{}), upper = bert_tokenizer(vocab, cased);

  int failures = 0;
  for (const auto& c : cases) {
    const auto text = c["text"].get<std::string>();
    const Tokenizer& tokenizer = c["lowercase"].get<bool>() ? *lower : *upper;
    const Encoding e = tokenizer.encode(text, 512);
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    bool ok = e.ids() == ids;
    for (size_t i = 0; ok && i < ids.size(); ++i) {
      if (c["added"][i].get<bool>()) continue;  // the reference gives added [CLS]/[SEP] no range
      ok = e.tokens[i].begin == c["offsets"][i][0].get<uint32_t>() &&
           e.tokens[i].end == c["offsets"][i][1].get<uint32_t>();
    }
    if (!ok && ++failures <= 10) {
      std::string ours;
      for (const Token& t : e.tokens)
        ours += " " + std::to_string(t.id) + "@" + std::to_string(t.begin) + "-" + std::to_string(t.end);
      ADD_FAILURE() << "\"" << printable(text) << "\" (lowercase " << c["lowercase"] << ")\n  reference "
                    << c["ids"].dump() << " " << c["offsets"].dump() << "\n  ours     " << ours;
    }
  }
  EXPECT_EQ(failures, 0);
}

// Longer than the segments the tokenizer normalises at a time (TokenizerPipeline::kSegmentChars): the
// pieces of a long text are those of the reference, wherever the segments end.
TEST(TokenizerGolden, ALongTextMatchesTheReferenceAcrossSegments) {
  const auto& golden = test::golden("tokenizer_long_text.json");
  const auto text = golden["text"].get<std::string>();
  ASSERT_GT(count_code_points(text), 5 * TokenizerPipeline::kSegmentChars);
  const Vocab vocab = Vocab::load(test::minilm_dir() / "vocab.txt");
  NormalizerOptions cased;
  cased.lowercase = cased.strip_accents = false;
  const auto lower = bert_tokenizer(vocab, NormalizerOptions{}), upper = bert_tokenizer(vocab, cased);
  for (const auto& c : golden["cases"]) {
    const Encoding e = (c["lowercase"].get<bool>() ? *lower : *upper).encode(text, 1 << 20);
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    ASSERT_EQ(e.ids().size(), ids.size()) << "lowercase " << c["lowercase"];
    for (size_t i = 1; i + 1 < ids.size(); ++i) {  // [CLS] and [SEP] have no range in the reference
      ASSERT_EQ(e.tokens[i].id, ids[i]) << "token " << i << ", lowercase " << c["lowercase"];
      ASSERT_EQ(e.tokens[i].begin, c["offsets"][i][0].get<uint32_t>()) << "token " << i;
      ASSERT_EQ(e.tokens[i].end, c["offsets"][i][1].get<uint32_t>()) << "token " << i;
    }
  }
}

}  // namespace
}  // namespace attnscope
