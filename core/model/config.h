#pragma once
// The numbers of a checkpoint, read from its config.json and checked, and the description of its
// architecture (model/architecture.h): BERT and the encoders built like it (DistilBERT without
// token types; RoBERTa, XLM-R and CamemBERT with positions offset past the padding index; ELECTRA
// and ALBERT with embeddings smaller than the hidden size, ALBERT with its layers shared) and
// ModernBERT (pre-norm layers, rotary positions, a GeGLU feed-forward block, local attention in
// most layers); the decoders (model/decoder_config.h: causal, grouped key and value heads).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/architecture.h"
#include "model/captures.h"

namespace attnscope {

enum class Activation { GeluErf, GeluTanh, Relu, Silu };
// How the rotary frequencies are stretched for contexts longer than the training's
// (model/rotary_positions.h): not at all, all divided by `factor` (linear), or Llama 3's blend.
struct RotaryScaling {
  enum class Kind { None, Linear, Llama3 } kind = Kind::None;
  double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
  int64_t original_positions = 0;  // Llama 3: original_max_position_embeddings
};
// Which layers attend locally (a band of `local_window` tokens on either side; a decoder's sliding
// window of W tokens, the query's own included, is a band of W - 1 before it) and which globally,
// and the rotary base of each kind (rotary families).
struct RotaryLayers {
  std::vector<bool> local;  // per layer
  int64_t local_window = 0;
  double global_theta = 160000.0, local_theta = 10000.0;
  int64_t dims = 0;  // the rotated dimensions of each head, from the first (0: all; GPT-NeoX: a part)
  RotaryScaling scaling;
};

struct ModelConfig {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t intermediate_size = 0;
  int64_t max_positions = 0;
  int64_t type_vocab_size = 0;
  double layer_norm_eps = 1e-12;
  Activation activation = Activation::GeluErf;
  const Architecture* architecture = architecture_of("bert");  // never null
  std::string model_type = "bert";                             // as config.json names it (xlm-roberta, camembert, ...)
  int64_t embedding_size = 0;  // ELECTRA, ALBERT: the embeddings' width, projected to hidden_size
  int64_t pad_token_id = 0;
  int64_t position_offset = 0;  // RoBERTa family: padding_idx + 1, the first position a token takes
  int64_t weight_groups = 1;    // ALBERT: num_hidden_groups, the distinct layer groups...
  int64_t inner_layers = 1;     // ...of inner_group_num layers each; num_layers counts every layer run
  RotaryLayers rotary;          // ModernBERT; no local layers elsewhere
  bool norm_bias = true;        // ModernBERT, the decoders: norms without biases
  struct ProjectionBiases {
    bool qkv = true, attention_out = true, ffn = true;
  } biases;                      // ModernBERT: none; Qwen2: the query, key and value projections'
  int64_t num_kv_heads = 0;      // grouped queries: the key and value heads (0: as many as the query heads)
  int64_t head_size = 0;         // a head's width where it is not hidden_size / num_heads (0: it is)
  double attention_scale = 0;    // the scores' scale where it is not 1 / sqrt(head_dim) (0: it is)
  double output_softcap = 0;     // Gemma: next-token scores s become c tanh(s / c) (0: left as they are)
  double attention_softcap = 0;  // Gemma 2: attention scores likewise, before the mask and softmax
  bool parallel_blocks = false;  // GPT-NeoX: attention and feed-forward both read the layer's input
  // MPNet: the buckets of the relative position bias (model/relative_position_bias.h; 0: no bias)
  // and the distance past which offsets share the last bucket.
  int64_t relative_buckets = 0, relative_max_distance = 128;
  // DeBERTa's disentangled attention: content-to-position and position-to-content terms over
  // `span` relative positions either way (the embeddings' rows are 2 span), the offsets put in
  // log buckets (model/relative_position_bias.h) when `buckets` > 0.
  struct Disentangled {
    bool content_to_position = false, position_to_content = false;
    int64_t span = 0, buckets = 0, max_position = 0;
  } disentangled;

  int64_t head_dim() const { return head_size > 0 ? head_size : hidden_size / num_heads; }
  int64_t rotary_dims() const { return rotary.dims > 0 ? rotary.dims : head_dim(); }
  int64_t kv_heads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }
  double scores_scale() const;
  bool causal() const { return architecture->direction == AttentionDirection::Causal; }
  AttentionVisibility visibility() const;  // which queries may attend to each key, per layer
  int64_t embedding_width() const { return embedding_size > 0 ? embedding_size : hidden_size; }
  bool is_local_layer(size_t layer) const { return layer < rotary.local.size() && rotary.local[layer]; }
  bool has_local_layers() const;
  // The most tokens a text may have (the position table less the RoBERTa offset).
  int64_t max_tokens() const { return max_positions - position_offset; }

  static ModelConfig load(const std::filesystem::path& file);
  // `source` names the file in error messages.
  static ModelConfig from_json(const nlohmann::json& json, const std::string& source);
  nlohmann::json to_json() const;

 private:
  std::string source_json_;  // the architectures read from their own keys are written back as read
};

}  // namespace attnscope
