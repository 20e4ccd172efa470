#pragma once
// BERT's encoder weights, loaded from model.safetensors, checked against the config, and placed
// on the compute device. The query, key and value projections are fused into one matrix, grouped
// by head, so a layer's projections are a single matrix product.
#include <ATen/core/Tensor.h>

#include <vector>

#include "model/config.h"
#include "model/device.h"
#include "model/safetensors.h"

namespace attnscope {

struct LayerWeights {
  at::Tensor qkv_weight, qkv_bias;        // [3D, D], [3D]: per head its query, key and value rows
  at::Tensor attn_out_weight, attn_out_bias;
  at::Tensor attn_norm_weight, attn_norm_bias;
  at::Tensor ffn_in_weight, ffn_in_bias;   // [I, D]
  at::Tensor ffn_out_weight, ffn_out_bias; // [D, I]
  at::Tensor ffn_norm_weight, ffn_norm_bias;
};

struct BertWeights {
  at::Tensor word_embeddings, position_embeddings, token_type_embeddings;
  at::Tensor embed_norm_weight, embed_norm_bias;
  std::vector<LayerWeights> layers;
};

// Tensor names are taken with or without the "bert." prefix, LayerNorm as weight/bias or the
// older gamma/beta; task heads (cls.*, pooler) are ignored.
BertWeights load_bert_weights(const SafetensorsFile& file, const BertConfig& config, const ComputeDevice& device);

}  // namespace attnscope
