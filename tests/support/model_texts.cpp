#include "support/model_texts.h"

#include <algorithm>

namespace attnscope::test {

std::vector<int64_t> spread_token_ids(const Transformer& model, int64_t n, int64_t seed) {
  n = std::min(n, model.config().max_tokens());
  std::vector<int64_t> ids;
  for (int64_t k = 0; k < n; ++k) ids.push_back(1 + (seed + k * 7919) % (model.config().vocab_size - 1));
  return ids;
}

}  // namespace attnscope::test
