#pragma once
// BERT's text normalisation: clean-up, CJK spacing, accent stripping, lower-casing, in the
// reference's order, each output character keeping the byte range it came from.
#include "tokenizer/utf8.h"

namespace attnscope {

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_cjk = true;
  bool strip_accents = true;  // the reference strips accents exactly when it lower-cases, unless told
  bool lowercase = true;
};

CharString normalize_bert(const CharString& text, const NormalizerOptions& options);

}  // namespace attnscope
