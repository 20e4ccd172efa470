#include "model/architecture.h"

#include <array>
#include <utility>

namespace attnscope {
namespace {

// BERT's names; RoBERTa and ELECTRA use them too.
constexpr EmbeddingNames kBertEmbeddings{"embeddings.word_embeddings",
                                         "embeddings.position_embeddings",
                                         "embeddings.token_type_embeddings",
                                         "embeddings.LayerNorm",
                                         "embeddings_project",
                                         ""};
constexpr LayerNames kBertLayer{"encoder.layer.{}.",
                                "attention.self.query",
                                "attention.self.key",
                                "attention.self.value",
                                "",
                                "attention.output.dense",
                                "attention.output.LayerNorm",
                                "intermediate.dense",
                                "output.dense",
                                "output.LayerNorm"};

constexpr Architecture kBert{"bert", "bert.", PositionScheme::Absolute, NormPlacement::Post, FeedForward::Plain,
                             true,   false,   kBertEmbeddings,          kBertLayer};
constexpr Architecture kRoberta{
    "roberta", "roberta.", PositionScheme::Absolute, NormPlacement::Post, FeedForward::Plain,
    true,      false,      kBertEmbeddings,          kBertLayer};
constexpr Architecture kElectra{
    "electra", "electra.", PositionScheme::Absolute, NormPlacement::Post, FeedForward::Plain,
    true,      false,      kBertEmbeddings,          kBertLayer};

constexpr Architecture kDistilBert{
    "distilbert",
    "distilbert.",
    PositionScheme::Absolute,
    NormPlacement::Post,
    FeedForward::Plain,
    true,
    false,
    EmbeddingNames{"embeddings.word_embeddings", "embeddings.position_embeddings", "", "embeddings.LayerNorm", "", ""},
    LayerNames{"transformer.layer.{}.", "attention.q_lin", "attention.k_lin", "attention.v_lin", "",
               "attention.out_lin", "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"}};

constexpr Architecture kAlbert{
    "albert",
    "albert.",
    PositionScheme::Absolute,
    NormPlacement::Post,
    FeedForward::Plain,
    true,
    true,
    EmbeddingNames{"embeddings.word_embeddings", "embeddings.position_embeddings", "embeddings.token_type_embeddings",
                   "embeddings.LayerNorm", "encoder.embedding_hidden_mapping_in", ""},
    LayerNames{"encoder.albert_layer_groups.{group}.albert_layers.{inner}.", "attention.query", "attention.key",
               "attention.value", "", "attention.dense", "attention.LayerNorm", "ffn", "ffn_output",
               "full_layer_layer_norm"}};

// Biases only where the config asks for them (ModelConfig::linear_bias, norm_bias).
constexpr Architecture kModernBert{
    "modernbert",
    "model.",
    PositionScheme::Rotary,
    NormPlacement::Pre,
    FeedForward::Gated,
    false,
    false,
    EmbeddingNames{"embeddings.tok_embeddings", "", "", "embeddings.norm", "", "final_norm"},
    LayerNames{"layers.{}.", "", "", "", "attn.Wqkv", "attn.Wo", "attn_norm", "mlp.Wi", "mlp.Wo", "mlp_norm"}};

constexpr std::array<std::pair<std::string_view, const Architecture*>, 8> kByModelType{{
    {"bert", &kBert},
    {"distilbert", &kDistilBert},
    {"roberta", &kRoberta},
    {"xlm-roberta", &kRoberta},
    {"camembert", &kRoberta},
    {"electra", &kElectra},
    {"albert", &kAlbert},
    {"modernbert", &kModernBert},
}};

}  // namespace

const Architecture* architecture_of(std::string_view model_type) {
  for (const auto& [type, architecture] : kByModelType)
    if (type == model_type) return architecture;
  return nullptr;
}

}  // namespace attnscope
