#include "model/decoder_config.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "base/error.h"
#include "model/config_keys.h"

namespace attnscope {
namespace {

// The rotary settings every layer shares: rope_parameters (transformers 5) or the older rope_theta
// beside rope_scaling; the base, the part of each head rotated, the scaling (none, linear or Llama
// 3's; any other refused in one line naming it).
void read_rope(ModelConfig& c, const nlohmann::json& json, const char* theta_key, double partial_fallback,
               const std::string& source) {
  nlohmann::json p = json.contains("rope_parameters") && json["rope_parameters"].is_object() ? json["rope_parameters"]
                                                                                             : nlohmann::json::object();
  if (p.empty() && json.contains("rope_scaling") && json["rope_scaling"].is_object()) p = json["rope_scaling"];
  const double theta = positive_number(p, "rope_theta", positive_number(json, theta_key, 10000.0, source), source);
  c.rotary.global_theta = c.rotary.local_theta = theta;
  const double partial =
      positive_number(p, "partial_rotary_factor",
                      positive_number(json, "partial_rotary_factor",
                                      positive_number(json, "rotary_pct", partial_fallback, source), source),
                      source);
  c.rotary.dims = static_cast<int64_t>(static_cast<double>(c.head_dim()) * partial);
  if (c.rotary.dims <= 0 || c.rotary.dims > c.head_dim() || c.rotary.dims % 2 != 0)
    throw Error(source + ": partial_rotary_factor " + std::to_string(partial) + " rotates " +
                std::to_string(c.rotary.dims) + " of " + std::to_string(c.head_dim()) +
                " dimensions; attnscope needs an even number of them");
  const nlohmann::json& named = p.contains("rope_type") ? p["rope_type"] : p.contains("type") ? p["type"] : "default";
  if (!named.is_string()) throw Error(source + ": rope_type " + named.dump() + " must be a string");
  const auto type = named.get<std::string>();
  RotaryScaling& s = c.rotary.scaling;
  if (type == "linear" || type == "llama3") {
    s.factor = positive_number(p, "factor", 1.0, source);
    s.kind = type == "linear" ? RotaryScaling::Kind::Linear : RotaryScaling::Kind::Llama3;
  } else if (type != "default") {
    throw Error(source + ": rope type \"" + type +
                "\" is not supported yet (attnscope reads \"default\", \"linear\" and \"llama3\")");
  }
  if (s.kind == RotaryScaling::Kind::Llama3) {
    s.low_freq_factor = positive_number(p, "low_freq_factor", 1.0, source);
    s.high_freq_factor = positive_number(p, "high_freq_factor", 4.0, source);
    s.original_positions = integer_or(p, "original_max_position_embeddings", c.max_positions, source);
    if (s.high_freq_factor <= s.low_freq_factor)
      throw Error(source + ": rope high_freq_factor must exceed low_freq_factor");
  }
}

// Heads: grouped key and value heads dividing the query heads; the head width where given.
void read_heads(ModelConfig& c, const nlohmann::json& json, const std::string& source) {
  c.num_kv_heads = integer_or(json, "num_key_value_heads", c.num_heads, source);
  if (c.num_kv_heads <= 0 || c.num_heads % c.num_kv_heads != 0)
    throw Error(source + ": num_key_value_heads " + std::to_string(c.num_kv_heads) +
                " does not divide num_attention_heads " + std::to_string(c.num_heads));
  c.head_size = integer_or(json, "head_dim", 0, source);
  if (c.head_size == 0) check_heads(c, source);
}

// Sliding windows: Gemma's by layer_types (or, by default, every sixth layer global in Gemma 3 and
// every second in Gemma 2); Mistral in every layer where sliding_window is set; Qwen2 only where
// use_sliding_window asks, by layer_types or in the layers from max_window_layers on.
void read_windows(ModelConfig& c, const nlohmann::json& json, const std::string& family, const std::string& source) {
  const int64_t window = integer_or(json, "sliding_window", 0, source);
  if (family == "gemma3" || family == "gemma2") {
    if (json.contains("layer_types") && !json["layer_types"].is_null()) {
      c.rotary.local = local_layers(json, c.num_layers, source);
    } else {
      const int64_t every = family == "gemma2" ? 2 : integer_or(json, "sliding_window_pattern", 6, source);
      c.rotary.local.assign(static_cast<size_t>(c.num_layers), true);
      for (size_t l = 0; l < c.rotary.local.size(); ++l) c.rotary.local[l] = (static_cast<int64_t>(l) + 1) % every != 0;
    }
  } else if (c.model_type == "qwen2") {
    if (window > 0 && flag_or(json, "use_sliding_window", false, source)) {
      const bool typed = json.contains("layer_types") && !json["layer_types"].is_null();
      c.rotary.local = typed ? local_layers(json, c.num_layers, source)
                             : std::vector<bool>(static_cast<size_t>(c.num_layers), false);
      const int64_t first = integer_or(json, "max_window_layers", 28, source);
      for (int64_t l = first; !typed && l < c.num_layers; ++l) c.rotary.local[static_cast<size_t>(l)] = true;
    }
  } else if (window > 0) {
    c.rotary.local.assign(static_cast<size_t>(c.num_layers), true);
  }
  if (c.has_local_layers() && window <= 0) throw Error(source + ": sliding layers need a positive \"sliding_window\"");
  c.rotary.local_window = window - 1;  // the query itself and window - 1 tokens before it
}

// Gemma 2 and 3: their activation key, the scores' scale from query_pre_attn_scalar, soft-capped
// scores (Gemma 2) and next-token scores, a rotary base per layer kind (Gemma 3).
void read_gemma(ModelConfig& c, const nlohmann::json& json, const std::string& source) {
  c.activation = activation_of(json, source, "hidden_activation", Activation::GeluTanh);
  c.attention_scale = 1.0 / std::sqrt(positive_number(json, "query_pre_attn_scalar", 256, source));
  const auto softcap = [&](const char* key) {
    return json.contains(key) && !json[key].is_null() ? positive_number(json, key, 0, source) : 0.0;
  };
  c.attention_softcap = softcap("attn_logit_softcapping");
  c.output_softcap = softcap("final_logit_softcapping");
  if (c.architecture->family == "gemma2") return read_rope(c, json, "rope_theta", 1.0, source);
  if (c.attention_softcap > 0) throw Error(source + ": Gemma 3 with attn_logit_softcapping is not supported");
  c.rotary.global_theta = rope_theta(json, "full_attention", "rope_theta", 1000000.0, source);
  c.rotary.local_theta = rope_theta(json, "sliding_attention", "rope_local_base_freq", 10000.0, source);
}

// GPT-2's config.json names its sizes its own way; its feed-forward width defaults to 4 n_embd.
ModelConfig gpt2_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("gpt2");
  c.vocab_size = positive(json, "vocab_size", source);
  c.hidden_size = positive(json, "n_embd", source);
  c.num_layers = positive(json, "n_layer", source);
  c.num_heads = positive(json, "n_head", source);
  c.max_positions = positive(json, "n_positions", source);
  c.intermediate_size = integer_or(json, "n_inner", 4 * c.hidden_size, source);
  check_heads(c, source);
  c.type_vocab_size = 0;
  c.layer_norm_eps = positive_number(json, "layer_norm_epsilon", 1e-5, source);
  c.activation = activation_of(json, source, "activation_function", Activation::GeluTanh);
  c.pad_token_id = integer_or(json, "pad_token_id", 0, source);
  if (flag_or(json, "scale_attn_by_inverse_layer_idx", false, source))
    throw Error(source + ": scale_attn_by_inverse_layer_idx is not supported yet");
  if (!flag_or(json, "scale_attn_weights", true, source)) c.attention_scale = 1.0;
  return c;
}

// GPT-NeoX (Pythia): BERT's size keys; a part of each head rotated (rotary_pct, 0.25 by default),
// attention beside the feed-forward block unless use_parallel_residual is false.
ModelConfig gpt_neox_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("gpt_neox");
  read_sizes(c, json, kBertSizeKeys, source);
  check_heads(c, source);
  c.type_vocab_size = 0;
  c.layer_norm_eps = positive_number(json, "layer_norm_eps", 1e-5, source);
  c.activation = activation_of(json, source, "hidden_act", Activation::GeluErf);
  c.pad_token_id = integer_or(json, "pad_token_id", 0, source);
  const bool biased = flag_or(json, "attention_bias", true, source);
  c.biases = {biased, biased, true};
  c.parallel_blocks = flag_or(json, "use_parallel_residual", true, source);
  read_rope(c, json, "rotary_emb_base", 0.25, source);
  return c;
}

}  // namespace

ModelConfig decoder_from_json(const nlohmann::json& json, const std::string& type, const std::string& source) {
  if (type == "gpt2") return gpt2_from_json(json, source);
  if (type == "gpt_neox") return gpt_neox_from_json(json, source);
  ModelConfig c;
  c.architecture = architecture_of(type);
  c.model_type = type;
  const std::string family(c.architecture->family);
  read_sizes(c, json, kBertSizeKeys, source);
  read_heads(c, json, source);
  c.type_vocab_size = 0;
  c.norm_bias = false;
  c.layer_norm_eps = positive_number(json, "rms_norm_eps", 1e-6, source);
  c.pad_token_id = integer_or(json, "pad_token_id", 0, source);
  const bool attention_bias = flag_or(json, "attention_bias", false, source);
  c.biases = {attention_bias || type == "qwen2", attention_bias, flag_or(json, "mlp_bias", false, source)};
  if (family == "gemma3" || family == "gemma2") {
    read_gemma(c, json, source);
  } else {
    c.activation = activation_of(json, source, "hidden_act", Activation::Silu);
    read_rope(c, json, "rope_theta", 1.0, source);
  }
  read_windows(c, json, family, source);
  return c;
}

}  // namespace attnscope
