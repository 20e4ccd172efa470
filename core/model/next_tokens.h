#pragma once
// What a decoder would write next: the most likely tokens after a text, from the final norm's
// output at its last token (TextCaptures::last_state: a forward whose last layer ran complete, or
// at least at that token) through the model's output matrix (lm_head, or the word embeddings
// where tied: model/token_matrix.h), softmax in float64.
#include <cstdint>
#include <vector>

#include "model/captures.h"
#include "model/transformer.h"

namespace attnscope {

struct NextToken {
  int64_t id = 0;
  double probability = 0;
};

// The `count` most likely, most likely first. One line when the model is an encoder or the
// captures hold no last state.
std::vector<NextToken> next_tokens(const Transformer& model, const TextCaptures& captures, int count);

}  // namespace attnscope
