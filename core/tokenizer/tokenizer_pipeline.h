#pragma once
// The tokenizer pipeline, stage by stage as the Rust `tokenizers` library runs it: added tokens are
// cut out of the raw text first (lstrip, rstrip and single_word honoured), the rest is normalised,
// pre-tokenised and split by the model, and the post-processor wraps the pieces in the special
// tokens of its template. Every tokenizer attnscope runs is a configuration of it: read from a
// tokenizer.json (the models BPE (byte-level: RoBERTa, ModernBERT, GPT-2 style) and Unigram
// (SentencePiece: XLM-R, ALBERT, CamemBERT), the normalizers of text_normalizer.h, the
// pre-tokenizers ByteLevel, Metaspace and Split (a String or Regex pattern; Split then ByteLevel),
// the post-processors RobertaProcessing, BertProcessing, TemplateProcessing and ByteLevel; any
// other component refused in one line naming it), or BERT's WordPiece with its normalizer and
// pre-tokenizer (bert_tokenizer.h: vocab.txt, or a WordPiece tokenizer.json).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <span>
#include <variant>

#include "tokenizer/bpe.h"
#include "tokenizer/split_pre_tokenizer.h"
#include "tokenizer/text_normalizer.h"
#include "tokenizer/unigram.h"
#include "tokenizer/wordpiece.h"
#include "tokenizer/tokenizer.h"

namespace attnscope {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

class TokenizerPipeline : public Tokenizer {
 public:
  // Bert: words end at whitespace and every punctuation character is a word (pre_tokenizer.h).
  enum class PreTokenizer { None, ByteLevel, Metaspace, Split, Bert };
  enum class Prepend { Always, First, Never };  // Metaspace's prepend_scheme
  struct Settings {
    TextNormalizer normalizer;
    PreTokenizer pre_tokenizer = PreTokenizer::None;
    bool add_prefix_space = false, use_regex = true, trim_offsets = false;  // ByteLevel
    char32_t replacement = U'\u2581';                                       // Metaspace
    Prepend prepend = Prepend::Always;
    bool split = true;
    SplitPreTokenizer split_pattern;  // Split, and before ByteLevel when split_before_bytes
    bool split_before_bytes = false;
    std::vector<AddedToken> added;
    std::vector<Token> before, after;  // the template's special tokens around the pieces
  };
  using Model = std::variant<Bpe, Unigram, WordPiece>;
  TokenizerPipeline(Model model, Settings settings);

  // `source` names the file in error messages.
  // `base` with the added tokens and the post-processor's template of a tokenizer.json in place of
  // its own: a WordPiece model wrapped in other tokens than BERT's (MPNet's <s> and </s>).
  static std::unique_ptr<TokenizerPipeline> with_template_of(std::unique_ptr<TokenizerPipeline> base,
                                                             const nlohmann::json& json, const std::string& source);
  // `bpe` (taken), where given: a BPE model's vocabulary and merges, which its "model" then need
  // not hold (a GGUF file's 262,144 pieces: not written into a document to be read back).
  static std::unique_ptr<Tokenizer> from_json(const nlohmann::json& json, const std::string& source,
                                              BpeLists* bpe = nullptr);
  static std::unique_ptr<Tokenizer> load(const std::filesystem::path& file);

  std::vector<Token> tokenize(std::string_view text) const override;
  Encoding wrap(std::vector<Token> pieces, size_t max_length) const override;
  size_t vocab_size() const override;
  std::string piece(int64_t id) const override;
  std::vector<int64_t> special_ids() const override;
  // BERT's configuration only: no piece spans whitespace and its normalizer works character by character.
  bool splits_after_whitespace() const override { return settings_.pre_tokenizer == PreTokenizer::Bert; }

  // Characters BERT's configuration normalises at a time (more where a segment would end inside a word).
  static constexpr size_t kSegmentChars = 4096;

 private:
  void tokenize_segment(std::string_view text, std::span<const SourceChar> chars, std::vector<Token>& out) const;
  void tokenize_bert_words(std::span<const SourceChar> chars, std::vector<Token>& out) const;
  std::vector<CharString> metaspace_words(CharString chars) const;
  void tokenize_words(const std::vector<CharString>& words, std::vector<Token>& out) const;

  Model model_;
  Settings settings_;
  std::array<bool, 256> starts_added_{};  // first bytes of the added tokens: most positions need no comparison
};

}  // namespace attnscope
