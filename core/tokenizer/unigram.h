#pragma once
// SentencePiece's unigram model: of all the ways to cut a word into vocabulary pieces, the one
// whose pieces' log-probabilities sum highest (Viterbi over character positions). A character no
// piece covers becomes the unknown piece, scored 10 below the lowest score of the vocabulary,
// and unknown characters next to each other make one unknown piece, as in the reference.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/encoding.h"
#include "tokenizer/string_ids.h"
#include "tokenizer/utf8.h"

namespace attnscope {

class Unigram {
 public:
  // pieces: (text, score) by id. Throws naming `source` when unk_id is out of range.
  Unigram(std::vector<std::pair<std::string, double>> pieces, int64_t unk_id, const std::string& source);

  void tokenize(const CharString& word, std::vector<Token>& out) const;
  size_t size() const { return pieces_.size(); }
  const std::string& piece(int32_t id) const { return pieces_[static_cast<size_t>(id)].first; }

 private:
  std::vector<std::pair<std::string, double>> pieces_;
  StringIds ids_;
  int32_t unk_id_;
  double unk_score_;
  size_t longest_ = 0;  // bytes of the longest piece
};

}  // namespace attnscope
