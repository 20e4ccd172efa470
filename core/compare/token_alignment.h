#pragma once
// Which token of run A stands for which token of run B, so that measures that need the same
// tokens on both sides (CKA, the difference maps) can be taken where the runs share them.
//   - identical: the same token ids in the same order (one tokenizer, one text; or two texts
//     that tokenise alike); every position matches itself.
//   - the same text under two tokenizers: a token matches the token of the other run that covers
//     exactly the same bytes; special tokens (no bytes) match by where they sit, before the text
//     or after it ([CLS] with <s>, [SEP] with </s>).
//   - two texts: the longest common subsequence of the two token sequences, tokens compared by
//     their vocabulary entry; its table spans only what lies between the tokens both start and
//     end with (an edit of a long text aligns in the size of the edit), and is refused in one line
//     (attnscope::Error) past 1 GiB.
// The matched positions increase on both sides.
#include <string_view>
#include <vector>

#include "tokenizer/encoding.h"

namespace attnscope {

struct TokenAlignment {
  std::vector<int64_t> a, b;  // position a[k] of run A matches position b[k] of run B
  bool identical = false;     // both runs have the same tokens: every difference map is defined

  size_t size() const { return a.size(); }
};

TokenAlignment align_tokens(const Encoding& a, std::string_view text_a, const Encoding& b, std::string_view text_b);

}  // namespace attnscope
