// DistilBERT (its config keys and tensor names, no token types) runs exactly as transformers runs
// it: a small random-weight model saved by transformers, with its attention maps and hidden states
// as the golden fixture (tools/make_distilbert_golden.py).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "model/checkpoint.h"
#include "model/config.h"
#include "support/nested_tensor.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

const std::filesystem::path kDir = test::golden_dir() / "tiny_distilbert";

TEST(DistilBert, ConfigIsReadAndWrittenInItsOwnKeys) {
  const ModelConfig c = ModelConfig::load(kDir / "config.json");
  EXPECT_EQ(c.architecture->family, "distilbert");
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.num_heads, 4);
  EXPECT_EQ(c.intermediate_size, 40);
  EXPECT_EQ(c.type_vocab_size, 0);
  const ModelConfig again = ModelConfig::from_json(c.to_json(), "again");
  EXPECT_EQ(again.architecture->family, "distilbert");
  EXPECT_EQ(again.intermediate_size, 40);
}

TEST(DistilBert, MatchesTransformers) {
  const auto checkpoint = Checkpoint::load(kDir, test::test_device());
  const nlohmann::json expected_file = test::read_json(kDir / "expected.json");
  const auto& cases = expected_file["cases"];
  ASSERT_EQ(cases.size(), 3u);
  for (const auto& c : cases) {
    const TextRun run = checkpoint->run(c["text"].get<std::string>(), 64);
    EXPECT_EQ(run.encoding.ids(), c["ids"].get<std::vector<int64_t>>()) << c["text"];
    for (int64_t l = 0; l < 2; ++l) {
      const at::Tensor expected = test::nested_tensor(c["attention"][l]);
      EXPECT_LT((run.captures.attention[l] - expected).abs().max().item<double>(), 1e-5) << c["text"] << " layer " << l;
    }
    for (int64_t l = 0; l <= 2; ++l) {
      const at::Tensor expected = test::nested_tensor(c["hidden_states"][l]);
      EXPECT_LT((run.captures.hidden_states[l] - expected).abs().max().item<double>(), 1e-4)
          << c["text"] << " hidden " << l;
    }
  }
}

}  // namespace
}  // namespace attnscope
