#pragma once
// The tokenizer's result for one text: word pieces with ids and the bytes they came from.
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {

struct Token {
  int32_t id = 0;
  std::string text;    // the vocabulary entry, e.g. "##ing" or "[CLS]"
  uint32_t begin = 0;  // byte range [begin, end) of the original text; empty for added [CLS]/[SEP]
  uint32_t end = 0;
  bool special = false;  // a special token ([CLS], [SEP], [MASK], ...) added or typed literally
};

struct Encoding {
  std::vector<Token> tokens;
  bool truncated = false;
  size_t full_length = 0;  // tokens, with [CLS] and [SEP], before truncation

  size_t size() const { return tokens.size(); }
  std::vector<int64_t> ids() const;
};

}  // namespace attnscope
