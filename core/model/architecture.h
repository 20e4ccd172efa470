#pragma once
// An architecture is a description, not a copy of the forward: the traits the one transformer
// forward reads (how positions enter, where the norms sit, the feed-forward block's shape) and where
// the family's tensors are named in model.safetensors. Adding a family adds an entry to the table
// in architecture.cpp, its config.json reader in config.cpp, and its tests (docs/architectures.md).
#include <string>
#include <string_view>

namespace attnscope {

// Absolute: a learned table of positions, added to the embeddings (from ModelConfig::position_offset
// on, RoBERTa's offset past the padding index). Rotary: queries and keys rotated by position.
// Relative: none in the embeddings; the scores get terms of the tokens' relative positions
// (DeBERTa's disentangled attention, ModelConfig::disentangled).
enum class PositionScheme { Absolute, Rotary, Relative };
// Post: each block's residual sum normalised (BERT). Pre: each block's input normalised, the last
// layer's output too (ModernBERT).
enum class NormPlacement { Post, Pre };
// Plain: act(x W_in) W_out. Gated: W_in makes two halves, act(a) * b (ModernBERT's GeGLU; the
// decoders' gate and up projections, read as one matrix).
enum class FeedForward { Plain, Gated };
// Both: a token attends to the whole text (encoders). Causal: to itself and the tokens before it
// (decoders).
enum class AttentionDirection { Both, Causal };
// Layer: LayerNorm (mean and variance, weight and bias). Rms: RMSNorm, x / rms(x) * w (Llama).
// RmsPlusOne: x / rms(x) * (1 + w), in float32 (Gemma).
enum class NormKind { Layer, Rms, RmsPlusOne };

// Tensor names below the task model's prefix; each name is taken with ".weight" and ".bias" after
// it. An empty name: the family has no such tensor.
struct EmbeddingNames {
  const char* words = "";
  const char* positions = "";
  const char* token_types = "";  // read when the config has token types (type_vocab_size > 0)
  const char* norm = "";
  const char* project = "";     // embedding width to hidden size: read when the file has it (required when they differ)
  const char* final_norm = "";  // the last layer's output normalised (pre-norm families)
  // Decoders: the next-token scores' matrix, outside the prefix (the word embeddings where the file
  // has none: tied).
  const char* output = "lm_head";
  // A table of relative position biases [buckets, heads] shared by the layers (MPNet), or none.
  const char* relative_bias = "";
  // DeBERTa: relative position embeddings [2 span, hidden] and their norm, shared by the layers.
  const char* relative_embeddings = "";
  const char* relative_norm = "";
};

struct LayerNames {
  // A layer's prefix, its number in place of "{}". Shared layers (ALBERT): "{group}" and "{inner}".
  const char* layer = "";
  // Separate projections, or one fused matrix of [q; k; v] rows (then query, key and value are empty).
  const char *query = "", *key = "", *value = "", *qkv = "";
  const char* attention_out = "";
  const char* attention_norm = "";  // post-norm: after attention; pre-norm: before it
  const char* ffn_in = "";
  const char* ffn_out = "";
  const char* ffn_norm = "";  // post-norm: after the feed-forward block; pre-norm: before it
  // Decoders: queries and keys normalised per head before the rotation (Qwen3, Gemma 3); the
  // outputs of attention and of the feed-forward block normalised before their residual sums
  // (Gemma 2 and 3); the gate of a gated block as its own matrix, read before ffn_in's rows.
  const char* query_norm = "";
  const char* key_norm = "";
  const char* post_attention_norm = "";
  const char* post_ffn_norm = "";
  const char* ffn_gate = "";
};

struct Architecture {
  std::string_view family;  // how attnscope names the family: "bert", "roberta", "modernbert", ...
  std::string_view prefix;  // what a task model (masked LM, classifier) puts before the encoder's names
  PositionScheme positions = PositionScheme::Absolute;
  NormPlacement norm = NormPlacement::Post;
  FeedForward feed_forward = FeedForward::Plain;
  bool first_layer_attention_norm = true;  // false: layer 0 attends to the embeddings' norm as is (ModernBERT)
  bool shared_layers = false;              // groups of layers run again and again (ALBERT)
  EmbeddingNames embeddings;
  LayerNames layer;
  AttentionDirection direction = AttentionDirection::Both;
  NormKind norm_kind = NormKind::Layer;
  bool scaled_embeddings = false;  // the embeddings times sqrt(hidden size) (Gemma)
  bool conv1d_weights = false;     // projections stored [in, out] (GPT-2's Conv1D), not [out, in]
  bool qkv_by_head = false;        // a fused projection's rows already [H, 3, d] (GPT-NeoX), not [3, H, d]
};

// The description of a family by its config.json model_type (xlm-roberta and camembert are
// RoBERTa's); null when attnscope reads no such model type.
const Architecture* architecture_of(std::string_view model_type);
// The model types attnscope reads, in the words of the refusal for any other.
inline constexpr const char* kSupportedModelTypes =
    "bert, distilbert, roberta, xlm-roberta, camembert, electra, albert, modernbert, mpnet, deberta-v2, llama, "
    "mistral, "
    "qwen2, qwen3, "
    "gemma2, gemma3_text, gpt2, gpt_neox";

}  // namespace attnscope
