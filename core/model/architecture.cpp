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

// Biases only where the config asks for them (ModelConfig::biases, norm_bias).
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

// MPNet: BERT's layers under its own names, RoBERTa's positions (ModelConfig::position_offset), no
// token types, and a relative position bias shared by the layers (ModelConfig::relative_buckets).
constexpr Architecture kMpnet{
    "mpnet",
    "mpnet.",
    PositionScheme::Absolute,
    NormPlacement::Post,
    FeedForward::Plain,
    true,
    false,
    EmbeddingNames{"embeddings.word_embeddings", "embeddings.position_embeddings", "", "embeddings.LayerNorm", "", "",
                   "lm_head", "encoder.relative_attention_bias"},
    LayerNames{"encoder.layer.{}.", "attention.attn.q", "attention.attn.k", "attention.attn.v", "", "attention.attn.o",
               "attention.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"}};

// DeBERTa v2 and v3: BERT's post-norm layers under their names, no absolute positions, and
// disentangled attention: relative position embeddings, normalised, projected by each layer's own
// query and key projections (ModelConfig::disentangled).
constexpr Architecture kDebertaV2{
    "deberta-v2",
    "deberta.",
    PositionScheme::Relative,
    NormPlacement::Post,
    FeedForward::Plain,
    true,
    false,
    EmbeddingNames{"embeddings.word_embeddings", "", "embeddings.token_type_embeddings", "embeddings.LayerNorm", "", "",
                   "lm_head", "", "encoder.rel_embeddings", "encoder.LayerNorm"},
    LayerNames{"encoder.layer.{}.", "attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj",
               "", "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
               "output.LayerNorm"}};

// The decoders of Llama's design: pre-norm RMSNorm layers, rotary positions, a gated feed-forward
// block with its gate as its own matrix, the final norm; a causal mask.
constexpr EmbeddingNames kLlamaEmbeddings{"embed_tokens", "", "", "", "", "norm"};
constexpr LayerNames kLlamaLayer{"layers.{}.",
                                 "self_attn.q_proj",
                                 "self_attn.k_proj",
                                 "self_attn.v_proj",
                                 "",
                                 "self_attn.o_proj",
                                 "input_layernorm",
                                 "mlp.up_proj",
                                 "mlp.down_proj",
                                 "post_attention_layernorm",
                                 "",
                                 "",
                                 "",
                                 "",
                                 "mlp.gate_proj"};
constexpr Architecture kLlama{
    "llama",          "model.",    PositionScheme::Rotary,     NormPlacement::Pre, FeedForward::Gated, true, false,
    kLlamaEmbeddings, kLlamaLayer, AttentionDirection::Causal, NormKind::Rms};
// A family that differs from another only by its name and its queries' and keys' norms per head
// (empty: none).
constexpr Architecture with_query_key_norms(Architecture a, std::string_view family, const char* query,
                                            const char* key) {
  a.family = family;
  a.layer.query_norm = query;
  a.layer.key_norm = key;
  return a;
}
// Qwen3: Llama's, with its queries and keys normalised per head.
constexpr Architecture kQwen3 = with_query_key_norms(kLlama, "qwen3", "self_attn.q_norm", "self_attn.k_norm");
// Gemma 3: norms before and after each block (its post_attention_layernorm is the one after
// attention, unlike Llama's), queries and keys normalised, RMSNorm with 1 + w, scaled embeddings.
constexpr Architecture kGemma3{
    "gemma3",
    "model.",
    PositionScheme::Rotary,
    NormPlacement::Pre,
    FeedForward::Gated,
    true,
    false,
    kLlamaEmbeddings,
    LayerNames{"layers.{}.", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "", "self_attn.o_proj",
               "input_layernorm", "mlp.up_proj", "mlp.down_proj", "pre_feedforward_layernorm", "self_attn.q_norm",
               "self_attn.k_norm", "post_attention_layernorm", "post_feedforward_layernorm", "mlp.gate_proj"},
    AttentionDirection::Causal,
    NormKind::RmsPlusOne,
    true};

// Gemma 2: Gemma 3's layout without the query and key norms (its scores soft-capped instead).
constexpr Architecture kGemma2 = with_query_key_norms(kGemma3, "gemma2", "", "");
// GPT-2: learned positions, pre-norm LayerNorm layers, one fused projection, its matrices stored
// [in, out] (Conv1D), the final norm ln_f, the output tied to the word embeddings.
constexpr Architecture kGpt2{
    "gpt2",
    "transformer.",
    PositionScheme::Absolute,
    NormPlacement::Pre,
    FeedForward::Plain,
    true,
    false,
    EmbeddingNames{"wte", "wpe", "", "", "", "ln_f"},
    LayerNames{"h.{}.", "", "", "", "attn.c_attn", "attn.c_proj", "ln_1", "mlp.c_fc", "mlp.c_proj", "ln_2"},
    AttentionDirection::Causal,
    NormKind::Layer,
    false,
    true};
// GPT-NeoX (Pythia): pre-norm LayerNorm layers, one fused projection grouped by head, rotary
// positions on part of each head (ModelConfig::rotary.dims), attention and the feed-forward block
// side by side where the config says (ModelConfig::parallel_blocks), its own output matrix.
constexpr Architecture kGptNeox{
    "gpt_neox",
    "gpt_neox.",
    PositionScheme::Rotary,
    NormPlacement::Pre,
    FeedForward::Plain,
    true,
    false,
    EmbeddingNames{"embed_in", "", "", "", "", "final_layer_norm", "embed_out"},
    LayerNames{"layers.{}.", "", "", "", "attention.query_key_value", "attention.dense", "input_layernorm",
               "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "post_attention_layernorm"},
    AttentionDirection::Causal,
    NormKind::Layer,
    false,
    false,
    true};

constexpr std::array<std::pair<std::string_view, const Architecture*>, 18> kByModelType{{
    {"bert", &kBert},
    {"distilbert", &kDistilBert},
    {"roberta", &kRoberta},
    {"xlm-roberta", &kRoberta},
    {"camembert", &kRoberta},
    {"electra", &kElectra},
    {"albert", &kAlbert},
    {"modernbert", &kModernBert},
    {"mpnet", &kMpnet},
    {"deberta-v2", &kDebertaV2},
    {"llama", &kLlama},
    {"mistral", &kLlama},
    {"qwen2", &kLlama},
    {"qwen3", &kQwen3},
    {"gemma2", &kGemma2},
    {"gemma3_text", &kGemma3},
    {"gpt2", &kGpt2},
    {"gpt_neox", &kGptNeox},
}};

}  // namespace

const Architecture* architecture_of(std::string_view model_type) {
  for (const auto& [type, architecture] : kByModelType)
    if (type == model_type) return architecture;
  return nullptr;
}

}  // namespace attnscope
