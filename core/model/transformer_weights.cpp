#include "model/transformer_weights.h"

#include <ATen/ATen.h>

#include "base/error.h"

namespace attnscope {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

class WeightReader {
 public:
  WeightReader(const TensorSource& source, const ComputeDevice& device, std::string prefix)
      : source_(source), device_(device), prefix_(std::move(prefix)) {}

  bool has(const std::string& name) const { return !find(name).empty(); }

  at::Tensor get(const std::string& name, const std::vector<int64_t>& shape) const {
    const std::string found = find(name);
    if (found.empty())
      throw Error(source_.source() + ": tensor " + name + " is missing (looked for it with and without the \"" +
                  prefix_ + "\" prefix)");
    if (const auto stored = source_.shape(found); *stored != shape)
      throw Error(source_.source() + ": tensor " + found + " has shape " + shape_text(*stored) + ", expected " +
                  shape_text(shape));
    return source_.read(found).to(device_.device, device_.dtype).contiguous();
  }

  // A vocabulary's rows: kept in the source's Q8_0 blocks where it has them and the model runs in
  // float32 on the CPU (the blocks' kernels are the CPU's); a tensor like any other otherwise.
  TokenMatrix get_rows(const std::string& name, const std::vector<int64_t>& shape) const {
    const std::string found = find(name);
    if (!found.empty() && device_.device.is_cpu() && device_.dtype == at::kFloat && source_.shape(found) == shape)
      if (std::optional<Q8Rows> rows = source_.q8_rows(found)) return TokenMatrix(std::move(*rows));
    return TokenMatrix(get(name, shape));
  }

 private:
  // The name the source has the tensor under, or empty.
  std::string find(const std::string& name) const {
    for (const std::string& candidate : aliases(name)) {
      if (source_.shape(candidate)) return candidate;
      if (source_.shape(prefix_ + candidate)) return prefix_ + candidate;
    }
    return {};
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

  const TensorSource& source_;
  const ComputeDevice& device_;
  std::string prefix_;
};

// A layer's prefix from the description's template: "{}" is the layer's number; shared layers
// (ALBERT) name their group and their place in it.
std::string layer_prefix(std::string name, int64_t index, int64_t group = 0) {
  const auto put = [&](const std::string& slot, int64_t value) {
    if (const auto at = name.find(slot); at != std::string::npos) name.replace(at, slot.size(), std::to_string(value));
  };
  put("{}", index);
  put("{group}", group);
  put("{inner}", index);
  return name;
}

// A layer's tensors by the description's names, below the layer's prefix; matrices stored
// [in, out] (GPT-2's Conv1D) turned to [out, in] as every other family stores them.
struct LayerReader {
  const WeightReader& r;
  const std::string& prefix;
  bool stored_in_out = false;
  at::Tensor weight(const char* name, const std::vector<int64_t>& shape) const {
    if (stored_in_out && shape.size() == 2)
      return r.get(prefix + name + ".weight", {shape[1], shape[0]}).t().contiguous();
    return r.get(prefix + name + ".weight", shape);
  }
  at::Tensor bias(const char* name, int64_t size, bool present) const {
    return present ? r.get(prefix + name + ".bias", {size}) : at::Tensor();
  }
};

// The query, key and value projections: a fused [q; k; v] matrix or three, fused by head
// (encoders), or three with their own head counts stacked (decoders).
void load_projections(LayerWeights& w, const ModelConfig& c, const LayerNames& n, const LayerReader& get) {
  const int64_t D = c.hidden_size, q_rows = c.num_heads * c.head_dim(), kv_rows = c.kv_heads() * c.head_dim();
  const bool biased = c.biases.qkv;
  if (*n.qkv) {
    w.qkv_weight = get.weight(n.qkv, {3 * D, D});
    w.qkv_bias = biased ? get.bias(n.qkv, 3 * D, true) : at::zeros({3 * D}, w.qkv_weight.options());
  } else if (c.causal()) {
    w.stacked_qkv_weight =
        at::cat({get.weight(n.query, {q_rows, D}), get.weight(n.key, {kv_rows, D}), get.weight(n.value, {kv_rows, D})});
    if (biased)
      w.stacked_qkv_bias =
          at::cat({get.bias(n.query, q_rows, true), get.bias(n.key, kv_rows, true), get.bias(n.value, kv_rows, true)});
    if (*n.query_norm) w.q_norm_weight = get.weight(n.query_norm, {c.head_dim()});
    if (*n.key_norm) w.k_norm_weight = get.weight(n.key_norm, {c.head_dim()});
  } else {
    w.qkv_weight = at::cat({get.weight(n.query, {D, D}), get.weight(n.key, {D, D}), get.weight(n.value, {D, D})});
    w.qkv_bias = biased ? at::cat({get.bias(n.query, D, true), get.bias(n.key, D, true), get.bias(n.value, D, true)})
                        : at::zeros({3 * D}, w.qkv_weight.options());
  }
}

// The feed-forward block's input: one matrix, or for a gated block with its gate apart, the gate's
// rows and then the input's (the forward's act(gate) * input).
void load_feed_forward(LayerWeights& w, const ModelConfig& c, const LayerNames& n, const LayerReader& get) {
  const int64_t D = c.hidden_size, I = c.intermediate_size;
  const bool biased = c.biases.ffn;
  if (*n.ffn_gate) {
    w.ffn_in_weight = at::cat({get.weight(n.ffn_gate, {I, D}), get.weight(n.ffn_in, {I, D})});
    if (biased) w.ffn_in_bias = at::cat({get.bias(n.ffn_gate, I, true), get.bias(n.ffn_in, I, true)});
  } else {
    const int64_t rows = c.architecture->feed_forward == FeedForward::Gated ? 2 * I : I;  // gated: input and gate
    w.ffn_in_weight = get.weight(n.ffn_in, {rows, D});
    w.ffn_in_bias = get.bias(n.ffn_in, rows, biased);
  }
  w.ffn_out_weight = get.weight(n.ffn_out, {D, I});
  w.ffn_out_bias = get.bias(n.ffn_out, D, biased);
}

// One layer's tensors under the description's names (each name before ".weight" and ".bias").
// Biases only where the config has them; no norm before the first layer's attention where the
// description says so.
LayerWeights load_layer(const WeightReader& r, const ModelConfig& c, const std::string& p, bool first) {
  const LayerNames& n = c.architecture->layer;
  const int64_t D = c.hidden_size;
  const LayerReader get{r, p, c.architecture->conv1d_weights};
  LayerWeights w;
  load_projections(w, c, n, get);
  w.attn_out_weight = get.weight(n.attention_out, {D, c.num_heads * c.head_dim()});
  w.attn_out_bias = get.bias(n.attention_out, D, c.biases.attention_out);
  if (!first || c.architecture->first_layer_attention_norm) {
    w.attn_norm_weight = get.weight(n.attention_norm, {D});
    w.attn_norm_bias = get.bias(n.attention_norm, D, c.norm_bias);
  }
  load_feed_forward(w, c, n, get);
  w.ffn_norm_weight = get.weight(n.ffn_norm, {D});
  w.ffn_norm_bias = get.bias(n.ffn_norm, D, c.norm_bias);
  if (*n.post_attention_norm) w.post_attn_norm_weight = get.weight(n.post_attention_norm, {D});
  if (*n.post_ffn_norm) w.post_ffn_norm_weight = get.weight(n.post_ffn_norm, {D});
  return w;
}

// Query, key and value rows regrouped head by head, [H, 3, d] rows: the fused projection then
// leaves every head's q, k and v as plain matrices that the attention products read in place.
void by_head(LayerWeights& w, const ModelConfig& c) {
  // A decoder's projections apart stay apart; GPT-NeoX's fused rows come grouped by head.
  if (!w.qkv_weight.defined() || c.architecture->qkv_by_head) return;
  const int64_t H = c.num_heads, d = c.head_dim(), D = c.hidden_size;
  w.qkv_weight = w.qkv_weight.view({3, H, d, D}).transpose(0, 1).reshape({3 * D, D}).contiguous();
  w.qkv_bias = w.qkv_bias.view({3, H, d}).transpose(0, 1).reshape({3 * D}).contiguous();
}

// Shared layers (ALBERT) run num_hidden_layers / num_hidden_groups times through each group in
// turn, every time through all of the group's inner layers; the loaded layers are listed in that order.
std::vector<LayerWeights> load_shared_layers(const WeightReader& r, const ModelConfig& c) {
  std::vector<std::vector<LayerWeights>> groups(static_cast<size_t>(c.weight_groups));
  for (int64_t g = 0; g < c.weight_groups; ++g)
    for (int64_t j = 0; j < c.inner_layers; ++j) {
      auto& group = groups[static_cast<size_t>(g)];
      group.push_back(load_layer(r, c, layer_prefix(c.architecture->layer.layer, j, g), g == 0 && j == 0));
      by_head(group.back(), c);
    }
  std::vector<LayerWeights> layers;
  const int64_t runs = c.num_layers / c.inner_layers;
  for (int64_t i = 0; i < runs; ++i) {
    const auto g = static_cast<size_t>(static_cast<double>(i) /
                                       (static_cast<double>(runs) / static_cast<double>(c.weight_groups)));
    for (const LayerWeights& layer : groups[g]) layers.push_back(layer);
  }
  return layers;
}

void load_embeddings(const WeightReader& r, const ModelConfig& c, TransformerWeights& w) {
  const EmbeddingNames& n = c.architecture->embeddings;
  const int64_t E = c.embedding_width();
  const auto name = [](const char* base, const char* part) { return std::string(base) + "." + part; };
  w.word_embeddings = r.get_rows(name(n.words, "weight"), {c.vocab_size, E});
  if (*n.positions) w.position_embeddings = r.get(name(n.positions, "weight"), {c.max_positions, E});
  if (*n.token_types && c.type_vocab_size > 0)
    w.token_type_embeddings = r.get(name(n.token_types, "weight"), {c.type_vocab_size, E});
  if (*n.norm) {  // the decoders have none
    w.embed_norm_weight = r.get(name(n.norm, "weight"), {E});
    if (c.norm_bias) w.embed_norm_bias = r.get(name(n.norm, "bias"), {E});
  }
  // Embeddings narrower than the hidden size are projected to it (ELECTRA, ALBERT; ALBERT's file
  // has the projection even where the widths agree).
  if (*n.project && (E != c.hidden_size || r.has(name(n.project, "weight")))) {
    w.embed_project_weight = r.get(name(n.project, "weight"), {c.hidden_size, E});
    w.embed_project_bias = r.get(name(n.project, "bias"), {c.hidden_size});
  }
  if (*n.relative_bias) w.relative_bias = r.get(name(n.relative_bias, "weight"), {c.relative_buckets, c.num_heads});
  if (*n.relative_embeddings) {  // normalised once here: the layers only ever read them so
    const int64_t D = c.hidden_size;
    w.relative_embeddings = r.get(name(n.relative_embeddings, "weight"), {2 * c.disentangled.span, D});
    if (*n.relative_norm)
      w.relative_embeddings = at::layer_norm(w.relative_embeddings, {D}, r.get(name(n.relative_norm, "weight"), {D}),
                                             r.get(name(n.relative_norm, "bias"), {D}), c.layer_norm_eps);
  }
  if (*n.final_norm) {
    w.final_norm_weight = r.get(name(n.final_norm, "weight"), {E});
    if (c.norm_bias) w.final_norm_bias = r.get(name(n.final_norm, "bias"), {E});
  }
}

// DeBERTa: the relative embeddings projected by each layer's own query and key projections (their
// biases too), per head, from the fused rows grouped by head ([H, 3, d]).
void project_relative_embeddings(TransformerWeights& w, const ModelConfig& c) {
  const int64_t H = c.num_heads, d = c.head_dim(), D = c.hidden_size;
  for (LayerWeights& layer : w.layers) {
    const at::Tensor rows = layer.qkv_weight.view({H, 3, d, D}), bias = layer.qkv_bias.view({H, 3, 1, d});
    const auto project = [&](int64_t part) {  // [H, 2 span, d] -> [H, d, 2 span]
      return (at::matmul(w.relative_embeddings, rows.select(1, part).transpose(1, 2)) + bias.select(1, part))
          .transpose(1, 2)
          .contiguous();
    };
    layer.relative_query_t = project(0);
    layer.relative_key_t = project(1);
  }
}

}  // namespace

TransformerWeights load_weights(const TensorSource& source, const ModelConfig& c, const ComputeDevice& device) {
  const WeightReader r(source, device, std::string(c.architecture->prefix));
  TransformerWeights w;
  load_embeddings(r, c, w);
  if (const std::string output = std::string(c.architecture->embeddings.output) + ".weight"; c.causal())
    w.output_weight = r.has(output) ? r.get_rows(output, {c.vocab_size, c.hidden_size}) : w.word_embeddings;
  if (c.architecture->shared_layers) {
    w.layers = load_shared_layers(r, c);
    return w;
  }
  for (int64_t l = 0; l < c.num_layers; ++l) {
    w.layers.push_back(load_layer(r, c, layer_prefix(c.architecture->layer.layer, l), l == 0));
    by_head(w.layers.back(), c);
  }
  if (w.relative_embeddings.defined()) project_relative_embeddings(w, c);
  return w;
}

}  // namespace attnscope
