#include "model/bert_weights.h"

#include <ATen/ATen.h>

#include <cstring>

#include "base/error.h"

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

// Where a BERT-like layer's tensors are, below the layer's prefix (each name before ".weight" and
// ".bias"): BERT's own names (RoBERTa and ELECTRA use them too), DistilBERT's and ALBERT's.
struct LayerNames {
  const char *query, *key, *value, *attn_out, *attn_norm, *ffn_in, *ffn_out, *ffn_norm;
};
constexpr LayerNames kBertNames{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                                "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"};
constexpr LayerNames kDistilBertNames{"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                                      "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"};
constexpr LayerNames kAlbertNames{"attention.query", "attention.key", "attention.value", "attention.dense",
                                  "attention.LayerNorm", "ffn", "ffn_output", "full_layer_layer_norm"};

LayerWeights load_named_layer(const WeightReader& r, const BertConfig& c, const std::string& p, const LayerNames& n) {
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  const auto weight = [&](const char* name, const std::vector<int64_t>& shape) { return r.get(p + name + ".weight", shape); };
  const auto bias = [&](const char* name, int64_t size) { return r.get(p + name + ".bias", {size}); };
  LayerWeights w;
  w.qkv_weight = at::cat({weight(n.query, {D, D}), weight(n.key, {D, D}), weight(n.value, {D, D})});
  w.qkv_bias = at::cat({bias(n.query, D), bias(n.key, D), bias(n.value, D)});
  w.attn_out_weight = weight(n.attn_out, {D, D});
  w.attn_out_bias = bias(n.attn_out, D);
  w.attn_norm_weight = weight(n.attn_norm, {D});
  w.attn_norm_bias = bias(n.attn_norm, D);
  w.ffn_in_weight = weight(n.ffn_in, {I, D});
  w.ffn_in_bias = bias(n.ffn_in, I);
  w.ffn_out_weight = weight(n.ffn_out, {D, I});
  w.ffn_out_bias = bias(n.ffn_out, D);
  w.ffn_norm_weight = weight(n.ffn_norm, {D});
  w.ffn_norm_bias = bias(n.ffn_norm, D);
  return w;
}

// Query, key and value rows regrouped head by head, [H, 3, d] rows: the fused projection then
// leaves every head's q, k and v as plain matrices that the attention products read in place.
void by_head(LayerWeights& w, const BertConfig& c) {
  const int64_t H = c.num_heads, d = c.head_dim(), D = c.hidden_size;
  w.qkv_weight = w.qkv_weight.view({3, H, d, D}).transpose(0, 1).reshape({3 * D, D}).contiguous();
  w.qkv_bias = w.qkv_bias.view({3, H, d}).transpose(0, 1).reshape({3 * D}).contiguous();
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
  const std::string number = std::to_string(index) + ".";
  if (c.architecture == Architecture::DistilBert) return load_named_layer(r, c, "transformer.layer." + number, kDistilBertNames);
  if (c.architecture == Architecture::ModernBert) return load_modernbert_layer(r, c, index);
  return load_named_layer(r, c, "encoder.layer." + number, kBertNames);
}

// ALBERT runs num_hidden_layers / num_hidden_groups times through each group in turn, every
// time through all of the group's inner layers; the loaded layers are listed in that order.
std::vector<LayerWeights> load_albert_layers(const WeightReader& r, const BertConfig& c) {
  std::vector<std::vector<LayerWeights>> groups(static_cast<size_t>(c.weight_groups));
  for (int64_t g = 0; g < c.weight_groups; ++g)
    for (int64_t j = 0; j < c.inner_layers; ++j) {
      groups[static_cast<size_t>(g)].push_back(
          load_named_layer(r, c, "encoder.albert_layer_groups." + std::to_string(g) + ".albert_layers." + std::to_string(j) + ".", kAlbertNames));
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
