#include "tokenizer/token_class.h"

#include <string>

#include "base/error.h"
#include "tokenizer/char_classes.h"
#include "tokenizer/piece_text.h"
#include "tokenizer/utf8.h"

namespace attnscope {
namespace {

// Read from the text the piece writes (its bytes, its word-start mark as a space), not from how it
// is shown: the signs a line break or a space are shown as (readable_piece) are no text's.
bool is_punctuation_piece(const std::string& piece) {
  std::string text = written_piece(piece);
  if (text.rfind("##", 0) == 0) text.erase(0, 2);
  bool any = false;
  try {
    for (const SourceChar& c : decode_utf8(text)) {
      if (c.cp == U' ' || c.cp == U'\t' || c.cp == U'\n' || c.cp == U'\r') continue;
      if (!is_bert_punctuation(c.cp)) return false;
      any = true;
    }
  } catch (const Error&) {  // not valid UTF-8: no punctuation mark
    return false;
  }
  return any;
}

}  // namespace

const char* token_class_name(TokenClass c) {
  switch (c) {
    case TokenClass::First: return "first token";
    case TokenClass::Special: return "special";
    case TokenClass::Punctuation: return "punctuation";
    case TokenClass::Word: return "word";
  }
  return "?";
}

const char* token_class_key(TokenClass c) { return c == TokenClass::First ? "first" : token_class_name(c); }

TokenClass token_class(const Token& token, size_t position) {
  if (position == 0) return TokenClass::First;
  if (token.special) return TokenClass::Special;
  return is_punctuation_piece(token.text) ? TokenClass::Punctuation : TokenClass::Word;
}

std::vector<TokenClass> token_classes(const Encoding& encoding) {
  std::vector<TokenClass> classes;
  classes.reserve(encoding.size());
  for (size_t i = 0; i < encoding.size(); ++i) classes.push_back(token_class(encoding.tokens[i], i));
  return classes;
}

}  // namespace attnscope
