#include "model/config.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_file.h"

namespace attnscope {
namespace {

int64_t positive(const nlohmann::json& json, const char* key, const std::string& source) {
  if (!json.contains(key)) throw Error(source + ": missing \"" + key + "\"");
  const auto& v = json[key];
  if (!v.is_number_integer() || v.get<int64_t>() <= 0)
    throw Error(source + ": \"" + key + "\" must be a positive integer, found " + v.dump());
  return v.get<int64_t>();
}

Activation activation_of(const nlohmann::json& json, const std::string& source, const char* key = "hidden_act",
                         Activation fallback = Activation::GeluErf) {
  if (!json.contains(key)) return fallback;
  const auto& v = json[key];
  if (!v.is_string()) throw Error(source + ": \"" + key + "\" must be a string");
  const auto name = v.get<std::string>();
  if (name == "gelu") return Activation::GeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "relu") return Activation::Relu;
  throw Error(source + ": unsupported \"" + key + "\": \"" + name +
              "\" (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)");
}

void check_heads(const ModelConfig& c, const std::string& source) {
  if (c.hidden_size % c.num_heads != 0)
    throw Error(source + ": hidden_size " + std::to_string(c.hidden_size) +
                " is not a multiple of num_attention_heads " + std::to_string(c.num_heads));
}

// The sizes every architecture has, under the names its config.json gives them.
struct SizeKeys {
  const char *hidden, *layers, *heads, *intermediate;
};
constexpr SizeKeys kBertSizeKeys{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"};

void read_sizes(ModelConfig& c, const nlohmann::json& json, const SizeKeys& keys, const std::string& source) {
  c.vocab_size = positive(json, "vocab_size", source);
  c.hidden_size = positive(json, keys.hidden, source);
  c.num_layers = positive(json, keys.layers, source);
  c.num_heads = positive(json, keys.heads, source);
  c.intermediate_size = positive(json, keys.intermediate, source);
  c.max_positions = positive(json, "max_position_embeddings", source);
}

// DistilBERT's config.json: dim, n_layers, n_heads, hidden_dim, activation; no token types.
ModelConfig distilbert_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("distilbert");
  c.model_type = "distilbert";
  read_sizes(c, json, {"dim", "n_layers", "n_heads", "hidden_dim"}, source);
  c.type_vocab_size = 0;
  c.activation = activation_of(json, source, "activation");
  check_heads(c, source);
  return c;
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

ModelConfig modernbert_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("modernbert");
  read_sizes(c, json, kBertSizeKeys, source);
  c.type_vocab_size = 0;
  c.layer_norm_eps = positive_number(json, "norm_eps", 1e-5, source);
  c.activation = activation_of(json, source, "hidden_activation");
  c.pad_token_id = integer_or(json, "pad_token_id", 50283, source);
  c.norm_bias = flag_or(json, "norm_bias", false, source);
  c.linear_bias = flag_or(json, "attention_bias", false, source);
  if (flag_or(json, "mlp_bias", false, source) != c.linear_bias)
    throw Error(source + ": attention_bias and mlp_bias differ; attnscope reads ModernBERT with both or neither");
  c.rotary.local = local_layers(json, c.num_layers, source);
  c.rotary.local_window = (json.contains("local_attention") ? positive(json, "local_attention", source) : 128) / 2;
  c.rotary.global_theta = rope_theta(json, "full_attention", "global_rope_theta", 160000.0, source);
  c.rotary.local_theta = rope_theta(json, "sliding_attention", "local_rope_theta", 10000.0, source);
  check_heads(c, source);
  return c;
}

// BERT's keys, shared by RoBERTa, ELECTRA and ALBERT, with what each adds.
ModelConfig bert_family_from_json(const nlohmann::json& json, const std::string& type, const std::string& source) {
  if (json.contains("position_embedding_type") && json["position_embedding_type"] != "absolute")
    throw Error(source + ": position_embedding_type " + json["position_embedding_type"].dump() +
                " is not supported (only \"absolute\")");
  ModelConfig c;
  c.architecture = architecture_of(type);
  c.model_type = type;
  const std::string_view family = c.architecture->family;
  read_sizes(c, json, kBertSizeKeys, source);
  c.type_vocab_size = json.contains("type_vocab_size") ? positive(json, "type_vocab_size", source) : 2;
  c.layer_norm_eps = positive_number(json, "layer_norm_eps", c.layer_norm_eps, source);
  c.activation =
      activation_of(json, source, "hidden_act", family == "albert" ? Activation::GeluTanh : Activation::GeluErf);
  c.pad_token_id = integer_or(json, "pad_token_id", family == "roberta" ? 1 : 0, source);
  if (family == "roberta") c.position_offset = c.pad_token_id + 1;
  if (c.position_offset >= c.max_positions)
    throw Error(source + ": pad_token_id " + std::to_string(c.pad_token_id) + " leaves no positions of the " +
                std::to_string(c.max_positions));
  if (family == "electra" || family == "albert")
    c.embedding_size = json.contains("embedding_size") ? positive(json, "embedding_size", source)
                       : family == "albert"            ? 128
                                                       : c.hidden_size;
  if (c.architecture->shared_layers) {
    c.weight_groups = json.contains("num_hidden_groups") ? positive(json, "num_hidden_groups", source) : 1;
    c.inner_layers = json.contains("inner_group_num") ? positive(json, "inner_group_num", source) : 1;
    if (c.weight_groups > c.num_layers)
      throw Error(source + ": num_hidden_groups " + std::to_string(c.weight_groups) + " exceeds num_hidden_layers");
    c.num_layers *= c.inner_layers;
  }
  check_heads(c, source);
  return c;
}

}  // namespace

ModelConfig ModelConfig::from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw Error(source + ": expected a JSON object");
  std::string type = "bert";
  if (json.contains("model_type")) {
    if (!json["model_type"].is_string())
      throw Error(source + ": model_type " + json["model_type"].dump() + " is not supported; attnscope reads " +
                  kSupportedModelTypes);
    type = json["model_type"].get<std::string>();
  }
  const Architecture* architecture = architecture_of(type);
  if (!architecture)
    throw Error(source + ": model_type \"" + type + "\" is not supported; attnscope reads " + kSupportedModelTypes);
  // Each family's config.json names its numbers its own way.
  ModelConfig c = architecture->family == "distilbert"   ? distilbert_from_json(json, source)
                  : architecture->family == "modernbert" ? modernbert_from_json(json, source)
                                                         : bert_family_from_json(json, type, source);
  c.model_type = type;
  if (type != "bert" && type != "distilbert") c.source_json_ = json.dump();
  return c;
}

bool ModelConfig::has_local_layers() const {
  for (bool local : rotary.local)
    if (local) return true;
  return false;
}

ModelConfig ModelConfig::load(const std::filesystem::path& file) {
  return from_json(read_json_file(file, "missing or unreadable (a BERT checkpoint folder needs config.json)"),
                   file.string());
}

nlohmann::json ModelConfig::to_json() const {
  if (!source_json_.empty()) return nlohmann::json::parse(source_json_);
  const char* act = activation == Activation::GeluErf    ? "gelu"
                    : activation == Activation::GeluTanh ? "gelu_new"
                                                         : "relu";
  if (architecture->family == "distilbert")
    return {{"model_type", "distilbert"},
            {"vocab_size", vocab_size},
            {"dim", hidden_size},
            {"n_layers", num_layers},
            {"n_heads", num_heads},
            {"hidden_dim", intermediate_size},
            {"max_position_embeddings", max_positions},
            {"activation", act}};
  return {{"model_type", "bert"},
          {"vocab_size", vocab_size},
          {"hidden_size", hidden_size},
          {"num_hidden_layers", num_layers},
          {"num_attention_heads", num_heads},
          {"intermediate_size", intermediate_size},
          {"max_position_embeddings", max_positions},
          {"type_vocab_size", type_vocab_size},
          {"layer_norm_eps", layer_norm_eps},
          {"hidden_act", act}};
}

}  // namespace attnscope
