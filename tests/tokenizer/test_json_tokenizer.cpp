// Tokenizers read from tokenizer.json give the ids and byte ranges of the Rust `tokenizers`
// library (PyPI) on several hundred strings: byte-level BPE vocabularies trained here and set up
// as RoBERTa, ModernBERT and GPT-2-style checkpoints ship theirs (tools/make_tokenizer_golden.py).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "base/error.h"
#include "analysis/sentences.h"
#include "tokenizer/tokenizer_pipeline.h"
#include "tokenizer/piece_text.h"
#include "tokenizer/tokenizer.h"
#include "support/paths.h"

namespace attnscope {
namespace {

class JsonTokenizerGolden : public ::testing::TestWithParam<std::string> {};

// Every token of every case: ids, byte ranges and which tokens the template added. Returns the
// number of byte ranges compared.
size_t expect_reference(const Tokenizer& tokenizer, const nlohmann::json& expected) {
  size_t checked = 0;
  for (const auto& c : expected["cases"]) {
    const std::string text = c["text"].get<std::string>();
    const Encoding e = tokenizer.encode(text, 100000);
    if (e.ids() != c["ids"].get<std::vector<int64_t>>()) {
      EXPECT_EQ(e.ids(), c["ids"].get<std::vector<int64_t>>()) << "text: \"" << text << "\"";
      continue;
    }
    for (size_t i = 0; i < e.tokens.size(); ++i) {
      const auto range = c["offsets"][i].get<std::vector<uint32_t>>();
      // The reference's special-token mask marks the template's tokens only; attnscope marks
      // special tokens typed in the text too (they are left out of the analysis alike).
      const bool added_by_template = c["special"][i] == 1;
      if (added_by_template) EXPECT_TRUE(e.tokens[i].special) << "text: \"" << text << "\" token " << i;
      if (added_by_template)
        continue;  // the reference puts them at (0, 0); attnscope's end token sits at the text's end
      EXPECT_EQ((std::vector<uint32_t>{e.tokens[i].begin, e.tokens[i].end}), range)
          << "text: \"" << text << "\" token " << i << " " << e.tokens[i].text;
      ++checked;
    }
  }
  return checked;
}

TEST_P(JsonTokenizerGolden, IdsAndByteRangesAreTheReferences) {
  const auto dir = test::golden_dir() / "tokenizers" / GetParam();
  const auto tokenizer = load_tokenizer(dir);  // WordPiece as BERT's configuration, the others as the file says
  const nlohmann::json expected = test::read_json(dir / "expected.json");
  ASSERT_GE(expected["cases"].size(), 300u);
  EXPECT_GT(expect_reference(*tokenizer, expected), 5000u);
}

// Every id the fixture's texts give is spelt back as the vocabulary spells it, the piece the
// tokenizer itself reported (next-token tables name ids no text gave). The unknown piece and the
// special tokens are left out (an unknown piece reports the text it stands for); each special id
// has its spelling.
int64_t unknown_id(const nlohmann::json& file) {
  const auto& model = file["model"];
  if (model.contains("unk_id")) return model["unk_id"].is_null() ? -1 : model["unk_id"].get<int64_t>();
  if (!model.contains("unk_token") || model["unk_token"].is_null()) return -1;
  const auto& vocab = model["vocab"];
  const auto it = vocab.find(model["unk_token"].get<std::string>());
  return it == vocab.end() ? -1 : it->get<int64_t>();
}

TEST_P(JsonTokenizerGolden, EachIdIsSpeltAsItsPiece) {
  const auto dir = test::golden_dir() / "tokenizers" / GetParam();
  const auto tokenizer = load_tokenizer(dir);
  std::vector<int64_t> special = tokenizer->special_ids();
  for (int64_t id : special) EXPECT_FALSE(tokenizer->piece(id).empty()) << "special id " << id;
  special.push_back(unknown_id(test::read_json(dir / "tokenizer.json")));
  size_t checked = 0;
  const nlohmann::json expected = test::read_json(dir / "expected.json");
  for (const auto& c : expected["cases"])
    for (const Token& t : tokenizer->encode(c["text"].get<std::string>(), 100000).tokens) {
      if (std::find(special.begin(), special.end(), t.id) != special.end()) continue;
      EXPECT_EQ(tokenizer->piece(t.id), t.text) << "id " << t.id;
      ++checked;
    }
  EXPECT_GT(checked, 1000u);
  EXPECT_EQ(tokenizer->piece(-1), "");
  EXPECT_EQ(tokenizer->piece(static_cast<int64_t>(tokenizer->vocab_size())), "");
}

// Strings in no fixture, drawn afresh by tools/tokenizer_parity.py and tokenized by the reference
// in the same run (ATTNSCOPE_PARITY_SEED chooses other strings).
TEST_P(JsonTokenizerGolden, HeldOutRandomStringsMatchTheReference) {
  const auto file = test::golden_dir() / "tokenizers" / GetParam() / "tokenizer.json";
  const char* seed = std::getenv("ATTNSCOPE_PARITY_SEED");
  const test::TempDir tmp;
  const std::string command = test::venv_python().string() + " " +
                              (test::source_dir() / "tools" / "tokenizer_parity.py").string() + " " + file.string() +
                              " " + (seed ? seed : "20261123") + " 300 > " + (tmp / "cases.json").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_GT(expect_reference(*load_tokenizer(file.parent_path()), test::read_json(tmp / "cases.json")), 1000u);
}

INSTANTIATE_TEST_SUITE_P(Trained, JsonTokenizerGolden,
                         ::testing::Values("bert_cased_wordpiece", "sentencepiece_bpe", "byte_fallback_bpe",
                                           "roberta_bpe", "modernbert_bpe", "prefix_space_bpe", "xlmr_unigram",
                                           "albert_unigram", "llama3_split_bpe", "qwen2_split_bpe"));

std::string load_error(const nlohmann::json& json) {
  try {
    TokenizerPipeline::from_json(json, "tokenizer.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerPipeline, BadFilesSayWhatIsWrongInOneLine) {
  const nlohmann::json good = test::read_json(test::golden_dir() / "tokenizers" / "roberta_bpe" / "tokenizer.json");
  const auto with = [&](const nlohmann::json::json_pointer& where, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[where] = value;
    return load_error(j);
  };
  EXPECT_EQ(load_error(nlohmann::json::object()), "tokenizer.json: not a tokenizer.json (no \"model\")");
  EXPECT_NE(with("/model/type"_json_pointer, "WordLevel").find("tokenizer model \"WordLevel\" is not supported"),
            std::string::npos);
  EXPECT_NE(with("/normalizer"_json_pointer, {{"type", "BertNormalizer"}})
                .find("normalizer \"BertNormalizer\" is not supported"),
            std::string::npos);
  EXPECT_NE(with("/normalizer"_json_pointer, {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}})
                .find("precompiled_charsmap"),
            std::string::npos);
  EXPECT_NE(with("/pre_tokenizer"_json_pointer, {{"type", "Whitespace"}})
                .find("pre-tokenizer \"Whitespace\" is not supported"),
            std::string::npos);
  EXPECT_NE(
      with("/post_processor"_json_pointer, {{"type", "Mystery"}}).find("post-processor \"Mystery\" is not supported"),
      std::string::npos);
  // Special tokens missing or malformed (a BertProcessing without "cls" read freed memory).
  EXPECT_NE(with("/post_processor"_json_pointer, {{"type", "BertProcessing"}, {"sep", {"</s>", 2}}})
                .find("special token null is not defined"),
            std::string::npos);
  EXPECT_NE(with("/post_processor"_json_pointer, {{"type", "RobertaProcessing"}, {"cls", 5}, {"sep", {"</s>", 2}}})
                .find("special token 5 is not defined"),
            std::string::npos);
  const nlohmann::json bad_template = {
      {"type", "TemplateProcessing"},
      {"single", {{{"SpecialToken", {{"type_id", 0}}}}, {{"Sequence", {{"id", "A"}}}}}},
      {"special_tokens", {{"<s>", {{"ids", {"zero"}}, {"tokens", {"<s>"}}}}}}};
  EXPECT_NE(with("/post_processor"_json_pointer, bad_template).find("special token null is not defined"),
            std::string::npos);
  nlohmann::json wrong_ids = bad_template;
  wrong_ids["single"][0]["SpecialToken"]["id"] = "<s>";
  EXPECT_NE(with("/post_processor"_json_pointer, wrong_ids).find("special token \"<s>\" is not defined"),
            std::string::npos);
  EXPECT_NE(with("/model/merges/0"_json_pointer, "nospace").find("merge 0 (\"nospace\") is not two entries"),
            std::string::npos);
  EXPECT_NE(with("/model/merges/1"_json_pointer, "zzqq xxyy").find("not in the vocabulary"), std::string::npos);
  EXPECT_NE(with("/model/vocab"_json_pointer, {{"a", -1}}).find("has id -1"), std::string::npos);
  EXPECT_NE(with("/added_tokens"_json_pointer, {{{"id", 1}}}).find("an added token needs"), std::string::npos);
}

TEST(TokenizerPipeline, NormalizersAndUnigramRefuseWhatTheyCannotRead) {
  const nlohmann::json good = test::read_json(test::golden_dir() / "tokenizers" / "xlmr_unigram" / "tokenizer.json");
  const auto with = [&](const nlohmann::json::json_pointer& where, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[where] = value;
    return load_error(j);
  };
  // A general regular expression is refused: a downloaded file must not hang the tokenizer.
  EXPECT_NE(with("/normalizer/normalizers/2/pattern"_json_pointer, {{"Regex", "(a+)+$"}})
                .find("pattern /(a+)+$/ is not supported"),
            std::string::npos);
  EXPECT_NE(with("/normalizer/normalizers/2/pattern"_json_pointer, {{"Regex", "*{2,}"}}).find("is not supported"),
            std::string::npos);
  EXPECT_NE(with("/normalizer/normalizers/0/precompiled_charsmap"_json_pointer, "////").find("precompiled_charsmap"),
            std::string::npos);
  EXPECT_NE(with("/model/unk_id"_json_pointer, 5000).find("unk_id 5000 is not one of its 802 pieces"),
            std::string::npos);
  EXPECT_NE(with("/model/vocab/7"_json_pointer, {"x"}).find("entry 7 is not [piece, score]"), std::string::npos);
  EXPECT_NE(with("/pre_tokenizer/prepend_scheme"_json_pointer, "sometimes").find("prepend_scheme \"sometimes\""),
            std::string::npos);
  EXPECT_NE(with("/pre_tokenizer"_json_pointer, {{"type", "ByteLevel"}})
                .find("Unigram model is read with the Metaspace pre-tokenizer only"),
            std::string::npos);
}

// Optional fields of the wrong type are refused with the file's message, not nlohmann's own
// exception (which named no file and, in the fuzzer, ended the process).
TEST(TokenizerPipeline, OptionalFieldsOfTheWrongTypeAreRefusedWithTheFilesMessage) {
  const nlohmann::json unigram = test::read_json(test::golden_dir() / "tokenizers" / "xlmr_unigram" / "tokenizer.json");
  const auto with = [&](const nlohmann::json::json_pointer& where, const nlohmann::json& value) {
    nlohmann::json j = unigram;
    j[where] = value;
    return load_error(j);
  };
  EXPECT_EQ(with("/pre_tokenizer/replacement"_json_pointer, 5),
            "tokenizer.json: Metaspace: \"replacement\" has the wrong type (5)");
  EXPECT_EQ(with("/pre_tokenizer/prepend_scheme"_json_pointer, true),
            "tokenizer.json: Metaspace: \"prepend_scheme\" has the wrong type (true)");
  EXPECT_EQ(with("/normalizer"_json_pointer, {{"type", "Strip"}, {"strip_left", "yes"}}),
            "tokenizer.json: Strip: \"strip_left\" has the wrong type (\"yes\")");
  // A Sequence whose one pre-tokenizer is not in a list (a string has size 1 for nlohmann).
  nlohmann::json sequence = {{"type", "Sequence"}, {"pretokenizers", "M"}};
  EXPECT_NE(with("/pre_tokenizer"_json_pointer, sequence).find("pre-tokenizer \"Sequence\" is not supported"),
            std::string::npos);
  // Absent or null: the defaults, as the reference reads them.
  nlohmann::json j = unigram;
  j["pre_tokenizer"]["replacement"] = nullptr;
  j["pre_tokenizer"].erase("prepend_scheme");
  EXPECT_EQ(TokenizerPipeline::from_json(j, "tokenizer.json")->tokenize("a b").front().text, "\u2581a");
}

TEST(TokenizerPipeline, AWordPieceTokenizerJsonWithBadNormalizerFieldsSaysWhich) {
  const nlohmann::json good =
      test::read_json(test::golden_dir() / "tokenizers" / "bert_cased_wordpiece" / "tokenizer.json");
  const auto folder_error = [&](const nlohmann::json::json_pointer& where, const nlohmann::json& value) {
    const test::TempDir tmp;
    nlohmann::json j = good;
    j[where] = value;
    test::write_text(tmp / "tokenizer.json", j.dump());
    try {
      load_tokenizer(tmp.path());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  const auto ends = [](const std::string& s, const std::string& end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
  };
  EXPECT_TRUE(ends(folder_error("/normalizer/lowercase"_json_pointer, "no"),
                   "tokenizer.json: the BertNormalizer: \"lowercase\" has the wrong type (\"no\")"));
  EXPECT_TRUE(
      ends(folder_error("/normalizer/strip_accents"_json_pointer, 1), "\"strip_accents\" has the wrong type (1)"));
  EXPECT_TRUE(
      ends(folder_error("/normalizer/type"_json_pointer, 7), "a WordPiece model needs the BertNormalizer (found 7)"));
  EXPECT_TRUE(ends(folder_error("/normalizer"_json_pointer, "BertNormalizer"),
                   "a WordPiece model needs the BertNormalizer (found \"BertNormalizer\")"));
  EXPECT_EQ(folder_error("/normalizer/strip_accents"_json_pointer, nullptr),
            "(loaded)");  // null: as lowercase, as in the reference
}

TEST(TokenizerPipeline, ReplaceOfARepeatedCharacterKeepsTheLastReplacedCharactersRange) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["\u2581a", -1.0], ["\u2581b", -1.0], ["\u2581", -2.0]]},
    "normalizer": {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}})");
  const auto tokenizer = TokenizerPipeline::from_json(j, "tokenizer.json");
  const auto pieces = tokenizer->tokenize("a    b");  // four spaces become one, standing on the last of them
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].text, "\u2581a");
  EXPECT_EQ((std::vector<uint32_t>{pieces[0].begin, pieces[0].end}), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(pieces[1].text, "\u2581b");
  EXPECT_EQ((std::vector<uint32_t>{pieces[1].begin, pieces[1].end}), (std::vector<uint32_t>{4, 6}));
}

// A BPE's vocabulary and merges given as lists (a GGUF file's): the tokenizer the same document
// gives with them written in; its unk_token found among them; refused for another kind of model.
TEST(TokenizerPipeline, ABpesVocabularyAndMergesGivenAsListsAreThoseOfTheDocument) {
  const nlohmann::json whole = nlohmann::json::parse(R"({
    "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": false,
              "vocab": {"<unk>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "▁ab": 5, "ab": 6},
              "merges": ["▁ a", ["▁a", "b"], "a b"]},
    "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false}})");
  nlohmann::json rest = whole;
  rest["model"].erase("vocab");
  rest["model"].erase("merges");
  BpeLists lists{{"<unk>", "▁", "a", "b", "▁a", "▁ab", "ab"}, {{"▁", "a"}, {"▁a", "b"}, {"a", "b"}}};
  const auto given = TokenizerPipeline::from_json(rest, "x.gguf", &lists);
  const auto read = TokenizerPipeline::from_json(whole, "tokenizer.json");
  for (const std::string text : {"ab ab", "a b ba", "abc ab"})
    EXPECT_EQ(given->encode(text, 100).ids(), read->encode(text, 100).ids()) << text;
  EXPECT_EQ(given->encode("ab", 100).ids(), (std::vector<int64_t>{6}));
  BpeLists more = {{"a"}, {}};
  nlohmann::json unigram = {{"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", {{"a", 0.0}}}}},
                            {"pre_tokenizer", {{"type", "Metaspace"}}}};
  EXPECT_THROW(TokenizerPipeline::from_json(unigram, "x.gguf", &more), Error);
}

TEST(TokenizerPipeline, AFolderWithoutATokenizerSaysWhatItNeeds) {
  const test::TempDir tmp;
  const auto message = [&] {
    try {
      load_tokenizer(tmp.path());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  EXPECT_NE(message().find("no tokenizer.json or vocab.txt"), std::string::npos);
  test::write_text(tmp / "spiece.model", "not read");
  EXPECT_NE(message().find("has spiece.model but no tokenizer.json"), std::string::npos);
}

TEST(TokenizerPipeline, AFolderWithTokenizerJsonIsReadThroughIt) {
  const test::TempDir tmp;
  std::filesystem::copy_file(test::golden_dir() / "tokenizers" / "roberta_bpe" / "tokenizer.json",
                             tmp / "tokenizer.json");
  const auto tokenizer = load_tokenizer(tmp.path());
  const Encoding e = tokenizer->encode("The harbour town", 16);
  ASSERT_GE(e.size(), 3u);
  EXPECT_EQ(e.tokens.front().text, "<s>");
  EXPECT_EQ(e.tokens.back().text, "</s>");
  EXPECT_EQ(tokenizer->encode("The harbour town woke slowly.", 4).size(), 4u);
}

TEST(ReadablePiece, MarkersOfAWordsStartGoAndBytesBecomeCharacters) {
  EXPECT_EQ(readable_piece("\u0120hello"), "hello");          // Ġhello
  EXPECT_EQ(readable_piece("caf\u00c3\u00a9"), "caf\u00e9");  // byte-level "café"
  EXPECT_EQ(readable_piece("\u0120\u00c3\u00a9t\u00c3\u00a9"), "\u00e9t\u00e9");
  EXPECT_EQ(readable_piece("\u2581word"), "word");  // ▁word
  EXPECT_EQ(readable_piece("\u2581"), "\u2423");
  EXPECT_EQ(readable_piece("##ing"), "##ing");
  EXPECT_EQ(readable_piece("[CLS]"), "[CLS]");
  EXPECT_EQ(readable_piece("caf\u00e9"), "caf\u00e9");   // a WordPiece entry stays as it is
  EXPECT_EQ(readable_piece("\u0120"), "\u2423");         // a lone space is shown, not blank
  EXPECT_EQ(readable_piece("\u010a"), "\u21b5");         // Ċ, a line break
  EXPECT_EQ(readable_piece("\u00e2\u0122"), "<E2 80>");  // âĢ: half of a character
}

// SentencePiece vocabularies (Gemma's) hold line breaks, tabs and runs of spaces as pieces of
// their own, and fallback bytes: none may print as a line break or as nothing.
TEST(ReadablePiece, LineBreaksAndSpacesOfAnyVocabularyAreShown) {
  EXPECT_EQ(readable_piece("\n"), "\u21b5");
  EXPECT_EQ(readable_piece("\n\n"), "\u21b5\u21b5");
  EXPECT_EQ(readable_piece("\t"), "\u21e5");
  EXPECT_EQ(readable_piece("\r\n"), "\u21a9\u21b5");
  EXPECT_EQ(readable_piece("\u2581\u2581\u2581"), "\u2423\u2423\u2423");
  EXPECT_EQ(readable_piece("<0x0A>"), "\u21b5");
  EXPECT_EQ(readable_piece("<0x20>"), "\u2423");
  EXPECT_EQ(readable_piece("<0xC3>"), "<0xC3>");              // half a character, as spelt
  EXPECT_EQ(readable_piece(".\u010a"), ".\u21b5");            // byte-level ".\n"
  EXPECT_EQ(readable_piece("\u2581two words"), "two words");  // spaces inside a piece stay spaces
}

// How `tokenize` shows a piece: as spelt, its control characters escaped.
TEST(PieceText, SpeltPieceEscapesControlCharacters) {
  EXPECT_EQ(spelt_piece("\u2581the"), "\u2581the");
  EXPECT_EQ(spelt_piece("\u0120caf\u00c3\u00a9"), "\u0120caf\u00c3\u00a9");
  EXPECT_EQ(spelt_piece("\n\n"), "\\n\\n");
  EXPECT_EQ(spelt_piece("a\tb\r"), "a\\tb\\r");
  EXPECT_EQ(spelt_piece(std::string("\x1b\x7f\0", 3)), "\\x1B\\x7F\\x00");
}

// What appending a decoder's piece writes: byte-level bytes with their space, SentencePiece's word
// start as a space, a fallback byte as itself (none when it is half a character), "é" as itself.
TEST(PieceText, WrittenPieceIsTheTextItAdds) {
  EXPECT_EQ(written_piece("\u0120hello"), " hello");
  EXPECT_EQ(written_piece("caf\u00c3\u00a9"), "caf\u00e9");
  EXPECT_EQ(written_piece("\u010a"), "\n");  // byte-level newline
  EXPECT_EQ(written_piece("\u2581the"), " the");
  EXPECT_EQ(written_piece("<0x0A>"), "\n");
  EXPECT_EQ(written_piece("<0xC3>"), "");
  EXPECT_EQ(written_piece("\u00e9"), "\u00e9");
  EXPECT_EQ(written_piece("\u00e2\u0122"), "");  // âĢ: the first two bytes of "—"
  EXPECT_EQ(written_piece("plain"), "plain");
}

TEST(ReadablePiece, SentencesOfByteLevelPiecesEndAtTheirFullStops) {
  const auto tokenizer = TokenizerPipeline::load(test::golden_dir() / "tokenizers" / "roberta_bpe" / "tokenizer.json");
  const Encoding e = tokenizer->encode("The boats left. The bells rang six .", 64);
  const std::vector<int> sentence = punctuation_sentences(e.tokens);
  EXPECT_EQ(sentence.front(), 0);
  EXPECT_EQ(sentence.back(), 1);  // </s> stays in the last sentence, after the closing " ."
  EXPECT_EQ(*std::max_element(sentence.begin(), sentence.end()), 1);
}

}  // namespace
}  // namespace attnscope
