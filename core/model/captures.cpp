#include "model/captures.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>

#include "base/error.h"

namespace attnscope {

at::Tensor AttentionVisibility::visible_queries(int64_t layers, int64_t n, const at::Device& device) const {
  const at::Tensor keys = at::arange(n, at::TensorOptions().dtype(at::kFloat).device(device));
  std::vector<at::Tensor> rows;
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t w = causal && static_cast<size_t>(l) < windows.size() ? windows[static_cast<size_t>(l)] : 0;
    const at::Tensor last = w > 0 ? at::clamp_max(keys + static_cast<double>(w), static_cast<double>(n))
                                  : at::full_like(keys, static_cast<double>(n));
    rows.push_back(causal ? last - keys : at::full_like(keys, static_cast<double>(n)));
  }
  return at::stack(rows);
}

at::Tensor column_means(const at::Tensor& column_sums, const AttentionVisibility& visibility) {
  if (!visibility.causal) return column_sums;
  const int64_t L = column_sums.size(-3), n = column_sums.size(-1);
  return column_sums / visibility.visible_queries(L, n, column_sums.device()).unsqueeze(1);
}

namespace {

// [B, L, H, n] column sums to column_means, each text by its own length.
at::Tensor column_means_of_batch(at::Tensor columns, const BatchCaptures& batch) {
  if (!batch.visibility.causal) return columns;
  columns = columns.contiguous();
  for (size_t b = 0; b < batch.lengths.size(); ++b) {  // each text's own length sets its counts
    const int64_t n = batch.lengths[b];
    at::Tensor text = columns[static_cast<int64_t>(b)].narrow(-1, 0, n);
    text.copy_(column_means(text, batch.visibility));
  }
  return columns;
}

}  // namespace

TextCaptures text_captures(const BatchCaptures& batch, size_t index, bool to_host, bool hidden_states) {
  if (index >= batch.lengths.size()) throw Error("text " + std::to_string(index) + " is not in the batch");
  if (batch.head_outputs.empty()) throw Error("the forward pass was run without captures");
  const int64_t b = static_cast<int64_t>(index), n = batch.lengths[index];
  const auto place = [&](at::Tensor t) { return to_host ? t.to(at::kCPU, at::kFloat).contiguous() : t.contiguous(); };

  std::vector<at::Tensor> hidden;
  if (hidden_states)
    for (const auto& h : batch.hidden_states) hidden.push_back(h[b].narrow(0, 0, n));

  TextCaptures t;
  if (batch.all_column_sums.defined())  // a long text's: what recomputes its maps, not the maps
    t.column_sums = place(batch.all_column_sums.select(1, b).narrow(2, 0, n));
  else
    t.attention = place(text_attention(batch, index));
  t.head_outputs = place(text_head_outputs(batch, index));
  if (hidden_states) t.hidden_states = place(at::stack(hidden));
  if (batch.last_states.defined()) t.last_state = place(batch.last_states[b]);
  if (batch.all_value_norms.defined()) {
    t.value_norms = place(batch.all_value_norms.select(1, b).narrow(2, 0, n));
    t.value_gram = place(batch.all_value_gram.select(1, b).narrow(1, 0, n));
  }
  if (batch.all_queries.defined()) {
    t.queries = place(batch.all_queries.select(1, b).narrow(2, 0, n));
    t.keys = place(batch.all_keys.select(1, b).narrow(2, 0, n));
  }
  if (batch.all_layer_keys.defined()) t.layer_keys = place(batch.all_layer_keys.select(1, b).narrow(2, 0, n));
  if (batch.all_layer_values.defined()) t.layer_values = place(batch.all_layer_values.select(1, b).narrow(2, 0, n));
  t.column_sums_before = batch.column_sums_before.of_text(b);
  for (at::Tensor& sums : t.column_sums_before.sums) sums = place(sums);
  t.num_layers = t.head_outputs.size(0);
  t.num_heads = t.head_outputs.size(1);
  t.length = n;
  t.head_dim = t.head_outputs.size(3);
  t.hidden_size = batch.hidden_states.empty() ? 0 : batch.hidden_states.front().size(2);
  t.visibility = batch.visibility;
  return t;
}

at::Tensor text_attention(const BatchCaptures& batch, size_t index) {
  if (index >= batch.lengths.size()) throw Error("text " + std::to_string(index) + " is not in the batch");
  if (batch.attention.empty()) throw Error("the forward pass was run without captures");
  const int64_t b = static_cast<int64_t>(index), n = batch.lengths[index];
  if (batch.all_attention.defined()) return batch.all_attention.select(1, b).narrow(2, 0, n).narrow(3, 0, n);
  std::vector<at::Tensor> attention;
  for (const auto& a : batch.attention) attention.push_back(a[b].narrow(1, 0, n).narrow(2, 0, n));
  return at::stack(attention);
}

at::Tensor text_head_outputs(const BatchCaptures& batch, size_t index) {
  if (index >= batch.lengths.size()) throw Error("text " + std::to_string(index) + " is not in the batch");
  if (batch.head_outputs.empty()) throw Error("the forward pass was run without captures");
  const int64_t b = static_cast<int64_t>(index), n = batch.lengths[index];
  if (batch.all_head_outputs.defined()) return batch.all_head_outputs.select(1, b).narrow(2, 0, n);
  std::vector<at::Tensor> outputs;
  for (const auto& c : batch.head_outputs) outputs.push_back(c[b].narrow(1, 0, n));
  return at::stack(outputs);
}

at::Tensor real_rows(const BatchCaptures& batch) {
  if (batch.head_outputs.empty()) throw Error("the forward pass was run without captures");
  const at::Tensor rows =
      real_query_rows(batch.lengths, batch.head_outputs.front().size(2), batch.head_outputs.front().device());
  return rows.defined() ? rows.squeeze(1) : rows;
}

at::Tensor real_query_rows(const std::vector<int64_t>& lengths, int64_t n, const at::Device& device) {
  if (std::all_of(lengths.begin(), lengths.end(), [&](int64_t length) { return length == n; })) return {};
  const at::Tensor counts = at::tensor(lengths).to(device);
  return (at::arange(n, at::TensorOptions().dtype(at::kLong).device(device)).unsqueeze(0) < counts.unsqueeze(1))
      .to(at::kFloat)
      .view({-1, 1, n, 1});
}

at::Tensor column_attention(const BatchCaptures& batch) {
  c10::InferenceMode guard;
  if (batch.all_column_sums.defined())
    return column_means_of_batch(batch.all_column_sums.transpose(0, 1).clone(at::MemoryFormat::Contiguous), batch);
  const at::Tensor rows = real_rows(batch);
  std::vector<at::Tensor> layers;
  for (const auto& a : batch.attention) {
    const at::Tensor maps = a.to(at::kFloat);  // [B, H, n, n]
    layers.push_back((rows.defined() ? maps * rows.unsqueeze(1) : maps).sum(-2));
  }
  return column_means_of_batch(at::stack(layers, 1), batch);
}

}  // namespace attnscope
