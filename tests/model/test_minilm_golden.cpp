// Parity with the reference (transformers BertModel, eager attention) on the real MiniLM
// checkpoint: identical ids, attention maps and head outputs within 1e-4 on CPU float32.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "results/result_json.h"
#include "model/checkpoint.h"
#include "support/minilm.h"
#include "support/paths.h"

namespace attnscope {
namespace {

class MiniLMGolden : public ::testing::Test {
 protected:
  const nlohmann::json& golden_ = test::golden("minilm_captures.json");
  const Checkpoint& checkpoint_ = test::minilm_checkpoint();

  static void expect_matches(const nlohmann::json& expected, const TextRun& run) {
    const TextCaptures& c = run.captures;
    const int64_t n = c.length, d = c.head_dim;
    EXPECT_EQ(run.encoding.ids(), expected["ids"].get<std::vector<int64_t>>());
    for (const auto& head : expected["heads"]) {
      const int64_t l = head["layer"], h = head["head"];
      const at::Tensor a = matrix_from_json(head["attention"], n, n, "golden");
      const at::Tensor o = matrix_from_json(head["output"], n, d, "golden");
      EXPECT_LE((c.attention[l][h] - a).abs().max().item<double>(), 1e-4) << "attention, layer " << l << " head " << h;
      EXPECT_LE((c.head_outputs[l][h] - o).abs().max().item<double>(), 1e-4) << "output, layer " << l << " head " << h;
    }
    // Every head: sums and sums of squares agree to float32 accumulation accuracy.
    const auto close = [](double ours, double ref) { return std::abs(ours - ref) <= 1e-5 * std::abs(ref) + 1e-3; };
    for (int64_t l = 0; l < c.num_layers; ++l)
      for (int64_t h = 0; h < c.num_heads; ++h) {
        const auto& sums = expected["checksums"][l][h];
        const at::Tensor a = c.attention[l][h].to(at::kDouble), o = c.head_outputs[l][h].to(at::kDouble);
        EXPECT_PRED2(close, a.sum().item<double>(), sums["attention"][0].get<double>()) << l << "/" << h;
        EXPECT_PRED2(close, a.square().sum().item<double>(), sums["attention"][1].get<double>()) << l << "/" << h;
        EXPECT_PRED2(close, o.sum().item<double>(), sums["output"][0].get<double>()) << l << "/" << h;
        EXPECT_PRED2(close, o.square().sum().item<double>(), sums["output"][1].get<double>()) << l << "/" << h;
      }
    for (int64_t l = 0; l <= c.num_layers; ++l) {
      const at::Tensor hs = c.hidden_states[l].to(at::kDouble);
      EXPECT_PRED2(close, hs.sum().item<double>(), expected["hidden"][l][0].get<double>()) << "hidden " << l;
      EXPECT_PRED2(close, hs.square().sum().item<double>(), expected["hidden"][l][1].get<double>()) << "hidden " << l;
    }
  }
};

TEST_F(MiniLMGolden, EachTextAloneMatchesTheReference) {
  ASSERT_GE(golden_["texts"].size(), 3u);
  for (const auto& expected : golden_["texts"]) {
    SCOPED_TRACE(expected["text"].get<std::string>().substr(0, 40));
    expect_matches(expected, checkpoint_.run(expected["text"].get<std::string>(), 128));
  }
}

TEST_F(MiniLMGolden, TextsBatchedWithPadsMatchTheReference) {
  std::vector<Encoding> encodings;
  for (const auto& expected : golden_["texts"])
    encodings.push_back(checkpoint_.encode(expected["text"].get<std::string>(), 128));
  const auto runs = checkpoint_.run(encodings);
  for (size_t i = 0; i < runs.size(); ++i) expect_matches(golden_["texts"][i], runs[i]);
}

// The explorer's forward checks between slices of each product (so a stale run stops within about
// 2 ms of work): at 512 tokens MiniLM's products are cut, and the captures are those of the forward
// in one piece, bit for bit on the CPU (the slices are whole outputs, each summed as before). On a
// GPU the matrix library picks its kernel by the product's shape, and a slice's sums may be ordered
// otherwise: there they agree as the GPU's captures agree with the CPU's (GpuParity: within 1e-4
// of the largest magnitude).
TEST_F(MiniLMGolden, TheExplorersSlicedForwardIsTheSameForward) {
  std::string text;
  for (const auto& expected : golden_["texts"]) text += expected["text"].get<std::string>() + " ";
  for (int i = 0; i < 3; ++i) text += text;
  const std::vector<int64_t> ids = checkpoint_.encode(text, 512).ids();
  ASSERT_EQ(ids.size(), 512u);
  const Transformer& model = checkpoint_.model();
  const BatchCaptures whole = model.forward({ids});
  int checks = 0;
  const BatchCaptures sliced =
      model.forward({ids}, {.last_layer = LastLayer::Complete, .keep_going = [&] { return ++checks > 0; }});
  EXPECT_GT(checks, 4 * static_cast<int>(model.config().num_layers)) << "the products were cut into slices";
  const auto same = [&](const at::Tensor& a, const at::Tensor& b) {
    if (model.device().device.is_cpu()) return at::equal(a, b);
    const double largest = b.abs().max().item<double>(), off = (a - b).abs().max().item<double>();
    EXPECT_LE(off, 1e-4 * largest) << "the largest magnitude is " << largest;
    return off <= 1e-4 * largest;
  };
  EXPECT_TRUE(same(sliced.all_attention, whole.all_attention));
  EXPECT_TRUE(same(sliced.all_head_outputs, whole.all_head_outputs));
  EXPECT_TRUE(same(sliced.hidden_states.back(), whole.hidden_states.back()));
  for (int allowed : {5, 6, 7}) {  // checks between slices of the first layer's feed-forward products
    int asked = 0;
    EXPECT_THROW(
        model.forward({ids}, {.last_layer = LastLayer::Complete, .keep_going = [&] { return asked++ < allowed; }}),
        Cancelled);
    EXPECT_EQ(asked, allowed + 1) << "nothing more is computed once a check says stop";
  }
}

TEST_F(MiniLMGolden, TheLongTextIsTruncatedTo128) {
  const auto& first = golden_["texts"][0];
  const Encoding e = checkpoint_.encode(first["text"].get<std::string>(), 128);
  EXPECT_EQ(e.size(), 128u);
  EXPECT_TRUE(e.truncated);
  EXPECT_GT(e.full_length, 128u);
  EXPECT_EQ(e.tokens.front().text, "[CLS]");
  EXPECT_EQ(e.tokens.back().text, "[SEP]");
}

}  // namespace
}  // namespace attnscope
