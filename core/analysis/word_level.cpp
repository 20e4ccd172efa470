#include "analysis/word_level.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <map>
#include <string_view>

#include "base/error.h"
#include "model/reproducible_products.h"
#include "model/run_sums.h"
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

// Each word's first piece, and one past the last at the end: int64 on the host.
at::Tensor piece_bounds(const WordGroups& g) {
  return at::tensor(std::vector<int64_t>(g.first_piece.begin(), g.first_piece.end()), at::kLong);
}

// [K, .., W, x] float32: t [K, .., n, x] averaged over each word's pieces along its second-to-last
// dimension, a leading slice (a layer) at a time: run_sums lays out a copy of what it is given, which
// for a long text's head outputs whole would be half a gigabyte more.
at::Tensor piece_means(const at::Tensor& t, const at::Tensor& bounds) {
  const int64_t words = bounds.size(0) - 1;
  const at::Tensor sizes = run_lengths(bounds).to(t.device(), at::kFloat);
  std::vector<int64_t> shape = t.sizes().vec();
  shape[shape.size() - 2] = words;
  at::Tensor means = at::empty(shape, t.options().dtype(at::kFloat));
  for (int64_t k = 0; k < t.size(0); ++k)
    means[k].copy_(run_sums(t[k].to(at::kFloat), t.dim() - 3, bounds) / sizes.unsqueeze(1));
  return means;
}

// [W, n] float32: row a holds 1 for the pieces of word a.
at::Tensor membership(const WordGroups& g, int64_t n) {
  const auto words = static_cast<int64_t>(g.words.size());
  std::vector<float> m(static_cast<size_t>(words * n), 0.0f);
  for (int64_t i = 0; i < n; ++i) m[static_cast<size_t>(g.word_of_piece[static_cast<size_t>(i)] * n + i)] = 1.0f;
  return at::tensor(m).reshape({words, n});
}

// The captures over words but their maps: the head outputs (and hidden states) averaged over each
// word's pieces, the lens captures and the keys and values kept to continue from dropped.
TextCaptures averaged_over_words(const TextCaptures& pieces, const WordGroups& groups) {
  if (static_cast<int64_t>(groups.word_of_piece.size()) != pieces.length)
    throw Error("the word groups are not of these captures' tokens");
  const at::Tensor bounds = piece_bounds(groups);
  TextCaptures w = pieces;
  w.length = static_cast<int64_t>(groups.words.size());
  w.head_outputs = piece_means(pieces.head_outputs, bounds);
  if (pieces.hidden_states.defined()) w.hidden_states = piece_means(pieces.hidden_states, bounds);
  w.value_norms = w.value_gram = w.queries = w.keys = w.column_sums = w.layer_keys = w.layer_values = at::Tensor();
  w.column_sums_before = {};
  return w;
}

// [L, H, W]: each word map summed over its query rows, sum_a W_ab = sum_i (1 / |word(i)|) sum_{j in b}
// A_ij: the pieces' maps weighed row by row and summed over their rows a block at a time
// (`pieces`: their rows made again), then their columns summed per word once a layer.
at::Tensor word_column_sums(const AttentionRows& pieces, const TextCaptures& w, const at::Tensor& bounds,
                            const WordMapsMadeAgain& maps) {
  const int64_t L = w.num_layers, H = w.num_heads, n = w.pieces->length;
  const at::Tensor sizes = run_lengths(bounds);
  const at::Tensor weights = at::repeat_interleave(sizes.to(at::kFloat).reciprocal(), sizes);  // [n] 1 / |word(i)|
  at::Tensor sums = at::empty({L, H, w.length}, at::kFloat);
  for (int64_t l = 0; l < L; ++l) {
    at::Tensor columns = at::zeros({H, n}, at::kFloat);
    for (const auto& [first, count] : row_blocks(n, rows_per_block(H * n))) {
      stop_if_stale(maps.keep_going);
      columns += (pieces(l, -1, {first, count}) * weights.narrow(0, first, count).view({1, count, 1})).sum(1);
    }
    sums[l].copy_(run_sums(columns, 1, bounds));
    if (maps.progress) maps.progress("words", static_cast<double>(l + 1) / static_cast<double>(L));
  }
  return sums;
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
  c10::InferenceMode guard;
  TextCaptures w = averaged_over_words(pieces, groups);
  const at::Tensor member = membership(groups, pieces.length).to(pieces.attention.device());  // [W, n]
  const at::Tensor mean = member / member.sum(1, true);  // each row averages a word's pieces
  w.attention = at::matmul(at::matmul(mean, pieces.attention.to(at::kFloat)), member.t())
                    .contiguous();  // mean over rows, sum over columns
  return w;
}

TextCaptures long_text_word_captures(std::shared_ptr<const TextCaptures> pieces, const WordGroups& groups,
                                     const WordMapsMadeAgain& maps) {
  if (!maps.rows) throw Error("a long text's words need its maps made again by the model that ran it");
  c10::InferenceMode guard;
  TextCaptures w = averaged_over_words(*pieces, groups);
  w.first_pieces.assign(groups.first_piece.begin(), groups.first_piece.end());
  // Of the pieces' captures only what makes their maps again stays (queries, keys, visibility):
  // their head outputs and states, as large as the queries, are the words' now.
  auto remakes = std::make_shared<TextCaptures>(*pieces);
  remakes->head_outputs = remakes->hidden_states = remakes->value_norms = remakes->value_gram = at::Tensor();
  remakes->column_sums = remakes->last_state = at::Tensor();
  pieces.reset();
  w.pieces = std::move(remakes);
  w.column_sums = word_column_sums(maps.rows(*w.pieces), w, piece_bounds(groups), maps).to(w.head_outputs.device());
  return w;
}

TextRun to_words(TextRun pieces, const WordMapsMadeAgain& maps) {
  WordGroups groups = group_words(pieces.encoding);
  TextCaptures captures =
      pieces.captures.attention.defined()
          ? word_captures(pieces.captures, groups)
          : long_text_word_captures(std::make_shared<const TextCaptures>(std::move(pieces.captures)), groups, maps);
  return {std::move(groups.words), std::move(captures)};
}

}  // namespace attnscope
