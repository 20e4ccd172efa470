#pragma once
// A text cell of the command line's tables, padded to `width` characters (code points), not bytes
// as printf's "%-16s" pads: a piece such as "▁the", "café" or "↵" takes more bytes than columns.
#include <string>

#include "tokenizer/utf8.h"

namespace attnscope::cli {

inline std::string left_aligned(std::string text, size_t width) {
  const size_t shown = count_code_points(text);
  if (shown < width) text.append(width - shown, ' ');
  return text;
}

}  // namespace attnscope::cli
