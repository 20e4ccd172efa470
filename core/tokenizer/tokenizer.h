#pragma once
// What the rest of attnscope asks of a tokenizer, whatever its kind: the pieces of a text, each
// with its id and the bytes of the text it came from, and those pieces wrapped in the model's
// start and end tokens. Every tokenizer is a configuration of the one TokenizerPipeline
// (tokenizer_pipeline.h): read from tokenizer.json, or BERT's from vocab.txt (bert_tokenizer.h).
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/encoding.h"

namespace attnscope {

inline constexpr size_t kDefaultMaxLength = 128;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Pieces of the text without the start and end tokens and without truncation.
  virtual std::vector<Token> tokenize(std::string_view text) const = 0;
  // The start token, pieces, the end token; truncated to max_length tokens (at least 2).
  virtual Encoding wrap(std::vector<Token> pieces, size_t max_length) const = 0;
  Encoding encode(std::string_view text, size_t max_length = kDefaultMaxLength) const {
    return wrap(tokenize(text), max_length);
  }
  virtual size_t vocab_size() const = 0;
  // The vocabulary's spelling of an id (an added token's content); empty when no piece has it.
  virtual std::string piece(int64_t /*id*/) const { return {}; }
  // The ids of the special tokens (the template's and those added as special), ascending.
  virtual std::vector<int64_t> special_ids() const { return {}; }
  // True when the pieces of a stretch of text that begins and ends just after whitespace are the
  // same wherever it stands (no piece spans whitespace, none depends on the text before it): then
  // an edit needs only its own stretch tokenised again (IncrementalEncoder).
  virtual bool splits_after_whitespace() const { return false; }
};

// The tokenizer of a checkpoint folder: tokenizer.json when it is there (the format of every
// current Hugging Face checkpoint), else BERT's vocab.txt with tokenizer_config.json. A WordPiece
// tokenizer.json beside a vocab.txt is read through vocab.txt, the path tested longest.
std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& dir);

}  // namespace attnscope
