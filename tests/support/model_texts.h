#pragma once
// Token ids that make a text of n tokens for any model, whatever its vocabulary: spread over the
// vocabulary by a stride (no special meaning to any id but 0, which is left out), and as many as
// the model's positions allow. Different seeds give different texts of the same length.
#include <cstdint>
#include <vector>

#include "model/transformer.h"

namespace attnscope::test {

std::vector<int64_t> spread_token_ids(const Transformer& model, int64_t n, int64_t seed);

}  // namespace attnscope::test
