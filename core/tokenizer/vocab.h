#pragma once
// A WordPiece vocabulary: token text <-> id, read from BERT's vocab.txt (one token per line,
// the id is the line number).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/string_ids.h"

namespace attnscope {

class Vocab {
 public:
  static Vocab load(const std::filesystem::path& file);
  static Vocab from_tokens(std::vector<std::string> tokens);

  std::optional<int32_t> find(std::string_view token) const;
  // The id of a token the model cannot work without; throws naming the vocabulary file.
  int32_t required_id(std::string_view token) const;
  const std::string& token(int32_t id) const;
  size_t size() const { return tokens_.size(); }
  const std::string& source() const { return source_; }

 private:
  std::vector<std::string> tokens_;
  StringIds ids_;
  std::string source_ = "vocabulary";
};

}  // namespace attnscope
