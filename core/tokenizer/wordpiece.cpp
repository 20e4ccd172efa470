#include "tokenizer/wordpiece.h"

#include <string>

namespace attnscope {

WordPiece::WordPiece(Vocab vocab, size_t max_word_chars)
    : vocab_(std::move(vocab)), max_word_chars_(max_word_chars), unk_id_(vocab_.required_id("[UNK]")) {}

void WordPiece::tokenize(const SourceChar* first, const SourceChar* last, std::vector<Token>& out) const {
  const size_t n = static_cast<size_t>(last - first);
  if (n == 0) return;
  const auto unknown = [&] { out.push_back({unk_id_, "[UNK]", first->begin, (last - 1)->end, false}); };
  if (n > max_word_chars_) return unknown();

  // UTF-8 of the word with the byte offset of every character, so candidates are substrings.
  std::string word;
  std::vector<size_t> offset(n + 1);
  for (size_t i = 0; i < n; ++i) {
    offset[i] = word.size();
    append_utf8(word, first[i].cp);
  }
  offset[n] = word.size();

  const size_t mark = out.size();
  std::string candidate;
  for (size_t start = 0; start < n;) {
    size_t end = n;
    int32_t id = -1;
    for (; end > start; --end) {
      candidate.assign(start > 0 ? "##" : "");
      candidate.append(word, offset[start], offset[end] - offset[start]);
      if (auto found = vocab_.find(candidate)) {
        id = *found;
        break;
      }
    }
    if (id < 0) {
      out.resize(mark);
      return unknown();
    }
    out.push_back({id, vocab_.token(id), first[start].begin, first[end - 1].end, false});
    start = end;
  }
}

}  // namespace attnscope
