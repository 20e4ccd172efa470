#include "support/model_texts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope::test {

std::vector<int64_t> spread_token_ids(const Transformer& model, int64_t n, int64_t seed) {
  n = std::min(n, model.config().max_tokens());
  std::vector<int64_t> ids;
  for (int64_t k = 0; k < n; ++k) ids.push_back(1 + (seed + k * 7919) % (model.config().vocab_size - 1));
  return ids;
}

void on_real_decoders(const std::function<void(const Transformer&)>& check) {
  for (const char* file : {"models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf",
                           "models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf"}) {
    SCOPED_TRACE(file);
    const auto path = real_model_file(file);
    if (!std::filesystem::exists(path)) continue;  // real_model_file said how to fetch it
    check(*Transformer::load(path, test_device()));
  }
}

}  // namespace attnscope::test
