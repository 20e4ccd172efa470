#pragma once
// A decoder opened from one GGUF file (llama.cpp's format): its configuration from the file's
// metadata, written as the config.json transformers derives from it and read by the same reader
// (model/config.h), and its tensors under Hugging Face's names, dequantised to float32 with the
// layouts transformers restores on loading: Llama's query and key rows back from llama.cpp's
// interleaved order, Gemma's norm weights less the one llama.cpp's converter adds, GPT-2's
// Conv1D matrices back to [in, out]. Where the file
// is silent, transformers' defaults hold (Gemma 3: every sixth layer global, the others sliding;
// a local rotary base of 10,000; queries scaled by 1 / sqrt(256)).
#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>

#include "model/config.h"
#include "model/gguf_file.h"
#include "model/tensor_source.h"

namespace attnscope {

// The config.json equivalent of the file's metadata; one line naming the architecture when
// attnscope reads no such one (general.architecture: llama, qwen2, qwen3, gemma2, gemma3, gpt2).
nlohmann::json gguf_config_json(const GgufFile& file);
ModelConfig gguf_model_config(const GgufFile& file);

class GgufSource : public TensorSource {
 public:
  GgufSource(const GgufFile& file, const ModelConfig& config);
  const std::string& source() const override { return file_.source(); }
  std::optional<std::vector<int64_t>> shape(const std::string& name) const override;
  at::Tensor read(const std::string& name) const override;
  std::optional<Q8Rows> q8_rows(const std::string& name) const override;

 private:
  const GgufTensor* tensor_of(const std::string& name) const;
  bool interleaved_rows(const std::string& name) const;
  bool plus_one(const std::string& name) const;

  const GgufFile& file_;
  const ModelConfig& config_;
  std::map<std::string, std::string> names_;  // a layer's Hugging Face name (below "layers.N." or "h.N.") -> GGUF's
};

}  // namespace attnscope
