#pragma once
// Token ids that make a text of n tokens for any model, whatever its vocabulary: spread over the
// vocabulary by a stride (no special meaning to any id but 0, which is left out), and as many as
// the model's positions allow. Different seeds give different texts of the same length. And the
// real decoders tools/setup.sh fetches, for the checks that need real shapes and long texts.
#include <cstdint>
#include <functional>
#include <vector>

#include "model/transformer.h"

namespace attnscope::test {

std::vector<int64_t> spread_token_ids(const Transformer& model, int64_t n, int64_t seed);

// `check` on SmolLM2 (grouped queries, 3 key/value heads of 64) and Gemma 3 (QK norms, a sliding
// window, one key/value head of 256), opened from their GGUF files where they are here (where not,
// the calling test fails saying how to fetch them: real_model_file).
void on_real_decoders(const std::function<void(const Transformer&)>& check);

}  // namespace attnscope::test
