#include "model/next_tokens.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "base/error.h"

namespace attnscope {

std::vector<NextToken> next_tokens(const Transformer& model, const TextCaptures& captures, int count) {
  const TokenMatrix& output = model.output_weight();
  if (!output.defined()) throw Error("an encoder predicts no next token (only decoders do)");
  if (!captures.last_state.defined())
    throw Error("the next token needs the last token's final state (a forward whose last layer ran at least there)");
  at::Tensor scores = output.scores(captures.last_state).to(at::kDouble);
  if (const double cap = model.config().output_softcap; cap > 0) scores = at::tanh(scores / cap) * cap;
  const at::Tensor probabilities = at::softmax(scores, 0).to(at::kCPU);
  const auto top = at::topk(probabilities, std::min<int64_t>(count, probabilities.size(0)));
  std::vector<NextToken> out;
  for (int64_t k = 0; k < std::get<0>(top).size(0); ++k)
    out.push_back({std::get<1>(top)[k].item<int64_t>(), std::get<0>(top)[k].item<double>()});
  return out;
}

}  // namespace attnscope
