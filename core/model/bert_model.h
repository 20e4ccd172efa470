#pragma once
// The BERT encoder in libtorch, run under inference mode on a padded batch of token ids.
// Immutable once loaded, so threads may share one model.
#include <filesystem>
#include <memory>
#include <vector>

#include "model/bert_weights.h"
#include "model/captures.h"
#include "model/config.h"
#include "model/device.h"

namespace attnscope {

class BertModel {
 public:
  BertModel(BertConfig config, BertWeights weights, ComputeDevice device);
  // config.json + model.safetensors of a checkpoint folder.
  static std::shared_ptr<const BertModel> load(const std::filesystem::path& dir, const ComputeDevice& device);

  // ids: one list of token ids per text (each at most max_positions long). With `capture`,
  // the attention maps and head outputs of every layer are kept; without, attention runs fused.
  BatchCaptures forward(const std::vector<std::vector<int64_t>>& ids, bool capture = true) const;

  const BertConfig& config() const { return config_; }
  const ComputeDevice& device() const { return device_; }

 private:
  at::Tensor embed(const at::Tensor& ids) const;
  at::Tensor layer(const LayerWeights& w, const at::Tensor& x, const at::Tensor& mask, BatchCaptures* keep) const;
  at::Tensor activate(at::Tensor x) const;  // in place

  BertConfig config_;
  BertWeights weights_;
  ComputeDevice device_;
};

}  // namespace attnscope
