#pragma once
// The architecture numbers of a BERT checkpoint, read from its config.json and checked. DistilBERT
// (the same encoder without token types, its tensors named differently) is read too.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace attnscope {

enum class Activation { GeluErf, GeluTanh, Relu };
enum class Architecture { Bert, DistilBert };

struct BertConfig {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t intermediate_size = 0;
  int64_t max_positions = 0;
  int64_t type_vocab_size = 0;
  double layer_norm_eps = 1e-12;
  Activation activation = Activation::GeluErf;
  Architecture architecture = Architecture::Bert;  // DistilBert: no token type embeddings (type_vocab_size 0)

  int64_t head_dim() const { return hidden_size / num_heads; }

  static BertConfig load(const std::filesystem::path& file);
  // `source` names the file in error messages.
  static BertConfig from_json(const nlohmann::json& json, const std::string& source);
  nlohmann::json to_json() const;
};

}  // namespace attnscope
