#pragma once
// Maps over words instead of word pieces (Clark et al. 2019's convention): pieces are grouped into
// words by their bytes and their vocabulary's marks, and every capture is carried over to words,
// so the whole analysis of METHOD.md (S, pairs, statistics, separators) runs on words unchanged.
//   - A piece continues the word before it when it is not a special token, its bytes follow the
//     previous piece's without a gap, and its vocabulary marks it as a continuation: WordPiece's
//     "##", or for vocabularies that mark a word's start instead (byte-level BPE's "Ġ",
//     SentencePiece's "▁"; told by a piece of the text carrying one) the absence of that mark.
//   - Attention to a word is summed over its pieces, and attention from a word averaged over its
//     pieces: W_ab = (1 / |a|) sum_{i in a} sum_{j in b} A_ij (rows still sum to 1).
//   - A word's head output is the mean of its pieces': c_a = (1 / |a|) sum_{i in a} c_i, so S on words
//     is C_w C_w^T.
// A text whose words are all one piece has the same maps as its pieces.
#include <vector>

#include "model/checkpoint.h"
#include "tokenizer/encoding.h"

namespace attnscope {

struct WordGroups {
  Encoding words;  // one token per word: its text (the pieces joined, as read), bytes, an id per distinct word
  std::vector<int> word_of_piece;  // the word each piece belongs to
  std::vector<int> first_piece;    // each word's first piece, and one past the last piece at the end
};

WordGroups group_words(const Encoding& pieces);

// The captures over words, on the captures' device. The value vectors of the norm-based lens are
// not carried over (the norm lens is a piece-level view).
TextCaptures word_captures(const TextCaptures& pieces, const WordGroups& groups);

// The run over words: its encoding and captures (what the views and the analysis then read).
TextRun to_words(const TextRun& pieces);

}  // namespace attnscope
