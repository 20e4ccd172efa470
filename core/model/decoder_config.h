#pragma once
// The decoders' config.json (GPT-2, GPT-NeoX, Llama, Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3's text
// model), as transformers 5 writes it and as the 4.x releases did: grouped key and value heads, an
// explicit head width, the rotary bases (one, or one per layer type) and their scaling, sliding
// windows, soft-capping, the biases each family has.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/config.h"

namespace attnscope {

// type: a decoder's model_type (architecture_of(type) is causal); `source` names the file in errors.
ModelConfig decoder_from_json(const nlohmann::json& json, const std::string& type, const std::string& source);

}  // namespace attnscope
