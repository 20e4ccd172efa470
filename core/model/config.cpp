#include "model/config.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "base/error.h"
#include "base/json_file.h"
#include "model/config_keys.h"
#include "model/decoder_config.h"

namespace attnscope {
namespace {

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

ModelConfig modernbert_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("modernbert");
  read_sizes(c, json, kBertSizeKeys, source);
  c.type_vocab_size = 0;
  c.layer_norm_eps = positive_number(json, "norm_eps", 1e-5, source);
  c.activation = activation_of(json, source, "hidden_activation");
  c.pad_token_id = integer_or(json, "pad_token_id", 50283, source);
  c.norm_bias = flag_or(json, "norm_bias", false, source);
  const bool biased = flag_or(json, "attention_bias", false, source);
  c.biases = {biased, biased, biased};
  if (flag_or(json, "mlp_bias", false, source) != biased)
    throw Error(source + ": attention_bias and mlp_bias differ; attnscope reads ModernBERT with both or neither");
  c.rotary.local = local_layers(json, c.num_layers, source);
  c.rotary.local_window = (json.contains("local_attention") ? positive(json, "local_attention", source) : 128) / 2;
  c.rotary.global_theta = rope_theta(json, "full_attention", "global_rope_theta", 160000.0, source);
  c.rotary.local_theta = rope_theta(json, "sliding_attention", "local_rope_theta", 10000.0, source);
  check_heads(c, source);
  return c;
}

// DeBERTa's disentangled attention: which terms (pos_att_type, a list or "p2c|c2p"), over how many
// relative positions (position_buckets, else max_relative_positions, else the model's positions);
// the scores' scale 1 / sqrt(d (1 + terms)). What attnscope does not run yet is refused in one line.
void read_disentangled(ModelConfig& c, const nlohmann::json& json, const std::string& source) {
  const auto refuse = [&](const std::string& what) {
    throw Error(source + ": DeBERTa " + what + " is not supported yet");
  };
  if (!flag_or(json, "relative_attention", false, source)) refuse("without relative_attention");
  if (!flag_or(json, "share_att_key", false, source)) refuse("with share_att_key false (its own position projections)");
  if (flag_or(json, "position_biased_input", true, source))
    refuse("with position_biased_input (absolute positions too)");
  if (json.value("conv_kernel_size", 0) > 0) refuse("with a convolution layer (conv_kernel_size)");
  const nlohmann::json types = json.value("pos_att_type", nlohmann::json::array());
  const std::string listed = types.is_string() ? types.get<std::string>() : types.dump();
  c.disentangled.content_to_position = listed.find("c2p") != std::string::npos;
  c.disentangled.position_to_content = listed.find("p2c") != std::string::npos;
  const auto signed_integer = [&](const char* key) {
    const nlohmann::json v = json.value(key, nlohmann::json(-1));
    if (!v.is_number_integer()) throw Error(source + ": \"" + key + "\" must be an integer");
    return v.get<int64_t>();
  };
  c.disentangled.buckets = std::max<int64_t>(0, signed_integer("position_buckets"));
  const int64_t max_relative = signed_integer("max_relative_positions");
  c.disentangled.max_position = max_relative > 0 ? max_relative : c.max_positions;
  c.disentangled.span = c.disentangled.buckets > 0 ? c.disentangled.buckets : c.disentangled.max_position;
  const int terms = 1 + c.disentangled.content_to_position + c.disentangled.position_to_content;
  c.attention_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim() * terms));
}

// DeBERTa v2 and v3: BERT's keys, token types only where type_vocab_size says, no absolute positions.
ModelConfig deberta_from_json(const nlohmann::json& json, const std::string& source) {
  ModelConfig c;
  c.architecture = architecture_of("deberta-v2");
  read_sizes(c, json, kBertSizeKeys, source);
  check_heads(c, source);
  c.type_vocab_size = integer_or(json, "type_vocab_size", 0, source);
  c.layer_norm_eps = positive_number(json, "layer_norm_eps", 1e-7, source);
  c.activation = activation_of(json, source, "hidden_act");
  c.pad_token_id = integer_or(json, "pad_token_id", 0, source);
  if (integer_or(json, "embedding_size", c.hidden_size, source) != c.hidden_size)
    throw Error(source + ": DeBERTa with embedding_size apart from hidden_size is not supported yet");
  read_disentangled(c, json, source);
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
  c.layer_norm_eps = positive_number(json, "layer_norm_eps", family == "mpnet" ? 1e-5 : c.layer_norm_eps, source);
  c.activation =
      activation_of(json, source, "hidden_act", family == "albert" ? Activation::GeluTanh : Activation::GeluErf);
  const bool offset = family == "roberta" || family == "mpnet";  // positions past the padding index
  c.pad_token_id = integer_or(json, "pad_token_id", offset ? 1 : 0, source);
  if (offset) c.position_offset = c.pad_token_id + 1;
  if (family == "mpnet") {
    c.type_vocab_size = 0;
    c.relative_buckets =
        json.contains("relative_attention_num_buckets") ? positive(json, "relative_attention_num_buckets", source) : 32;
  }
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
  ModelConfig c = architecture->direction == AttentionDirection::Causal ? decoder_from_json(json, type, source)
                  : architecture->family == "distilbert"                ? distilbert_from_json(json, source)
                  : architecture->family == "modernbert"                ? modernbert_from_json(json, source)
                  : architecture->family == "deberta-v2"                ? deberta_from_json(json, source)
                                                                        : bert_family_from_json(json, type, source);
  c.model_type = type;
  if (type != "bert" && type != "distilbert") c.source_json_ = json.dump();
  return c;
}

double ModelConfig::scores_scale() const {
  return attention_scale > 0 ? attention_scale : 1.0 / std::sqrt(static_cast<double>(head_dim()));
}

AttentionVisibility ModelConfig::visibility() const {
  AttentionVisibility v{.causal = causal(), .windows = {}};
  if (v.causal)
    for (int64_t l = 0; l < num_layers; ++l)
      v.windows.push_back(is_local_layer(static_cast<size_t>(l)) ? rotary.local_window + 1 : 0);
  return v;
}

bool ModelConfig::has_local_layers() const {
  for (bool local : rotary.local)
    if (local) return true;
  return false;
}

ModelConfig ModelConfig::load(const std::filesystem::path& file) {
  return from_json(
      read_json_file(file, "missing or unreadable (a model's folder needs config.json, or one GGUF file instead)"),
      file.string());
}

nlohmann::json ModelConfig::to_json() const {
  if (!source_json_.empty()) return nlohmann::json::parse(source_json_);
  const char* act = activation == Activation::GeluErf    ? "gelu"
                    : activation == Activation::GeluTanh ? "gelu_new"
                    : activation == Activation::Silu     ? "silu"
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
