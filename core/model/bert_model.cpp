#include "model/bert_model.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <limits>

#include "error.h"

namespace attnscope {

BertModel::BertModel(BertConfig config, BertWeights weights, ComputeDevice device)
    : config_(config), weights_(std::move(weights)), device_(device) {}

std::shared_ptr<const BertModel> BertModel::load(const std::filesystem::path& dir, const ComputeDevice& device) {
  const BertConfig config = BertConfig::load(dir / "config.json");
  const auto weights_file = dir / "model.safetensors";
  if (!std::filesystem::exists(weights_file))
    throw Error(weights_file.string() + ": missing (attnscope reads the weights from model.safetensors)");
  const SafetensorsFile file(weights_file);
  c10::InferenceMode guard;
  return std::make_shared<const BertModel>(config, load_bert_weights(file, config, device), device);
}

at::Tensor BertModel::embed(const at::Tensor& ids) const {
  const int64_t n = ids.size(1);
  at::Tensor x = at::embedding(weights_.word_embeddings, ids) + weights_.position_embeddings.narrow(0, 0, n);
  if (weights_.token_type_embeddings.defined()) x = x + weights_.token_type_embeddings[0];  // DistilBERT has none
  return at::layer_norm(x, {config_.hidden_size}, weights_.embed_norm_weight, weights_.embed_norm_bias, config_.layer_norm_eps);
}

at::Tensor BertModel::activate(at::Tensor x) const {
  switch (config_.activation) {
    case Activation::GeluErf: return at::gelu_(x);
    case Activation::GeluTanh: return at::gelu_(x, "tanh");
    case Activation::Relu: return at::relu_(x);
  }
  return x;
}

at::Tensor BertModel::attend(const LayerWeights& w, const at::Tensor& x, const at::Tensor& mask, BatchCaptures* keep) const {
  const int64_t B = x.size(0), n = x.size(1), H = config_.num_heads, d = config_.head_dim(), D = config_.hidden_size;
  // The projection computed transposed, [B, 3D, n], is per head [3, d, n]: q^T, k^T and v^T are
  // plain matrices of one batch of B * H, read in place by the products (no copies of q, k, v).
  const at::Tensor qkv_t = at::baddbmm(w.qkv_bias.view({1, 3 * D, 1}), w.qkv_weight.expand({B, 3 * D, D}), x.transpose(1, 2));
  const at::Tensor heads = qkv_t.view({B * H, 3, d, n});
  const at::Tensor q_t = heads.select(1, 0), k_t = heads.select(1, 1), v_t = heads.select(1, 2);  // [B * H, d, n]
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  at::Tensor context;
  if (keep) {
    // Scaling q (a quarter of the scores' size at 128 tokens) instead of the scores saves a pass.
    at::Tensor scores = at::bmm((q_t * scale).transpose(1, 2), k_t).view({B, H, n, n});
    if (mask.defined()) scores.add_(mask);
    // Written straight into this layer's slice of the captures (softmax in place of the scores
    // measured slower; writing out saves a copy per text later).
    const int64_t l = static_cast<int64_t>(keep->attention.size());
    at::Tensor attention = keep->all_attention[l];
    at::_softmax_out(attention, scores, -1, false);
    context = keep->all_head_outputs[l];
    at::Tensor context_rows = context.view({B * H, n, d});
    at::bmm_out(context_rows, attention.view({B * H, n, n}), v_t.transpose(1, 2));
    keep->attention.push_back(attention);
    keep->head_outputs.push_back(context);
  } else {
    const auto as_heads = [&](const at::Tensor& t) { return t.transpose(1, 2).view({B, H, n, d}); };
    context = at::scaled_dot_product_attention(as_heads(q_t), as_heads(k_t), as_heads(v_t),
                                               mask.defined() ? std::optional<at::Tensor>(mask) : std::nullopt);
  }
  return context;
}

at::Tensor BertModel::finish(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x) const {
  const int64_t B = x.size(0), n = x.size(1), D = config_.hidden_size;
  // Residual sums and the activation are done in place on the fresh products: no extra tensors
  // of activations to allocate and write.
  const at::Tensor merged = context.transpose(1, 2).reshape({B, n, D});
  const at::Tensor attended = at::layer_norm(at::linear(merged, w.attn_out_weight, w.attn_out_bias).add_(x), {D},
                                             w.attn_norm_weight, w.attn_norm_bias, config_.layer_norm_eps);
  const at::Tensor inner = activate(at::linear(attended, w.ffn_in_weight, w.ffn_in_bias));
  return at::layer_norm(at::linear(inner, w.ffn_out_weight, w.ffn_out_bias).add_(attended), {D}, w.ffn_norm_weight,
                        w.ffn_norm_bias, config_.layer_norm_eps);
}

BatchCaptures BertModel::forward(const std::vector<std::vector<int64_t>>& ids, bool capture, LastLayer last, const KeepGoing& keep_going) const {
  if (ids.empty()) throw Error("nothing to run: the batch is empty");
  if (last == LastLayer::HeadOutputsOnly && !capture) throw Error("a forward pass without captures needs its last layer complete");
  int64_t n = 0;
  for (const auto& text : ids) {
    if (text.empty()) throw Error("a text of the batch has no tokens");
    n = std::max<int64_t>(n, static_cast<int64_t>(text.size()));
  }
  if (n > config_.max_positions)
    throw Error("a text has " + std::to_string(n) + " tokens; the model takes at most " + std::to_string(config_.max_positions));

  const int64_t B = static_cast<int64_t>(ids.size());
  at::Tensor host_ids = at::zeros({B, n}, at::kLong);  // pads take id 0, masked out below
  BatchCaptures out;
  bool padded = false;
  for (int64_t b = 0; b < B; ++b) {
    const auto& text = ids[static_cast<size_t>(b)];
    for (int64_t id : text)
      if (id < 0 || id >= config_.vocab_size)
        throw Error("token id " + std::to_string(id) + " is outside the model's vocabulary of " + std::to_string(config_.vocab_size));
    std::copy(text.begin(), text.end(), host_ids[b].data_ptr<int64_t>());
    out.lengths.push_back(static_cast<int64_t>(text.size()));
    padded |= static_cast<int64_t>(text.size()) < n;
  }

  c10::InferenceMode guard;
  const at::Tensor device_ids = host_ids.to(device_.device);
  at::Tensor mask;  // additive, [B, 1, 1, n]: 0 for real keys, the dtype's lowest value for pads
  if (padded) {
    at::Tensor real = at::zeros({B, n}, at::kBool);
    for (int64_t b = 0; b < B; ++b) real[b].narrow(0, 0, out.lengths[static_cast<size_t>(b)]).fill_(true);
    const double lowest = device_.dtype == at::kFloat ? std::numeric_limits<float>::lowest()
                          : device_.dtype == at::kHalf ? -65504.0
                                                       : -3.38953139e38;
    mask = at::where(real, 0.0, lowest).to(device_.device, device_.dtype).view({B, 1, 1, n});
  }
  if (capture) {
    const auto options = at::TensorOptions().dtype(device_.dtype).device(device_.device);
    const int64_t L = config_.num_layers, H = config_.num_heads;
    out.all_attention = at::empty({L, B, H, n, n}, options);
    out.all_head_outputs = at::empty({L, B, H, n, config_.head_dim()}, options);
  }
  at::Tensor x = embed(device_ids);
  out.hidden_states.push_back(x);
  for (size_t l = 0; l < weights_.layers.size(); ++l) {
    if (keep_going && !keep_going()) throw Cancelled();
    const LayerWeights& w = weights_.layers[l];
    const at::Tensor context = attend(w, x, mask, capture ? &out : nullptr);
    if (last == LastLayer::HeadOutputsOnly && l + 1 == weights_.layers.size()) break;
    if (keep_going && !keep_going()) throw Cancelled();  // halfway through the layer too: a stale run stops sooner
    x = finish(w, context, x);
    out.hidden_states.push_back(x);
  }
  return out;
}

}  // namespace attnscope
