// The architecture descriptions (model/architecture.h): every model type the refusal names has
// one, and each is coherent with the forward that reads it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "model/architecture.h"

namespace attnscope {
namespace {

std::vector<std::string> supported_types() {
  std::vector<std::string> types;
  std::stringstream list(kSupportedModelTypes);
  for (std::string type; std::getline(list, type, ',');) types.push_back(type.substr(type.find_first_not_of(' ')));
  return types;
}

TEST(Architecture, EveryModelTypeTheRefusalNamesHasADescription) {
  const auto types = supported_types();
  ASSERT_EQ(types.size(), 18u);
  for (const auto& type : types) EXPECT_NE(architecture_of(type), nullptr) << type;
  EXPECT_EQ(architecture_of("gpt_bigcode"), nullptr);
  EXPECT_EQ(architecture_of(""), nullptr);
  EXPECT_EQ(architecture_of("xlm-roberta"), architecture_of("roberta"));
  EXPECT_EQ(architecture_of("camembert")->family, "roberta");
}

TEST(Architecture, EachDescriptionIsCoherentWithTheForward) {
  for (const auto& type : supported_types()) {
    const Architecture& a = *architecture_of(type);
    SCOPED_TRACE(type);
    const LayerNames& n = a.layer;
    const bool separate = *n.query && *n.key && *n.value;
    EXPECT_NE(separate, static_cast<bool>(*n.qkv)) << "a fused projection or three, never both";
    EXPECT_TRUE(*n.attention_out && *n.attention_norm && *n.ffn_in && *n.ffn_out && *n.ffn_norm);
    // Encoders normalise their embeddings; decoders normalise each layer's input instead.
    EXPECT_TRUE(*a.embeddings.words);
    EXPECT_EQ(a.direction == AttentionDirection::Both, static_cast<bool>(*a.embeddings.norm));
    // A decoder's keys and values may have fewer heads than its queries: their projections apart,
    // unless the family never groups them (GPT-2, GPT-NeoX: one fused projection).
    EXPECT_TRUE(a.direction == AttentionDirection::Both || separate || a.norm_kind == NormKind::Layer);
    EXPECT_TRUE(!a.qkv_by_head || *n.qkv) << "rows grouped by head only in a fused projection";
    EXPECT_EQ(static_cast<bool>(*n.query_norm), static_cast<bool>(*n.key_norm)) << "queries and keys both or neither";
    EXPECT_TRUE(!*n.ffn_gate || a.feed_forward == FeedForward::Gated) << "a gate only in a gated block";
    EXPECT_EQ(static_cast<bool>(*n.post_attention_norm), static_cast<bool>(*n.post_ffn_norm))
        << "norms after both blocks or neither";
    // Absolute positions need their table; rotary ones have none.
    EXPECT_EQ(a.positions == PositionScheme::Absolute, static_cast<bool>(*a.embeddings.positions));
    // A pre-norm stack leaves its residual sum unnormalised: its last output needs a final norm.
    EXPECT_EQ(a.norm == NormPlacement::Pre, static_cast<bool>(*a.embeddings.final_norm));
    EXPECT_TRUE(a.first_layer_attention_norm || a.norm == NormPlacement::Pre)
        << "a post-norm layer always normalises its attention";
    const std::string layer = n.layer;
    if (a.shared_layers)
      EXPECT_TRUE(layer.find("{group}") != std::string::npos && layer.find("{inner}") != std::string::npos);
    else
      EXPECT_NE(layer.find("{}"), std::string::npos);
    EXPECT_TRUE(!a.prefix.empty() && a.prefix.back() == '.');
  }
}

}  // namespace
}  // namespace attnscope
