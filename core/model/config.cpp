#include "model/config.h"

#include <nlohmann/json.hpp>

#include "error.h"
#include "io/json_file.h"

namespace attnscope {
namespace {

int64_t positive(const nlohmann::json& json, const char* key, const std::string& source) {
  if (!json.contains(key)) throw Error(source + ": missing \"" + key + "\"");
  const auto& v = json[key];
  if (!v.is_number_integer() || v.get<int64_t>() <= 0)
    throw Error(source + ": \"" + key + "\" must be a positive integer, found " + v.dump());
  return v.get<int64_t>();
}

Activation activation_of(const nlohmann::json& json, const std::string& source, const char* key = "hidden_act") {
  if (!json.contains(key)) return Activation::GeluErf;
  const auto& v = json[key];
  if (!v.is_string()) throw Error(source + ": \"" + key + "\" must be a string");
  const auto name = v.get<std::string>();
  if (name == "gelu") return Activation::GeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "relu") return Activation::Relu;
  throw Error(source + ": unsupported \"" + key + "\": \"" + name + "\" (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)");
}

void check_heads(const BertConfig& c, const std::string& source) {
  if (c.hidden_size % c.num_heads != 0)
    throw Error(source + ": hidden_size " + std::to_string(c.hidden_size) + " is not a multiple of num_attention_heads " +
                std::to_string(c.num_heads));
}

// DistilBERT's config.json: dim, n_layers, n_heads, hidden_dim, activation; no token types.
BertConfig distilbert_from_json(const nlohmann::json& json, const std::string& source) {
  BertConfig c;
  c.architecture = Architecture::DistilBert;
  c.vocab_size = positive(json, "vocab_size", source);
  c.hidden_size = positive(json, "dim", source);
  c.num_layers = positive(json, "n_layers", source);
  c.num_heads = positive(json, "n_heads", source);
  c.intermediate_size = positive(json, "hidden_dim", source);
  c.max_positions = positive(json, "max_position_embeddings", source);
  c.type_vocab_size = 0;
  c.activation = activation_of(json, source, "activation");
  check_heads(c, source);
  return c;
}

}  // namespace

BertConfig BertConfig::from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw Error(source + ": expected a JSON object");
  if (json.contains("model_type")) {
    const auto& type = json["model_type"];
    if (type == "distilbert") return distilbert_from_json(json, source);
    if (!type.is_string() || type.get<std::string>() != "bert")
      throw Error(source + ": model_type " + type.dump() + " is not supported; attnscope reads BERT-architecture checkpoints "
                  "(model_type \"bert\": BERT, MiniLM, multilingual and fine-tuned BERTs; or \"distilbert\")");
  }
  if (json.contains("position_embedding_type") && json["position_embedding_type"] != "absolute")
    throw Error(source + ": position_embedding_type " + json["position_embedding_type"].dump() + " is not supported (only \"absolute\")");
  BertConfig c;
  c.vocab_size = positive(json, "vocab_size", source);
  c.hidden_size = positive(json, "hidden_size", source);
  c.num_layers = positive(json, "num_hidden_layers", source);
  c.num_heads = positive(json, "num_attention_heads", source);
  c.intermediate_size = positive(json, "intermediate_size", source);
  c.max_positions = positive(json, "max_position_embeddings", source);
  c.type_vocab_size = json.contains("type_vocab_size") ? positive(json, "type_vocab_size", source) : 2;
  if (json.contains("layer_norm_eps")) {
    if (!json["layer_norm_eps"].is_number() || json["layer_norm_eps"].get<double>() <= 0)
      throw Error(source + ": \"layer_norm_eps\" must be a positive number");
    c.layer_norm_eps = json["layer_norm_eps"].get<double>();
  }
  c.activation = activation_of(json, source);
  check_heads(c, source);
  return c;
}

BertConfig BertConfig::load(const std::filesystem::path& file) {
  return from_json(read_json_file(file, "missing or unreadable (a BERT checkpoint folder needs config.json)"), file.string());
}

nlohmann::json BertConfig::to_json() const {
  const char* act = activation == Activation::GeluErf ? "gelu" : activation == Activation::GeluTanh ? "gelu_new" : "relu";
  if (architecture == Architecture::DistilBert)
    return {{"model_type", "distilbert"}, {"vocab_size", vocab_size}, {"dim", hidden_size}, {"n_layers", num_layers}, {"n_heads", num_heads},
            {"hidden_dim", intermediate_size}, {"max_position_embeddings", max_positions}, {"activation", act}};
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
