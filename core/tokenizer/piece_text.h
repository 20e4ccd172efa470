#pragma once
// A word piece as people read it. Vocabularies mark pieces in their own ways: WordPiece's "##"
// (kept: readers of BERT know it), SentencePiece's "▁" and byte-level BPE's "Ġ" for a word's
// start (dropped: the piece is shown as the word's beginning), and byte-level BPE spells every
// byte as a printable character ("Ã©" for "é"; turned back into the text's own characters).
#include <string>
#include <string_view>

namespace attnscope {

std::string readable_piece(std::string_view piece);

}  // namespace attnscope
