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
#include <functional>
#include <vector>

#include "base/progress.h"
#include "model/attention_rows.h"
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

// What carrying a long text over to words needs, its maps not being kept: a run's maps made again
// (recomputed_attention_rows with its model or its scores), asked for its pieces' captures.
struct WordMapsMadeAgain {
  std::function<AttentionRows(const TextCaptures&)> rows;
  KeepGoing keep_going = {};     // asked before each block of rows
  ProgressReport progress = {};  // "words": each layer's word column sums done
};

// The captures over words of a long text (pieces.attention undefined): the head outputs (and
// hidden states) averaged over each word's pieces as above, each word map's column sums from the
// pieces' maps made again block by block of rows (no map is held whole), and the pieces' captures
// kept (captures.pieces), from which any word map is made again.
TextCaptures long_text_word_captures(std::shared_ptr<const TextCaptures> pieces, const WordGroups& groups,
                                     const WordMapsMadeAgain& maps);

// The run over words: its encoding and captures (what the views and the analysis then read); a
// long text's through long_text_word_captures, with `maps`.
TextRun to_words(TextRun pieces, const WordMapsMadeAgain& maps = {});

}  // namespace attnscope
