#include "corpus/window_stream.h"

#include <limits>
#include <string>

#include "base/error.h"

namespace attnscope {

size_t pieces_per_window(const Tokenizer& tokenizer, size_t window) {
  // [CLS] and [SEP], a decoder's start token, or none.
  const size_t added = tokenizer.wrap({}, std::numeric_limits<size_t>::max()).size();
  if (window <= added)
    throw Error("a window must hold at least " + std::to_string(added + 1) + " tokens (" +
                (added == 0 ? std::string("a word piece")
                            : "the model's " + std::to_string(added) + " added tokens and a word piece") +
                "), got " + std::to_string(window));
  return window - added;
}

WindowStream::WindowStream(CorpusReader& reader, const Tokenizer& tokenizer, size_t window)
    : reader_(reader),
      tokenizer_(tokenizer),
      window_(window),
      pieces_per_window_(pieces_per_window(tokenizer, window)) {}

void WindowStream::read_chunk() {
  std::string chunk;
  bool new_document = false;
  CorpusReader::Span span;
  if (!reader_.next(chunk, new_document, span)) {
    current_done_ = true;
    return;
  }
  std::vector<Token> tokens;
  try {
    tokens = tokenizer_.tokenize(chunk);
  } catch (const Error& e) {
    throw Error(reader_.where() + ": " + e.what());
  }
  // A piece's end in the input: its end in the chunk's text, scaled to the chunk's bytes in the
  // input (the same for text files; JSON Lines records carry quotes and escapes).
  std::vector<uint64_t> ends;
  for (const Token& t : tokens)
    ends.push_back(span.first + (chunk.empty() ? 0 : static_cast<uint64_t>(t.end) * span.bytes / chunk.size()));
  if (new_document) ++documents_;
  if (new_document && started_) {  // the current document ends here
    next_ = std::move(tokens);
    next_ends_ = std::move(ends);
    has_next_ = true;
    current_done_ = true;
    return;
  }
  started_ = true;
  pieces_.insert(pieces_.end(), std::make_move_iterator(tokens.begin()), std::make_move_iterator(tokens.end()));
  ends_.insert(ends_.end(), ends.begin(), ends.end());
}

Encoding WindowStream::emit(size_t count) {
  std::vector<Token> run(pieces_.begin() + static_cast<std::ptrdiff_t>(first_),
                         pieces_.begin() + static_cast<std::ptrdiff_t>(first_ + count));
  first_ += count;
  consumed_ = std::max(consumed_, ends_[first_ - 1]);
  if (first_ == pieces_.size() || first_ > (1u << 16)) {  // drop what was emitted
    pieces_.erase(pieces_.begin(), pieces_.begin() + static_cast<std::ptrdiff_t>(first_));
    ends_.erase(ends_.begin(), ends_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
  return tokenizer_.wrap(std::move(run), window_);
}

bool WindowStream::next(Encoding& out) {
  const size_t full = pieces_per_window_;
  while (true) {
    const size_t available = pieces_.size() - first_;
    if (available >= full) {
      out = emit(full);
      return true;
    }
    if (!current_done_) {
      read_chunk();
      continue;
    }
    if (available > 0) {  // the document's last, shorter window
      out = emit(available);
      return true;
    }
    if (!has_next_) return false;
    pieces_ = std::move(next_);
    ends_ = std::move(next_ends_);
    next_.clear();
    next_ends_.clear();
    first_ = 0;
    has_next_ = false;
    current_done_ = false;
  }
}

}  // namespace attnscope
