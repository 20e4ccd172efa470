#pragma once
// Encoding the same text again after an edit, as a typist's window does on every key: the pieces
// of the last text are kept, and only the stretch around the edit is tokenised again. For a
// tokenizer whose pieces never span whitespace and do not depend on what lies before it
// (Tokenizer::splits_after_whitespace: BERT's), the pieces of a stretch that begins and ends just
// after an ASCII whitespace byte are the same inside any text; for any other, every text is
// tokenised whole. Either way the result is exactly Tokenizer::encode's.
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace attnscope {

class IncrementalEncoder {
 public:
  Encoding encode(const Tokenizer& tokenizer, std::string_view text, size_t max_length);

  // Bytes of the last text tokenised again (all of it when nothing could be kept), for tests.
  size_t last_tokenised_bytes() const { return last_tokenised_; }

 private:
  // Tokenises text[begin, end) and puts its pieces in place of the kept pieces of the old text's
  // bytes [begin, old_end); the pieces after it move by the length's change.
  void retokenise(const Tokenizer& tokenizer, std::string_view text, size_t begin, size_t end, size_t old_end);

  const Tokenizer* tokenizer_ = nullptr;  // whose pieces are kept (compared, never dereferenced)
  std::string text_;
  std::vector<Token> pieces_;
  size_t last_tokenised_ = 0;
};

}  // namespace attnscope
