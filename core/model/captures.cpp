#include "model/captures.h"

#include <ATen/ATen.h>

#include "error.h"

namespace attnscope {

TextCaptures text_captures(const BatchCaptures& batch, size_t index, bool to_host, bool hidden_states) {
  if (index >= batch.lengths.size()) throw Error("text " + std::to_string(index) + " is not in the batch");
  if (batch.attention.empty()) throw Error("the forward pass was run without captures");
  const int64_t b = static_cast<int64_t>(index), n = batch.lengths[index];
  const auto place = [&](at::Tensor t) { return to_host ? t.to(at::kCPU, at::kFloat).contiguous() : t.contiguous(); };

  std::vector<at::Tensor> attention, outputs, hidden;
  for (const auto& a : batch.attention) attention.push_back(a[b].narrow(1, 0, n).narrow(2, 0, n));
  for (const auto& c : batch.head_outputs) outputs.push_back(c[b].narrow(1, 0, n));
  if (hidden_states)
    for (const auto& h : batch.hidden_states) hidden.push_back(h[b].narrow(0, 0, n));

  TextCaptures t;
  t.attention = place(at::stack(attention));
  t.head_outputs = place(at::stack(outputs));
  if (hidden_states) t.hidden_states = place(at::stack(hidden));
  t.num_layers = t.attention.size(0);
  t.num_heads = t.attention.size(1);
  t.length = n;
  t.head_dim = t.head_outputs.size(3);
  t.hidden_size = batch.hidden_states.empty() ? 0 : batch.hidden_states.front().size(2);
  return t;
}

}  // namespace attnscope
