#pragma once
// BERT's tokenizer, behaving as the reference (transformers' BertTokenizer, which runs the
// `tokenizers` BertNormalizer, BertPreTokenizer and WordPiece): special tokens typed in the text
// are kept whole, the rest is normalised, split into words and into word pieces.
#include <filesystem>
#include <string_view>
#include <vector>

#include "tokenizer/encoding.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab.h"
#include "tokenizer/wordpiece.h"

namespace attnscope {

class BertTokenizer : public Tokenizer {
 public:
  BertTokenizer(Vocab vocab, NormalizerOptions options);
  BertTokenizer(const BertTokenizer&) = delete;  // the WordPiece refers to vocab_
  BertTokenizer& operator=(const BertTokenizer&) = delete;

  // vocab.txt plus the options of tokenizer_config.json (do_lower_case, strip_accents,
  // tokenize_chinese_chars), with the reference's defaults when that file is absent.
  static std::unique_ptr<BertTokenizer> from_folder(const std::filesystem::path& dir);

  // Word pieces of the text, without [CLS]/[SEP] and without truncation.
  std::vector<Token> tokenize(std::string_view text) const override;
  // [CLS] pieces [SEP] from pieces already tokenised, truncated to max_length tokens (at least 2).
  Encoding wrap(std::vector<Token> pieces, size_t max_length) const override;
  size_t vocab_size() const override { return vocab_.size(); }
  // Words end at whitespace and the normalisation works character by character (as the segments
  // of tokenize_chunk rely on).
  bool splits_after_whitespace() const override { return true; }

  // Characters normalised at a time (more where a segment would end inside a word).
  static constexpr size_t kSegmentChars = 4096;

  const Vocab& vocab() const { return vocab_; }
  const NormalizerOptions& options() const { return options_; }
  int32_t cls_id() const { return cls_id_; }
  int32_t sep_id() const { return sep_id_; }
  int32_t pad_id() const { return pad_id_; }

 private:
  void tokenize_chunk(const CharString& chars, size_t first, size_t last, std::vector<Token>& out) const;

  Vocab vocab_;
  NormalizerOptions options_;
  WordPiece wordpiece_;
  std::vector<std::string> specials_;
  int32_t cls_id_, sep_id_, pad_id_;
};

}  // namespace attnscope
