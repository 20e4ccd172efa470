#pragma once
// Greedy longest-match-first WordPiece over one pre-tokenised word.
#include <vector>

#include "tokenizer/encoding.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"

namespace attnscope {

class WordPiece {
 public:
  explicit WordPiece(Vocab vocab, size_t max_word_chars = 100);
  // Appends the pieces of the word [first, last) to out; a word that cannot be covered by the
  // vocabulary, or that is longer than max_word_chars characters, becomes one [UNK].
  void tokenize(const SourceChar* first, const SourceChar* last, std::vector<Token>& out) const;
  size_t size() const { return vocab_.size(); }
  const Vocab& vocab() const { return vocab_; }
  const std::string& piece(int32_t id) const { return vocab_.token(id); }

 private:
  Vocab vocab_;
  size_t max_word_chars_;
  int32_t unk_id_;
};

}  // namespace attnscope
