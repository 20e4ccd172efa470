// The real all-mpnet-base-v2 (MPNet, BERT-base's shape, trained; tools/setup.sh fetches it) against
// transformers (tools/make_mpnet_golden.py): on texts written for this fixture alone, its
// tokenizer's ids, and on the first text every layer's attention within 1e-4, the head outputs of
// three layers and the last hidden state within 1e-4 of their largest entry.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "model/checkpoint.h"
#include "model/safetensors.h"
#include "model/tensor_source.h"
#include "support/golden_captures.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

nlohmann::json expected() { return test::read_json(test::golden_dir() / "mpnet" / "real.json"); }

at::Tensor reference(const std::string& name) {
  const SafetensorsFile file(test::golden_dir() / "mpnet" / "real.safetensors");
  return SafetensorsSource(file).read(name);
}

TEST(MpnetGolden, TokensAreTransformers) {
  const auto dir = test::real_model_file("models/all-mpnet-base-v2/model.safetensors").parent_path();
  if (!std::filesystem::exists(dir / "model.safetensors")) return;
  const auto checkpoint = Checkpoint::load(dir, test::test_device());
  const nlohmann::json e = expected();
  for (size_t k = 0; k < e["texts"].size(); ++k)
    EXPECT_EQ(checkpoint->encode(e["texts"][k].get<std::string>(), 512).ids(), e["ids"][k].get<std::vector<int64_t>>())
        << e["texts"][k];
}

TEST(MpnetGolden, MapsHeadOutputsAndHiddenStatesAreTransformers) {
  const auto dir = test::real_model_file("models/all-mpnet-base-v2/model.safetensors").parent_path();
  if (!std::filesystem::exists(dir / "model.safetensors")) return;
  const auto checkpoint = Checkpoint::load(dir, test::test_device());
  EXPECT_EQ(checkpoint->model().config().relative_buckets, 32);
  const nlohmann::json e = expected();
  const TextCaptures c = text_captures(checkpoint->model().forward({e["ids"][0].get<std::vector<int64_t>>()}), 0, true);
  const at::Tensor attention = reference("attention"), outputs = reference("head_outputs");
  ASSERT_EQ(c.attention.size(0), attention.size(0));
  for (int64_t l = 0; l < attention.size(0); ++l)
    EXPECT_LT((c.attention[l].to(at::kCPU) - attention[l]).abs().max().item<double>(), 1e-4)
        << "attention, layer " << l;
  const auto kept = e["kept_layers"].get<std::vector<int64_t>>();
  for (size_t k = 0; k < kept.size(); ++k)
    EXPECT_LT(test::relative_gap(c.head_outputs[kept[k]], outputs[static_cast<int64_t>(k)]), 1e-4)
        << "head outputs, layer " << kept[k];
  EXPECT_LT(test::relative_gap(c.hidden_states[c.hidden_states.size(0) - 1], reference("last_hidden")), 1e-4);
}

}  // namespace
}  // namespace attnscope
