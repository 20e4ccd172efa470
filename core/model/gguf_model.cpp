// A decoder from a GGUF file (gguf_model.h). Sections: 1. the configuration from the metadata;
// 2. the tensors under Hugging Face's names.
#include "model/gguf_model.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstring>
#include <utility>

#include "base/error.h"

namespace attnscope {
namespace {

// general.architecture -> the model_type of the config.json transformers writes for it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kModelTypes{{
    {"llama", "llama"},
    {"qwen2", "qwen2"},
    {"qwen3", "qwen3"},
    {"gemma2", "gemma2"},
    {"gemma3", "gemma3_text"},
    {"gpt2", "gpt2"},
}};

// GPT-2's Conv1D matrices, which llama.cpp's converter stores [out, in] and transformers [in, out].
bool stored_out_in(const std::string& name) {
  for (const char* m : {".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight"})
    if (name.ends_with(m)) return true;
  return false;
}

std::string model_type_of(const GgufFile& file) {
  const std::string arch = file.get_string("general.architecture");
  for (const auto& [name, type] : kModelTypes)
    if (name == arch) return std::string(type);
  throw Error(file.source() + ": GGUF architecture \"" + arch +
              "\" is not supported; attnscope reads llama, qwen2, qwen3, gemma2, gemma3 and gpt2");
}

// A count the configuration needs from the metadata, "<architecture>.<k>".
uint64_t needed_count(const GgufFile& file, const std::string& k) {
  const std::string key = file.get_string("general.architecture") + "." + k;
  if (!file.find(key))
    throw Error(file.source() + ": the GGUF metadata has no " + key + " (the model's configuration needs it)");
  return file.get_uint(key, 0);
}

// GPT-2's config.json as transformers derives it: its own names, the positions its position
// table holds, layer norms with their epsilon.
nlohmann::json gpt2_config_json(const GgufFile& file) {
  const GgufTensor* positions = file.find_tensor("position_embd.weight");
  if (!positions) throw Error(file.source() + ": a GPT-2 GGUF file needs its position_embd.weight");
  return {{"model_type", "gpt2"},
          {"n_embd", needed_count(file, "embedding_length")},
          {"n_layer", needed_count(file, "block_count")},
          {"n_head", needed_count(file, "attention.head_count")},
          {"n_inner", needed_count(file, "feed_forward_length")},
          {"n_positions", positions->shape().front()},
          {"layer_norm_epsilon", file.get_real("gpt2.attention.layer_norm_epsilon", 1e-5)},
          {"vocab_size", file.get_strings("tokenizer.ggml.tokens").size()}};
}

}  // namespace

nlohmann::json gguf_config_json(const GgufFile& file) {
  const std::string type = model_type_of(file), arch = file.get_string("general.architecture");
  if (type == "gpt2") return gpt2_config_json(file);
  const auto key = [&](const std::string& k) { return arch + "." + k; };
  const auto count = [&](const std::string& k) -> nlohmann::json { return needed_count(file, k); };
  nlohmann::json c = {{"model_type", type},
                      {"hidden_size", count("embedding_length")},
                      {"num_hidden_layers", count("block_count")},
                      {"num_attention_heads", count("attention.head_count")},
                      {"num_key_value_heads", count("attention.head_count_kv")},
                      {"intermediate_size", count("feed_forward_length")},
                      {"max_position_embeddings", count("context_length")},
                      {"rms_norm_eps", file.get_real(key("attention.layer_norm_rms_epsilon"), 1e-6)},
                      {"rope_theta", file.get_real(key("rope.freq_base"), type == "gemma3_text" ? 1e6 : 1e4)}};
  const uint64_t vocab = file.get_uint(key("vocab_size"), file.get_strings("tokenizer.ggml.tokens").size());
  c["vocab_size"] = vocab;
  // The head width: the rotated width (Llama's), or the keys' (Gemma 3's, Qwen3's).
  if (file.find(key("attention.key_length")))
    c["head_dim"] = count("attention.key_length");
  else if (file.find(key("rope.dimension_count")))
    c["head_dim"] = count("rope.dimension_count");
  if (file.find(key("attention.sliding_window"))) c["sliding_window"] = count("attention.sliding_window");
  if (type == "gemma2") {  // soft-capped scores; Gemma2Config's defaults where the file is silent
    c["attn_logit_softcapping"] = file.get_real(key("attn_logit_softcapping"), 50.0);
    c["final_logit_softcapping"] = file.get_real(key("final_logit_softcapping"), 30.0);
  }
  const std::string scaling = file.get_string(key("rope.scaling.type"), "none");
  if (scaling != "none") c["rope_scaling"] = {{"rope_type", scaling}};  // refused by the reader, by name
  return c;
}

ModelConfig gguf_model_config(const GgufFile& file) {
  return ModelConfig::from_json(gguf_config_json(file), file.source());
}

// Hugging Face's names below "layers.N." and llama.cpp's below "blk.N.". Llama's
// post_attention_layernorm is the norm before the feed-forward block (llama.cpp's ffn_norm);
// Gemma's is the one after attention, and its pre_feedforward_layernorm is ffn_norm.
GgufSource::GgufSource(const GgufFile& file, const ModelConfig& config) : file_(file), config_(config) {
  if (config.model_type == "gpt2") {  // below "h.N."
    names_ = {{"ln_1", "attn_norm"}, {"attn.c_attn", "attn_qkv"}, {"attn.c_proj", "attn_output"},
              {"ln_2", "ffn_norm"},  {"mlp.c_fc", "ffn_up"},      {"mlp.c_proj", "ffn_down"}};
    return;
  }
  names_ = {{"input_layernorm", "attn_norm"},
            {"self_attn.q_proj", "attn_q"},
            {"self_attn.k_proj", "attn_k"},
            {"self_attn.v_proj", "attn_v"},
            {"self_attn.o_proj", "attn_output"},
            {"self_attn.q_norm", "attn_q_norm"},
            {"self_attn.k_norm", "attn_k_norm"},
            {"mlp.gate_proj", "ffn_gate"},
            {"mlp.up_proj", "ffn_up"},
            {"mlp.down_proj", "ffn_down"},
            {"post_feedforward_layernorm", "post_ffw_norm"},
            {"pre_feedforward_layernorm", "ffn_norm"}};
  names_["post_attention_layernorm"] =
      config.architecture->layer.post_attention_norm[0] ? "post_attention_norm" : "ffn_norm";
}

// "model.layers.3.self_attn.q_proj.weight" (GPT-2: "h.3.attn.c_attn.weight") -> "blk.3.attn_q.weight";
// the embeddings and the final norm by their own names; null for any other.
const GgufTensor* GgufSource::tensor_of(const std::string& name) const {
  std::string n = name.starts_with("model.") ? name.substr(6) : name;
  if (n == "embed_tokens.weight" || n == "wte.weight") return file_.find_tensor("token_embd.weight");
  if (n == "wpe.weight") return file_.find_tensor("position_embd.weight");
  if (n == "norm.weight" || n == "ln_f.weight") return file_.find_tensor("output_norm.weight");
  if (n == "ln_f.bias") return file_.find_tensor("output_norm.bias");
  if (n == "lm_head.weight") return file_.find_tensor("output.weight");  // absent where tied
  const std::string layers = config_.model_type == "gpt2" ? "h." : "layers.";
  if (!n.starts_with(layers)) return nullptr;
  const size_t dot = n.find('.', layers.size());
  if (dot == std::string::npos) return nullptr;
  const std::string layer = n.substr(layers.size(), dot - layers.size()), rest = n.substr(dot + 1);
  const size_t last = rest.rfind('.');
  if (last == std::string::npos) return nullptr;
  const auto it = names_.find(rest.substr(0, last));
  if (it == names_.end()) return nullptr;
  return file_.find_tensor("blk." + layer + "." + it->second + rest.substr(last));
}

std::optional<std::vector<int64_t>> GgufSource::shape(const std::string& name) const {
  const GgufTensor* t = tensor_of(name);
  if (!t) return std::nullopt;
  std::vector<int64_t> shape = t->shape();
  if (config_.model_type == "gpt2" && stored_out_in(name) && shape.size() == 2) std::swap(shape[0], shape[1]);
  return shape;
}

// llama.cpp stores Llama's query and key rows of each head interleaved (the halves the rotation
// pairs, alternating); transformers puts them back in halves.
bool GgufSource::interleaved_rows(const std::string& name) const {
  return file_.get_string("general.architecture") == "llama" &&
         (name.find("self_attn.q_proj.weight") != std::string::npos ||
          name.find("self_attn.k_proj.weight") != std::string::npos);
}

// llama.cpp's converter stores Gemma's norm weights plus one; transformers subtracts it again.
bool GgufSource::plus_one(const std::string& name) const {
  return config_.architecture->norm_kind == NormKind::RmsPlusOne && name.ends_with("norm.weight");
}

at::Tensor GgufSource::read(const std::string& name) const {
  const GgufTensor* t = tensor_of(name);
  if (!t) throw Error(file_.source() + ": no tensor for " + name);
  std::vector<float> values = file_.dequantized(*t);
  at::Tensor host = at::from_blob(values.data(), t->shape(), at::kFloat).clone();
  if (interleaved_rows(name)) {
    const int64_t heads = name.find("q_proj") != std::string::npos ? config_.num_heads : config_.kv_heads();
    const int64_t rows = host.size(0), columns = host.size(1);
    host = host.view({heads, rows / heads / 2, 2, columns}).transpose(1, 2).reshape({rows, columns}).contiguous();
  }
  if (config_.model_type == "gpt2" && stored_out_in(name)) host = host.t().contiguous();
  if (plus_one(name)) host = host - 1;
  return host;
}

std::optional<Q8Rows> GgufSource::q8_rows(const std::string& name) const {
  const GgufTensor* t = tensor_of(name);
  if (!t || t->type->name != "Q8_0" || t->dims.size() != 2 || interleaved_rows(name) || plus_one(name) ||
      (config_.model_type == "gpt2" && stored_out_in(name)))
    return std::nullopt;
  const std::vector<int64_t> shape = t->shape();
  return Q8Rows(file_.data(*t), shape[0], shape[1]);
}

}  // namespace attnscope
