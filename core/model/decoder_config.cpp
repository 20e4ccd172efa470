#include "model/decoder_config.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "base/error.h"
#include "model/config_keys.h"

namespace attnscope {
namespace {

// One rotary base for every layer: rope_parameters {rope_theta, rope_type} (transformers 5) or the
// older rope_theta beside rope_scaling; only unscaled rotations are read.
double single_rope_theta(const nlohmann::json& json, const std::string& source) {
  const auto refuse = [&](const nlohmann::json& type) {
    throw Error(source + ": rope type " + type.dump() +
                " is not supported yet (attnscope reads unscaled rotary positions, rope_type \"default\")");
  };
  if (json.contains("rope_parameters") && json["rope_parameters"].is_object()) {
    const auto& p = json["rope_parameters"];
    if (p.contains("rope_type") && p["rope_type"] != "default") refuse(p["rope_type"]);
    return positive_number(p, "rope_theta", 10000.0, source);
  }
  if (json.contains("rope_scaling") && !json["rope_scaling"].is_null())
    refuse(json["rope_scaling"].value("rope_type", json["rope_scaling"].value("type", std::string("?"))));
  return positive_number(json, "rope_theta", 10000.0, source);
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

// Sliding windows: Gemma 3 by layer_types (or every sixth layer global, its default); Mistral
// in every layer where sliding_window is set; Qwen2 only where use_sliding_window asks (refused).
void read_windows(ModelConfig& c, const nlohmann::json& json, const std::string& family, const std::string& source) {
  const int64_t window = integer_or(json, "sliding_window", 0, source);
  if (family == "gemma3") {
    if (json.contains("layer_types") && !json["layer_types"].is_null()) {
      c.rotary.local = local_layers(json, c.num_layers, source);
    } else {
      const int64_t every = integer_or(json, "sliding_window_pattern", 6, source);
      c.rotary.local.assign(static_cast<size_t>(c.num_layers), true);
      for (size_t l = 0; l < c.rotary.local.size(); ++l) c.rotary.local[l] = (static_cast<int64_t>(l) + 1) % every != 0;
    }
  } else if (window > 0 && (c.model_type != "qwen2" || flag_or(json, "use_sliding_window", false, source))) {
    if (c.model_type == "qwen2") throw Error(source + ": Qwen2's use_sliding_window is not supported yet");
    c.rotary.local.assign(static_cast<size_t>(c.num_layers), true);
  }
  if (c.has_local_layers() && window <= 0) throw Error(source + ": sliding layers need a positive \"sliding_window\"");
  c.rotary.local_window = window - 1;  // the query itself and window - 1 tokens before it
}

}  // namespace

ModelConfig decoder_from_json(const nlohmann::json& json, const std::string& type, const std::string& source) {
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
  if (family == "gemma3") {
    c.activation = activation_of(json, source, "hidden_activation", Activation::GeluTanh);
    c.attention_scale = 1.0 / std::sqrt(positive_number(json, "query_pre_attn_scalar", 256, source));
    if (json.contains("attn_logit_softcapping") && !json["attn_logit_softcapping"].is_null())
      throw Error(source + ": attn_logit_softcapping is not supported yet");
    if (json.contains("final_logit_softcapping") && !json["final_logit_softcapping"].is_null())
      c.output_softcap = positive_number(json, "final_logit_softcapping", 0, source);
    c.rotary.global_theta = rope_theta(json, "full_attention", "rope_theta", 1000000.0, source);
    c.rotary.local_theta = rope_theta(json, "sliding_attention", "rope_local_base_freq", 10000.0, source);
  } else {
    c.activation = activation_of(json, source, "hidden_act", Activation::Silu);
    c.rotary.global_theta = c.rotary.local_theta = single_rope_theta(json, source);
  }
  read_windows(c, json, family, source);
  return c;
}

}  // namespace attnscope
