#pragma once
// A word piece as people read it. Vocabularies mark pieces in their own ways: WordPiece's "##"
// (kept: readers of BERT know it), SentencePiece's "▁" and byte-level BPE's "Ġ" for a word's
// start (dropped: the piece is shown as the word's beginning), and byte-level BPE spells every
// byte as a printable character ("Ã©" for "é"; turned back into the text's own characters; half a
// character, split over two pieces, shown as its bytes in hexadecimal, "<E2 80>"). Line breaks,
// tabs and carriage returns are shown as arrows ("↵", "⇥", "↩") wherever they are, a piece of
// spaces alone as open boxes ("␣"), and a fallback byte ("<0x0A>") as its character.
#include <string>
#include <string_view>

namespace attnscope {

std::string readable_piece(std::string_view piece);

// The text a decoder's piece writes when appended to what came before: byte-level BPE's bytes
// (its leading space kept), SentencePiece's "▁" as a space, a byte-fallback piece ("<0x0A>") as
// its byte; any other piece as it is spelt. Empty for half a character (a byte-level piece or a
// fallback byte that does not make whole UTF-8): nothing is written rather than a broken text.
std::string written_piece(std::string_view piece);

// The piece as its vocabulary spells it ("▁the", "Ġthe", "##ing"), its control characters escaped
// as C writes them ("\n", "\t", "\x1B"): SentencePiece vocabularies hold line breaks and tabs as
// pieces, which printed as they are would break a table's row.
std::string spelt_piece(std::string_view piece);

}  // namespace attnscope
