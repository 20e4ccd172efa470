#pragma once
// Character classes of BERT's text normalisation and pre-tokenisation, defined the way the
// reference tokenizer (Hugging Face `tokenizers`, used by transformers' BertTokenizer) defines
// them: Unicode general categories from utf8proc, corrected where the reference's own, older
// Unicode tables still classify a code point differently (see reference_unicode_exceptions.h).
#include <string>

namespace attnscope {

// Removed by the clean-up: NUL, U+FFFD and "other" categories (Cc, Cf, Co) but tab/LF/CR.
bool is_removed_control(char32_t cp);
// Turned into a plain space by the clean-up and split on: tab, LF, CR, Zs, Zl, Zp.
bool is_bert_whitespace(char32_t cp);
// Isolated as its own word: ASCII punctuation (including $+<=>^`|~) and categories P*.
bool is_bert_punctuation(char32_t cp);
// CJK ideographs that BERT surrounds with spaces.
bool is_cjk_ideograph(char32_t cp);
// Non-spacing marks (Mn), dropped after canonical decomposition when stripping accents.
bool is_nonspacing_mark(char32_t cp);
// The canonical combining class, for the canonical ordering of decomposed marks.
int combining_class(char32_t cp);

// Canonical decomposition (NFD) of one code point, appended to out.
void append_canonical_decomposition(std::u32string& out, char32_t cp);
// Full lower-case mapping of one code point (U+0130 becomes two code points), appended to out.
void append_lowercase(std::u32string& out, char32_t cp);

}  // namespace attnscope
