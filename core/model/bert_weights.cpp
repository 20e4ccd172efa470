#include "model/bert_weights.h"

#include <ATen/ATen.h>

#include <cstring>

#include "error.h"

namespace attnscope {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

class WeightReader {
 public:
  WeightReader(const SafetensorsFile& file, const ComputeDevice& device) : file_(file), device_(device) {}

  at::Tensor get(const std::string& name, const std::vector<int64_t>& shape) const {
    const TensorInfo* info = find(name);
    if (!info)
      throw Error(file_.source() + ": tensor " + name + " is missing (looked for it with and without the \"bert.\" or \"distilbert.\" prefix)");
    if (info->shape != shape)
      throw Error(file_.source() + ": tensor " + info->name + " has shape " + shape_text(info->shape) + ", expected " + shape_text(shape));
    return to_device(*info);
  }

 private:
  const TensorInfo* find(const std::string& name) const {
    for (const std::string& candidate : aliases(name)) {
      if (const auto* t = file_.find(candidate)) return t;
      if (const auto* t = file_.find("bert." + candidate)) return t;
      if (const auto* t = file_.find("distilbert." + candidate)) return t;
    }
    return nullptr;
  }

  static std::vector<std::string> aliases(const std::string& name) {
    std::vector<std::string> out{name};
    const auto swap_suffix = [&](const std::string& from, const std::string& to) {
      if (name.size() > from.size() && name.ends_with(from) && name.find("LayerNorm") != std::string::npos)
        out.push_back(name.substr(0, name.size() - from.size()) + to);
    };
    swap_suffix(".weight", ".gamma");
    swap_suffix(".bias", ".beta");
    return out;
  }

  at::Tensor to_device(const TensorInfo& info) const {
    at::ScalarType stored;
    switch (info.dtype) {
      case DType::F32: stored = at::kFloat; break;
      case DType::F16: stored = at::kHalf; break;
      case DType::BF16: stored = at::kBFloat16; break;
      default:
        throw Error(file_.source() + ": tensor " + info.name + " has dtype " + std::string(dtype_name(info.dtype)) +
                    ", expected F32, F16 or BF16");
    }
    // Copy out of the map: the data need not be aligned for its type inside the file.
    at::Tensor host = at::empty(info.shape, at::TensorOptions().dtype(stored));
    const auto bytes = file_.data(info);
    if (!bytes.empty()) std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
    return host.to(device_.device, device_.dtype).contiguous();
  }

  const SafetensorsFile& file_;
  const ComputeDevice& device_;
};

// DistilBERT's names for the same tensors: transformer.layer.N.attention.q_lin, sa_layer_norm,
// ffn.lin1 / lin2, output_layer_norm.
LayerWeights load_distilbert_layer(const WeightReader& r, const BertConfig& c, int64_t index) {
  const std::string p = "transformer.layer." + std::to_string(index) + ".";
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  LayerWeights w;
  w.qkv_weight = at::cat({r.get(p + "attention.q_lin.weight", {D, D}), r.get(p + "attention.k_lin.weight", {D, D}),
                          r.get(p + "attention.v_lin.weight", {D, D})});
  w.qkv_bias = at::cat({r.get(p + "attention.q_lin.bias", {D}), r.get(p + "attention.k_lin.bias", {D}), r.get(p + "attention.v_lin.bias", {D})});
  w.attn_out_weight = r.get(p + "attention.out_lin.weight", {D, D});
  w.attn_out_bias = r.get(p + "attention.out_lin.bias", {D});
  w.attn_norm_weight = r.get(p + "sa_layer_norm.weight", {D});
  w.attn_norm_bias = r.get(p + "sa_layer_norm.bias", {D});
  w.ffn_in_weight = r.get(p + "ffn.lin1.weight", {I, D});
  w.ffn_in_bias = r.get(p + "ffn.lin1.bias", {I});
  w.ffn_out_weight = r.get(p + "ffn.lin2.weight", {D, I});
  w.ffn_out_bias = r.get(p + "ffn.lin2.bias", {D});
  w.ffn_norm_weight = r.get(p + "output_layer_norm.weight", {D});
  w.ffn_norm_bias = r.get(p + "output_layer_norm.bias", {D});
  return w;
}

// Query, key and value rows regrouped head by head, [H, 3, d] rows: the fused projection then
// leaves every head's q, k and v as plain matrices that the attention products read in place.
void by_head(LayerWeights& w, const BertConfig& c) {
  const int64_t H = c.num_heads, d = c.head_dim(), D = c.hidden_size;
  w.qkv_weight = w.qkv_weight.view({3, H, d, D}).transpose(0, 1).reshape({3 * D, D}).contiguous();
  w.qkv_bias = w.qkv_bias.view({3, H, d}).transpose(0, 1).reshape({3 * D}).contiguous();
}

LayerWeights load_layer(const WeightReader& r, const BertConfig& c, int64_t index) {
  if (c.architecture == Architecture::DistilBert) return load_distilbert_layer(r, c, index);
  const std::string p = "encoder.layer." + std::to_string(index) + ".";
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  LayerWeights w;
  w.qkv_weight = at::cat({r.get(p + "attention.self.query.weight", {D, D}), r.get(p + "attention.self.key.weight", {D, D}),
                          r.get(p + "attention.self.value.weight", {D, D})});
  w.qkv_bias = at::cat({r.get(p + "attention.self.query.bias", {D}), r.get(p + "attention.self.key.bias", {D}),
                        r.get(p + "attention.self.value.bias", {D})});
  w.attn_out_weight = r.get(p + "attention.output.dense.weight", {D, D});
  w.attn_out_bias = r.get(p + "attention.output.dense.bias", {D});
  w.attn_norm_weight = r.get(p + "attention.output.LayerNorm.weight", {D});
  w.attn_norm_bias = r.get(p + "attention.output.LayerNorm.bias", {D});
  w.ffn_in_weight = r.get(p + "intermediate.dense.weight", {I, D});
  w.ffn_in_bias = r.get(p + "intermediate.dense.bias", {I});
  w.ffn_out_weight = r.get(p + "output.dense.weight", {D, I});
  w.ffn_out_bias = r.get(p + "output.dense.bias", {D});
  w.ffn_norm_weight = r.get(p + "output.LayerNorm.weight", {D});
  w.ffn_norm_bias = r.get(p + "output.LayerNorm.bias", {D});
  return w;
}

}  // namespace

BertWeights load_bert_weights(const SafetensorsFile& file, const BertConfig& c, const ComputeDevice& device) {
  const WeightReader r(file, device);
  BertWeights w;
  w.word_embeddings = r.get("embeddings.word_embeddings.weight", {c.vocab_size, c.hidden_size});
  w.position_embeddings = r.get("embeddings.position_embeddings.weight", {c.max_positions, c.hidden_size});
  if (c.architecture == Architecture::Bert)  // DistilBERT has no token types
    w.token_type_embeddings = r.get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, c.hidden_size});
  w.embed_norm_weight = r.get("embeddings.LayerNorm.weight", {c.hidden_size});
  w.embed_norm_bias = r.get("embeddings.LayerNorm.bias", {c.hidden_size});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    w.layers.push_back(load_layer(r, c, l));
    by_head(w.layers.back(), c);
  }
  return w;
}

}  // namespace attnscope
