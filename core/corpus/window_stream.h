#pragma once
// The paper-faithful windows of a corpus (METHOD.md): each document's word pieces cut into
// consecutive, non-overlapping runs that fill N positions once wrapped in the tokenizer's template
// (N - 2 pieces in BERT's [CLS] ... [SEP], N - 1 after a decoder's start token, N where a decoder
// adds none; a run may start with a ## continuation); a document's last, shorter run is kept.
// Windows never cross documents.
#include "corpus/corpus_reader.h"
#include "tokenizer/tokenizer.h"

namespace attnscope {

// The word pieces in a window of `window` tokens: N less what the tokenizer's template adds.
// Throws attnscope::Error when no piece fits.
size_t pieces_per_window(const Tokenizer& tokenizer, size_t window);

class WindowStream {
 public:
  WindowStream(CorpusReader& reader, const Tokenizer& tokenizer, size_t window);
  bool next(Encoding& out);
  uint64_t documents() const { return documents_; }
  // Bytes of the input up to the end of the last word piece emitted: progress through the corpus.
  uint64_t bytes_consumed() const { return consumed_; }

 private:
  void read_chunk();  // one chunk into the current document, or held back if it starts the next
  Encoding emit(size_t count);

  CorpusReader& reader_;
  const Tokenizer& tokenizer_;
  size_t window_;
  size_t pieces_per_window_;    // N less the template's tokens
  std::vector<Token> pieces_;   // the current document's pieces not yet emitted start at first_
  std::vector<uint64_t> ends_;  // where each piece ends in the input, in bytes
  size_t first_ = 0;
  bool started_ = false;       // a document has been started
  bool current_done_ = false;  // no more chunks belong to the current document
  bool has_next_ = false;      // next_ holds the first chunk of the next document
  std::vector<Token> next_;
  std::vector<uint64_t> next_ends_;
  uint64_t consumed_ = 0;
  uint64_t documents_ = 0;
};

}  // namespace attnscope
