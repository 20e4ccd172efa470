#pragma once
// Readers of config.json's keys, each naming the file and the key in its error, shared by the
// encoders' (config.cpp) and the decoders' (decoder_config.cpp) readers.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/config.h"

namespace attnscope {

int64_t positive(const nlohmann::json& json, const char* key, const std::string& source);
double positive_number(const nlohmann::json& json, const char* key, double fallback, const std::string& source);
int64_t integer_or(const nlohmann::json& json, const char* key, int64_t fallback, const std::string& source);
bool flag_or(const nlohmann::json& json, const char* key, bool fallback, const std::string& source);
Activation activation_of(const nlohmann::json& json, const std::string& source, const char* key = "hidden_act",
                         Activation fallback = Activation::GeluErf);
void check_heads(const ModelConfig& c, const std::string& source);

// The sizes every architecture has, under the names its config.json gives them.
struct SizeKeys {
  const char *hidden, *layers, *heads, *intermediate;
};
inline constexpr SizeKeys kBertSizeKeys{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"};
void read_sizes(ModelConfig& c, const nlohmann::json& json, const SizeKeys& keys, const std::string& source);

// A layer type's rotary base: rope_parameters (transformers 5) or the older per-kind key.
double rope_theta(const nlohmann::json& json, const char* kind, const char* old_key, double fallback,
                  const std::string& source);
// Which layers attend locally: layer_types when written, else every layer whose index is not a
// multiple of global_attn_every_n_layers (the older key).
std::vector<bool> local_layers(const nlohmann::json& json, int64_t layers, const std::string& source);

}  // namespace attnscope
