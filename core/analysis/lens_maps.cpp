#include "analysis/lens_maps.h"

#include <ATen/ATen.h>

#include "analysis/attention_rollout.h"
#include "analysis/norm_based_attention.h"

namespace attnscope {

at::Tensor head_norm_maps(const TextCaptures& c) {
  return norm_based_attention(c.attention.to(at::kFloat), c.value_norms);
}

at::Tensor head_norm_maps(const TextCaptures& c, int layer) {
  return norm_based_attention(c.attention[layer].to(at::kFloat),
                              c.value_norms.defined() ? c.value_norms[layer] : at::Tensor());
}

at::Tensor layer_norm_maps(const TextCaptures& c, int first, int count) {
  const at::Tensor gram = c.value_gram;
  return layer_norm_based_attention(c.attention.slice(0, first, first + count).to(at::kFloat),
                                    gram.defined() ? gram.slice(0, first, first + count) : gram,
                                    {.causal = c.visibility.causal});
}

at::Tensor head_norm_rows(const AttentionBlock& block, const TextCaptures& c, int layer, int first_head) {
  const at::Tensor& norms = c.value_norms;
  const at::Tensor held = norms.defined() ? norms[layer]
                                                .narrow(0, first_head, block.maps.size(1))
                                                .narrow(1, block.keys.first, block.keys.count)
                                                .to(at::kCPU, at::kFloat)
                                          : norms;
  return norm_based_attention(block.maps[0], held);
}

at::Tensor layer_norm_rows(const AttentionBlock& block, const TextCaptures& c, int layer) {
  const at::Tensor& gram = c.value_gram;
  const at::Tensor held = gram.defined() ? gram[layer].narrow(0, block.keys.first, block.keys.count).unsqueeze(0)
                                         : gram;  // [1, keys, H, H]
  return layer_norm_based_attention(block.maps, held)[0];
}

at::Tensor rollout_maps(const TextCaptures& c, int layers, bool of_norm) {
  if (of_norm) return attention_rollout(layer_norm_maps(c, 0, layers));
  return attention_rollout(c.attention.slice(0, 0, layers).to(at::kFloat).mean(1));
}

}  // namespace attnscope
