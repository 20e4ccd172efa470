#include "model/config_keys.h"

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace attnscope {

int64_t positive(const nlohmann::json& json, const char* key, const std::string& source) {
  if (!json.contains(key)) throw Error(source + ": missing \"" + key + "\"");
  const auto& v = json[key];
  if (!v.is_number_integer() || v.get<int64_t>() <= 0)
    throw Error(source + ": \"" + key + "\" must be a positive integer, found " + v.dump());
  return v.get<int64_t>();
}

Activation activation_of(const nlohmann::json& json, const std::string& source, const char* key, Activation fallback) {
  if (!json.contains(key)) return fallback;
  const auto& v = json[key];
  if (!v.is_string()) throw Error(source + ": \"" + key + "\" must be a string");
  const auto name = v.get<std::string>();
  if (name == "gelu") return Activation::GeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "relu") return Activation::Relu;
  if (name == "silu" || name == "swish") return Activation::Silu;
  throw Error(source + ": unsupported \"" + key + "\": \"" + name +
              "\" (supported: gelu, gelu_new, gelu_pytorch_tanh, relu, silu)");
}

void check_heads(const ModelConfig& c, const std::string& source) {
  if (c.hidden_size % c.num_heads != 0)
    throw Error(source + ": hidden_size " + std::to_string(c.hidden_size) +
                " is not a multiple of num_attention_heads " + std::to_string(c.num_heads));
}

void read_sizes(ModelConfig& c, const nlohmann::json& json, const SizeKeys& keys, const std::string& source) {
  c.vocab_size = positive(json, "vocab_size", source);
  c.hidden_size = positive(json, keys.hidden, source);
  c.num_layers = positive(json, keys.layers, source);
  c.num_heads = positive(json, keys.heads, source);
  c.intermediate_size = positive(json, keys.intermediate, source);
  c.max_positions = positive(json, "max_position_embeddings", source);
}

double positive_number(const nlohmann::json& json, const char* key, double fallback, const std::string& source) {
  if (!json.contains(key)) return fallback;
  const auto& v = json[key];
  if (!v.is_number() || v.get<double>() <= 0)
    throw Error(source + ": \"" + key + "\" must be a positive number, found " + v.dump());
  return v.get<double>();
}

int64_t integer_or(const nlohmann::json& json, const char* key, int64_t fallback, const std::string& source) {
  if (!json.contains(key) || json[key].is_null()) return fallback;
  if (!json[key].is_number_integer() || json[key].get<int64_t>() < 0)
    throw Error(source + ": \"" + key + "\" must be a non-negative integer, found " + json[key].dump());
  return json[key].get<int64_t>();
}

bool flag_or(const nlohmann::json& json, const char* key, bool fallback, const std::string& source) {
  if (!json.contains(key)) return fallback;
  if (!json[key].is_boolean()) throw Error(source + ": \"" + key + "\" must be true or false");
  return json[key].get<bool>();
}

// A layer type's rotary base: rope_parameters (transformers 5) or the older per-kind key.
double rope_theta(const nlohmann::json& json, const char* kind, const char* old_key, double fallback,
                  const std::string& source) {
  if (json.contains("rope_parameters") && json["rope_parameters"].is_object() &&
      json["rope_parameters"].contains(kind)) {
    const auto& p = json["rope_parameters"][kind];
    if (!p.is_object()) throw Error(source + ": rope_parameters." + kind + " must be an object");
    if (p.contains("rope_type") && p["rope_type"] != "default")
      throw Error(source + ": rope_type " + p["rope_type"].dump() + " is not supported (only \"default\")");
    return positive_number(p, "rope_theta", fallback, source);
  }
  if (json.contains("rope_scaling") && !json["rope_scaling"].is_null())
    throw Error(source + ": rope_scaling is not supported");
  return positive_number(json, old_key, fallback, source);
}

// Which layers attend locally: layer_types when written, else every layer whose index is not a
// multiple of global_attn_every_n_layers (the older key).
std::vector<bool> local_layers(const nlohmann::json& json, int64_t layers, const std::string& source) {
  std::vector<bool> local(static_cast<size_t>(layers));
  if (json.contains("layer_types") && !json["layer_types"].is_null()) {
    const auto& types = json["layer_types"];
    if (!types.is_array() || static_cast<int64_t>(types.size()) != layers)
      throw Error(source + ": \"layer_types\" must list one type per layer");
    for (size_t l = 0; l < local.size(); ++l) {
      if (types[l] != "sliding_attention" && types[l] != "full_attention")
        throw Error(source + ": layer type " + types[l].dump() +
                    " is not supported (full_attention or sliding_attention)");
      local[l] = types[l] == "sliding_attention";
    }
    return local;
  }
  const int64_t every =
      json.contains("global_attn_every_n_layers") ? positive(json, "global_attn_every_n_layers", source) : 3;
  for (size_t l = 0; l < local.size(); ++l) local[l] = static_cast<int64_t>(l) % every != 0;
  return local;
}

}  // namespace attnscope
