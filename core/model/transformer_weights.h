#pragma once
// A transformer's weights, loaded from model.safetensors under the names its architecture's
// description gives (model/architecture.h), checked against the config, and placed on the compute
// device. A layer's query, key and value projections are one matrix, so they are a single matrix
// product: an encoder's grouped by head, a decoder's stacked, queries then keys then values (its
// keys and values may have fewer heads than its queries). Tensors an architecture lacks stay
// undefined (no biases in ModernBERT, no norm before its first layer's attention); shared layers
// (ALBERT) are the same tensors listed once per layer run.
#include <ATen/core/Tensor.h>

#include <vector>

#include "model/config.h"
#include "model/device.h"
#include "model/tensor_source.h"
#include "model/token_matrix.h"

namespace attnscope {

struct LayerWeights {
  at::Tensor qkv_weight, qkv_bias;  // encoders: [3D, D], [3D]: per head its query, key and value rows
  // Decoders: the query, key and value rows stacked, [(H + 2 H_kv) d, D] (one product for the
  // three, their head counts apart), the bias where the family has one; the queries' and keys'
  // norms per head [d] (Qwen3, Gemma 3).
  at::Tensor stacked_qkv_weight, stacked_qkv_bias;
  at::Tensor q_norm_weight, k_norm_weight;
  at::Tensor attn_out_weight, attn_out_bias;
  at::Tensor attn_norm_weight, attn_norm_bias;
  at::Tensor ffn_in_weight, ffn_in_bias;                   // [I, D]; ModernBERT: [2I, D], the GeGLU's input and gate
  at::Tensor ffn_out_weight, ffn_out_bias;                 // [D, I]
  at::Tensor ffn_norm_weight, ffn_norm_bias;               // ModernBERT: the norm before the feed-forward block
  at::Tensor post_attn_norm_weight, post_ffn_norm_weight;  // Gemma: the blocks' outputs normalised
  // DeBERTa: the relative embeddings through this layer's query and key projections, per head and
  // transposed, [H, d, 2 span]: what the position-to-content and content-to-position terms read.
  at::Tensor relative_query_t, relative_key_t;
};

struct TransformerWeights {
  // The word embeddings as a vocabulary's rows (model/token_matrix.h): a tensor, or a GGUF file's
  // Q8_0 blocks where the model runs in float32 on the CPU.
  TokenMatrix word_embeddings;
  at::Tensor position_embeddings, token_type_embeddings;
  at::Tensor embed_norm_weight, embed_norm_bias;
  at::Tensor embed_project_weight, embed_project_bias;  // ELECTRA, ALBERT: embedding width to hidden size
  at::Tensor final_norm_weight, final_norm_bias;        // ModernBERT
  // Decoders: the next-token scores' matrix [V, D], lm_head's, or the word embeddings where tied.
  TokenMatrix output_weight;
  at::Tensor relative_bias;  // MPNet: [buckets, H], shared by the layers
  // DeBERTa: the relative position embeddings [2 span, D], normalised once when loaded.
  at::Tensor relative_embeddings;
  std::vector<LayerWeights> layers;
};

// Tensor names are taken with or without the architecture's prefix ("bert.", "roberta.", "model.",
// ...), LayerNorm as weight/bias or the older gamma/beta; task heads (cls.*, pooler) are ignored.
TransformerWeights load_weights(const TensorSource& source, const ModelConfig& config, const ComputeDevice& device);

}  // namespace attnscope
