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

// The prefix a task model (for masked LM, classification, ...) puts before the encoder's names.
std::string prefix_of(const BertConfig& c) {
  switch (c.architecture) {
    case Architecture::Bert: return "bert.";
    case Architecture::DistilBert: return "distilbert.";
    case Architecture::Roberta: return "roberta.";  // XLM-R and CamemBERT too
    case Architecture::Electra: return "electra.";
    case Architecture::Albert: return "albert.";
    case Architecture::ModernBert: return "model.";
  }
  return "";
}

class WeightReader {
 public:
  WeightReader(const SafetensorsFile& file, const ComputeDevice& device, std::string prefix)
      : file_(file), device_(device), prefix_(std::move(prefix)) {}

  at::Tensor get(const std::string& name, const std::vector<int64_t>& shape) const {
    const TensorInfo* info = find(name);
    if (!info)
      throw Error(file_.source() + ": tensor " + name + " is missing (looked for it with and without the \"" + prefix_ + "\" prefix)");
    if (info->shape != shape)
      throw Error(file_.source() + ": tensor " + info->name + " has shape " + shape_text(info->shape) + ", expected " + shape_text(shape));
    return to_device(*info);
  }

 private:
  const TensorInfo* find(const std::string& name) const {
    for (const std::string& candidate : aliases(name)) {
      if (const auto* t = file_.find(candidate)) return t;
      if (const auto* t = file_.find(prefix_ + candidate)) return t;
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
  std::string prefix_;
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

// ALBERT's names for a layer of one of its shared groups.
LayerWeights load_albert_layer(const WeightReader& r, const BertConfig& c, int64_t group, int64_t inner) {
  const std::string p = "encoder.albert_layer_groups." + std::to_string(group) + ".albert_layers." + std::to_string(inner) + ".";
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  LayerWeights w;
  w.qkv_weight = at::cat({r.get(p + "attention.query.weight", {D, D}), r.get(p + "attention.key.weight", {D, D}),
                          r.get(p + "attention.value.weight", {D, D})});
  w.qkv_bias = at::cat({r.get(p + "attention.query.bias", {D}), r.get(p + "attention.key.bias", {D}), r.get(p + "attention.value.bias", {D})});
  w.attn_out_weight = r.get(p + "attention.dense.weight", {D, D});
  w.attn_out_bias = r.get(p + "attention.dense.bias", {D});
  w.attn_norm_weight = r.get(p + "attention.LayerNorm.weight", {D});
  w.attn_norm_bias = r.get(p + "attention.LayerNorm.bias", {D});
  w.ffn_in_weight = r.get(p + "ffn.weight", {I, D});
  w.ffn_in_bias = r.get(p + "ffn.bias", {I});
  w.ffn_out_weight = r.get(p + "ffn_output.weight", {D, I});
  w.ffn_out_bias = r.get(p + "ffn_output.bias", {D});
  w.ffn_norm_weight = r.get(p + "full_layer_layer_norm.weight", {D});
  w.ffn_norm_bias = r.get(p + "full_layer_layer_norm.bias", {D});
  return w;
}

// ModernBERT's names: fused Wqkv and Wo, attn_norm (none in layer 0), mlp_norm, mlp.Wi (input
// and gate) and mlp.Wo; biases only when the config asks for them. The norm before the attention
// is kept in attn_norm_*, the one before the feed-forward block in ffn_norm_*.
LayerWeights load_modernbert_layer(const WeightReader& r, const BertConfig& c, int64_t index) {
  const std::string p = "layers." + std::to_string(index) + ".";
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  LayerWeights w;
  w.qkv_weight = r.get(p + "attn.Wqkv.weight", {3 * D, D});
  w.qkv_bias = c.linear_bias ? r.get(p + "attn.Wqkv.bias", {3 * D}) : at::zeros({3 * D}, w.qkv_weight.options());
  w.attn_out_weight = r.get(p + "attn.Wo.weight", {D, D});
  w.ffn_in_weight = r.get(p + "mlp.Wi.weight", {2 * I, D});
  w.ffn_out_weight = r.get(p + "mlp.Wo.weight", {D, I});
  if (c.linear_bias) {
    w.attn_out_bias = r.get(p + "attn.Wo.bias", {D});
    w.ffn_in_bias = r.get(p + "mlp.Wi.bias", {2 * I});
    w.ffn_out_bias = r.get(p + "mlp.Wo.bias", {D});
  }
  if (index > 0) w.attn_norm_weight = r.get(p + "attn_norm.weight", {D});
  if (index > 0 && c.norm_bias) w.attn_norm_bias = r.get(p + "attn_norm.bias", {D});
  w.ffn_norm_weight = r.get(p + "mlp_norm.weight", {D});
  if (c.norm_bias) w.ffn_norm_bias = r.get(p + "mlp_norm.bias", {D});
  return w;
}

LayerWeights load_layer(const WeightReader& r, const BertConfig& c, int64_t index) {
  if (c.architecture == Architecture::DistilBert) return load_distilbert_layer(r, c, index);
  if (c.architecture == Architecture::ModernBert) return load_modernbert_layer(r, c, index);
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

// ALBERT runs num_hidden_layers / num_hidden_groups times through each group in turn, every
// time through all of the group's inner layers; the loaded layers are listed in that order.
std::vector<LayerWeights> load_albert_layers(const WeightReader& r, const BertConfig& c) {
  std::vector<std::vector<LayerWeights>> groups(static_cast<size_t>(c.weight_groups));
  for (int64_t g = 0; g < c.weight_groups; ++g)
    for (int64_t j = 0; j < c.inner_layers; ++j) {
      groups[static_cast<size_t>(g)].push_back(load_albert_layer(r, c, g, j));
      by_head(groups[static_cast<size_t>(g)].back(), c);
    }
  std::vector<LayerWeights> layers;
  const int64_t runs = c.num_layers / c.inner_layers;
  for (int64_t i = 0; i < runs; ++i) {
    const auto g = static_cast<size_t>(static_cast<double>(i) / (static_cast<double>(runs) / static_cast<double>(c.weight_groups)));
    for (const LayerWeights& layer : groups[g]) layers.push_back(layer);
  }
  return layers;
}

void load_embeddings(const WeightReader& r, const BertConfig& c, BertWeights& w) {
  const int64_t E = c.embedding_width();
  if (c.architecture == Architecture::ModernBert) {
    w.word_embeddings = r.get("embeddings.tok_embeddings.weight", {c.vocab_size, E});
    w.embed_norm_weight = r.get("embeddings.norm.weight", {E});
    if (c.norm_bias) w.embed_norm_bias = r.get("embeddings.norm.bias", {E});
    w.final_norm_weight = r.get("final_norm.weight", {E});
    if (c.norm_bias) w.final_norm_bias = r.get("final_norm.bias", {E});
    return;
  }
  w.word_embeddings = r.get("embeddings.word_embeddings.weight", {c.vocab_size, E});
  w.position_embeddings = r.get("embeddings.position_embeddings.weight", {c.max_positions, E});
  if (c.architecture != Architecture::DistilBert)  // DistilBERT has no token types
    w.token_type_embeddings = r.get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, E});
  w.embed_norm_weight = r.get("embeddings.LayerNorm.weight", {E});
  w.embed_norm_bias = r.get("embeddings.LayerNorm.bias", {E});
  const std::string project = c.architecture == Architecture::Albert ? "encoder.embedding_hidden_mapping_in." : "embeddings_project.";
  if (c.architecture == Architecture::Albert || (c.architecture == Architecture::Electra && E != c.hidden_size)) {
    w.embed_project_weight = r.get(project + "weight", {c.hidden_size, E});
    w.embed_project_bias = r.get(project + "bias", {c.hidden_size});
  }
}

}  // namespace

BertWeights load_bert_weights(const SafetensorsFile& file, const BertConfig& c, const ComputeDevice& device) {
  const WeightReader r(file, device, prefix_of(c));
  BertWeights w;
  load_embeddings(r, c, w);
  if (c.architecture == Architecture::Albert) {
    w.layers = load_albert_layers(r, c);
    return w;
  }
  for (int64_t l = 0; l < c.num_layers; ++l) {
    w.layers.push_back(load_layer(r, c, l));
    by_head(w.layers.back(), c);
  }
  return w;
}

}  // namespace attnscope
