#include "analysis/word_level.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <map>
#include <string_view>

#include "base/error.h"
#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool marks_word_start(std::string_view piece) {
  return starts_with(piece, "\xc4\xa0") || starts_with(piece, "\xe2\x96\x81");
}  // "Ġ", "▁"

// The vocabulary's convention: word starts marked ("Ġ", "▁": byte-level BPE, SentencePiece), else
// continuations ("##": WordPiece). Told from the text's own pieces: a text of a single word in a
// vocabulary of word-start marks is read as WordPiece would be (its pieces stay words).
bool marks_continuations(const Encoding& e) {
  for (const Token& t : e.tokens)
    if (!t.special && marks_word_start(t.text)) return false;
  return true;
}

bool continues(const Token& previous, const Token& piece, bool continuation_marks) {
  if (piece.special || previous.special || piece.begin != previous.end || piece.end <= piece.begin) return false;
  if (continuation_marks) return starts_with(piece.text, "##");
  return !marks_word_start(piece.text);
}

// [W, n] float32: row a holds 1 for the pieces of word a.
at::Tensor membership(const WordGroups& g, int64_t n) {
  const auto words = static_cast<int64_t>(g.words.size());
  std::vector<float> m(static_cast<size_t>(words * n), 0.0f);
  for (int64_t i = 0; i < n; ++i) m[static_cast<size_t>(g.word_of_piece[static_cast<size_t>(i)] * n + i)] = 1.0f;
  return at::tensor(m).reshape({words, n});
}

}  // namespace

WordGroups group_words(const Encoding& pieces) {
  WordGroups g;
  const bool marks = marks_continuations(pieces);
  std::map<std::string, int32_t> ids;  // one id per distinct word, for the repeat statistics
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Token& t = pieces.tokens[i];
    if (i == 0 || !continues(pieces.tokens[i - 1], t, marks)) {
      g.first_piece.push_back(static_cast<int>(i));
      g.words.tokens.push_back(Token{0, "", t.begin, t.end, t.special});
    }
    Token& word = g.words.tokens.back();
    std::string piece = readable_piece(t.text);
    if (!word.text.empty() && starts_with(piece, "##")) piece = piece.substr(2);
    word.text += piece;
    word.end = std::max(word.end, t.end);
    g.word_of_piece.push_back(static_cast<int>(g.words.size()) - 1);
  }
  g.first_piece.push_back(static_cast<int>(pieces.size()));
  for (Token& w : g.words.tokens) w.id = ids.emplace(w.text, static_cast<int32_t>(ids.size())).first->second;
  g.words.truncated = pieces.truncated;
  g.words.full_length = g.words.size();
  return g;
}

TextCaptures word_captures(const TextCaptures& pieces, const WordGroups& groups) {
  if (static_cast<int64_t>(groups.word_of_piece.size()) != pieces.length)
    throw Error("the word groups are not of these captures' tokens");
  c10::InferenceMode guard;
  const auto device = pieces.attention.device();
  const at::Tensor member = membership(groups, pieces.length).to(device);  // [W, n]
  const at::Tensor mean = member / member.sum(1, true);                    // each row averages a word's pieces
  TextCaptures w = pieces;
  w.length = static_cast<int64_t>(groups.words.size());
  w.attention = at::matmul(at::matmul(mean, pieces.attention.to(at::kFloat)), member.t())
                    .contiguous();  // mean over rows, sum over columns
  w.head_outputs = at::matmul(mean, pieces.head_outputs.to(at::kFloat)).contiguous();
  if (pieces.hidden_states.defined())
    w.hidden_states = at::matmul(mean, pieces.hidden_states.to(at::kFloat)).contiguous();
  w.value_norms = w.value_gram = w.queries = w.keys = at::Tensor();
  return w;
}

TextRun to_words(const TextRun& pieces) {
  WordGroups groups = group_words(pieces.encoding);
  TextCaptures captures = word_captures(pieces.captures, groups);
  return {std::move(groups.words), std::move(captures)};
}

}  // namespace attnscope
