#pragma once
// What a decoder would write next: the most likely tokens after a text, from the final norm's
// output at its last token (the captures of a forward whose last layer ran complete) through the
// model's output matrix (lm_head, or the word embeddings where tied), softmax in float64.
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
// captures hold no hidden states of a complete last layer.
std::vector<NextToken> next_tokens(const Transformer& model, const TextCaptures& captures, int count);

}  // namespace attnscope
