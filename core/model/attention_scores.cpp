#include "model/attention_scores.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <limits>

#include "base/error.h"
#include "model/relative_position_bias.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

// torch multiplies matrices in a loop of its own under 400 multiply-adds (rows x columns x the summed
// dimension), which sums in another order than MKL; a block's keys are narrowed only above this.
constexpr int64_t kFewestNarrowedProduct = 512;

// torch's softmax on the CPU sums a row's exponentials in vector lanes by position from the row's
// start (16 floats with AVX-512, 8 with AVX2), then the lanes together; a key left out adds an
// exact 0. So a softmax over keys from a multiple of this many to the next multiple (or the row's
// end) sums every lane in the same order as the whole row and gives its visible part the same bits.
constexpr int64_t kSoftmaxLanes = 64;

// The rows made for fewer rows asked than kFewestBlockRows: that many from the first one asked (or
// the text's last ones), so that their products sum as a block's do (reproducible_products.h). What
// the added rows see or leave out changes none of the rows asked.
RowSpan rows_made_for(RowSpan asked, int64_t n) {
  const int64_t first = std::max<int64_t>(0, std::min(asked.first, n - kFewestBlockRows));
  return {first, std::min(kFewestBlockRows, n)};
}

// `seen` widened to whole groups of kSoftmaxLanes keys, and to at least kSoftmaxLanes keys where
// the text has them (a few rows at its end in a sliding window see fewer): MKL multiplies by fewer
// than some two dozen columns with other kernels, which sum in another order (measured with AVX2,
// MKL_CBWR strict: products over 1 to 23 keys differed in the last bit from those keys' columns of
// a wider product, over 24 to 299 keys never did; on the AVX-512 machines of earlier sessions the
// tests holding narrow products to wide ones passed).
KeySpan lane_aligned(KeySpan seen, int64_t n) {
  const int64_t end = std::min(n, (seen.first + seen.size(n) + kSoftmaxLanes - 1) / kSoftmaxLanes * kSoftmaxLanes);
  const int64_t first = std::max<int64_t>(0, std::min(seen.first, end - kSoftmaxLanes)) / kSoftmaxLanes * kSoftmaxLanes;
  return {first, end - first};
}

}  // namespace

AttentionScores::AttentionScores(ModelConfig config, ComputeDevice device, at::Tensor relative_bias)
    : config_(std::move(config)), device_(device), relative_bias_(std::move(relative_bias)) {}

at::Tensor AttentionScores::scaled_query_rows(const at::Tensor& q_t, RowSpan rows) const {
  // Scaling q (a quarter of the scores' size at 128 tokens) instead of the scores saves a pass.
  return (q_t.narrow(2, rows.first, rows.size(q_t.size(2))) * config_.scores_scale()).transpose(1, 2);
}

at::Tensor AttentionScores::masked_scores(const at::Tensor& q_rows, const at::Tensor& k_t, const at::Tensor& mask,
                                          int64_t B, RowSpan rows) const {
  const int64_t n = k_t.size(2), H = k_t.size(0) / B, count = rows.size(q_rows.size(1));
  // q_rows holds every row, or the rows asked alone (where it holds `count` rows, narrowing it
  // would give it whole: only the first rows of every row can be `count` of them).
  const at::Tensor q = q_rows.size(1) == count ? q_rows : q_rows.narrow(1, rows.first, count);
  at::Tensor scores = at::bmm(q, k_t).view({B, H, count, n});
  if (const double cap = config_.attention_softcap; cap > 0) scores.div_(cap).tanh_().mul_(cap);  // Gemma 2
  if (mask.defined()) scores.add_(mask);
  return scores;
}

AttentionScores::RecomputeInputs AttentionScores::recompute_inputs(const at::Tensor& queries, const at::Tensor& keys,
                                                                   int64_t layer, int64_t first_head) const {
  if (!queries.defined() || !keys.defined())
    throw Error("the attention maps are recomputed from the queries and keys the forward kept");
  if (layer < 0 || layer >= config_.num_layers)
    throw Error("layer " + std::to_string(layer) + " is not in a model of " + std::to_string(config_.num_layers) +
                " layers");
  c10::InferenceMode guard;
  const auto as_rows_t = [&](const at::Tensor& t) {  // [H, n, d] -> [H, d, n] as the forward had it
    return t.to(device_.device, device_.dtype).transpose(1, 2).contiguous();
  };
  const int64_t H = queries.size(0), G = keys.size(0);
  if (G <= 0 || H % G != 0)
    throw Error(std::to_string(H) + " query heads cannot share " + std::to_string(G) + " key heads");
  return {scaled_query_rows(as_rows_t(queries)), as_rows_t(G == H ? keys : keys.repeat_interleave(H / G, 0)), layer,
          first_head};
}

at::Tensor AttentionScores::recompute(const RecomputeInputs& inputs, RowSpan rows) const {
  return recompute(inputs, rows, KeySpan{});
}

AttentionBlock AttentionScores::recompute_block(const RecomputeInputs& inputs, RowSpan rows) const {
  const int64_t n = inputs.keys_t.size(2), count = rows.size(n);
  c10::InferenceMode guard;
  if (count < kFewestBlockRows && count < n) {  // the added rows dropped; the keys they see stay, weighing 0
    const RowSpan made = rows_made_for(rows, n);
    AttentionBlock block = recompute_block(inputs, made);
    block.maps = block.maps.narrow(2, rows.first - made.first, count);
    block.rows = {rows.first, count};
    return block;
  }
  return attention_block(inputs.query_rows, inputs.keys_t, {},
                         config_.is_local_layer(static_cast<size_t>(inputs.layer)), 1, {rows.first, count},
                         inputs.first_head);
}

at::Tensor AttentionScores::recompute(const RecomputeInputs& inputs, RowSpan rows, KeySpan keys) const {
  const int64_t n = inputs.keys_t.size(2);
  if (keys.size(n) == n) return recompute_block(inputs, rows).whole().squeeze(0);
  c10::InferenceMode guard;
  if (const int64_t count = rows.size(n); count < kFewestBlockRows && count < n) {
    const RowSpan made = rows_made_for(rows, n);
    return recompute(inputs, made, keys).narrow(1, rows.first - made.first, count);
  }
  const at::Tensor mask =
      heads_of(layer_mask(n, {}, rows, keys, config_.is_local_layer(static_cast<size_t>(inputs.layer))),
               inputs.query_rows.size(0), inputs.first_head);
  const at::Tensor scores =
      masked_scores(inputs.query_rows, inputs.keys_t.narrow(2, keys.first, keys.size(n)), mask, 1, rows);
  return at::_softmax(scores, -1, false).squeeze(0);
}

AttentionBlock AttentionScores::attention_block(const at::Tensor& q_rows, const at::Tensor& k_t,
                                                const at::Tensor& padding, bool local_layer, int64_t B, RowSpan rows,
                                                int64_t first_head, const at::Tensor& made_mask) const {
  const int64_t n = k_t.size(2), H = k_t.size(0) / B, count = rows.size(q_rows.size(1));
  KeySpan seen = visible_keys(n, rows, local_layer);
  if (count * seen.size(n) * k_t.size(1) < kFewestNarrowedProduct) seen = {};
  // On the CPU the scores and the softmax run over the lane-aligned keys around those seen, the
  // others masked out to an exact 0 (kSoftmaxLanes, lane_aligned); elsewhere the softmax runs over
  // every key, as the whole path's does. With padding the scores are the lane-aligned keys' and the
  // softmax runs over every key: a padded row of a local layer may see no key at all, and the whole
  // path spreads it over every key.
  if (device_.device.is_cpu()) seen = lane_aligned(seen, n);
  const bool aligned = device_.device.is_cpu() && !padding.defined();
  const int64_t width = seen.size(n);
  const at::Tensor mask =
      heads_of(made_mask.defined() ? made_mask.narrow(2, rows.first, count).narrow(3, seen.first, width)
                                   : layer_mask(n, padding, rows, seen, local_layer),
               H, first_head);
  if (width == n)
    return {at::_softmax(masked_scores(q_rows, k_t, mask, B, rows), -1, false), {rows.first, count}, {0, n}, n};
  const at::Tensor seen_scores = masked_scores(q_rows, k_t.narrow(2, seen.first, width), mask, B, rows);
  if (aligned) return {at::_softmax(seen_scores, -1, false), {rows.first, count}, seen, n};
  at::Tensor scores = at::full({B, H, count, n}, lowest_value(), k_t.options());
  scores.narrow(3, seen.first, width).copy_(seen_scores);
  return {at::_softmax(scores, -1, false), {rows.first, count}, {0, n}, n};
}

// MPNet's bias of the heads asked, when they are fewer than the mask's.
at::Tensor AttentionScores::heads_of(const at::Tensor& mask, int64_t heads, int64_t first_head) {
  return mask.defined() && mask.size(1) > heads ? mask.narrow(1, first_head, heads) : mask;
}

KeySpan AttentionScores::visible_keys(int64_t layer, int64_t n, RowSpan rows) const {
  return visible_keys(n, rows, config_.is_local_layer(static_cast<size_t>(layer)));
}

KeySpan AttentionScores::visible_keys(int64_t n, RowSpan rows, bool local_layer) const {
  const int64_t first = rows.first, last = rows.first + rows.size(n) - 1;
  int64_t from = 0, to = n;  // keys [from, to)
  if (config_.causal()) to = last + 1;
  if (local_layer) {
    const int64_t w = config_.rotary.local_window;
    from = std::max<int64_t>(0, first - w);
    to = std::min(to, last + w + 1);
  }
  return {from, to - from};
}

// Local (sliding-window) layers: a key farther than local_window positions from the query is masked
// out, on top of the mask given (padding, or a decoder's causal mask) when there is one.
// [B or 1, 1, rows, keys] for the query rows and keys asked. Made on the model's device: built on the CPU and
// copied, the two masks of a Gemma 3 forward at 2,048 tokens cost more than its attention on a GPU.
at::Tensor AttentionScores::band_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const {
  const auto [query_at, key_at] = row_and_key_positions(n, rows, keys);
  const at::Tensor outside = (key_at - query_at).abs() > config_.rotary.local_window;
  at::Tensor band = at::zeros(outside.sizes(), at::TensorOptions().dtype(device_.dtype).device(device_.device))
                        .masked_fill_(outside, lowest_value())
                        .view({1, 1, outside.size(0), outside.size(1)});
  return padding.defined() ? at::minimum(band, padding) : band;
}

// A decoder's: a key after the query is masked out, on top of the padding mask when there is one.
// [B or 1, 1, rows, keys], made on the model's device.
at::Tensor AttentionScores::causal_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const {
  const auto [query_at, key_at] = row_and_key_positions(n, rows, keys);
  const at::Tensor after = key_at > query_at;
  at::Tensor causal = at::zeros(after.sizes(), at::TensorOptions().dtype(device_.dtype).device(device_.device))
                          .masked_fill_(after, lowest_value())
                          .view({1, 1, after.size(0), after.size(1)});
  return padding.defined() ? at::minimum(causal, padding) : causal;
}

// [rows, 1] and [1, keys]: the positions of the query rows and keys asked, on the device.
std::pair<at::Tensor, at::Tensor> AttentionScores::row_and_key_positions(int64_t n, RowSpan rows, KeySpan keys) const {
  const auto options = at::TensorOptions().dtype(at::kLong).device(device_.device);
  return {at::arange(rows.first, rows.first + rows.size(n), options).unsqueeze(1),
          at::arange(keys.first, keys.first + keys.size(n), options).unsqueeze(0)};
}

// Each mask is a function of its (query, key) position alone, so the rows of a block are the
// same values as those rows of the whole mask.
AttentionScores::Masks AttentionScores::masks(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const {
  Masks m;
  m.global = global_mask(n, padding, rows, keys);
  if (config_.has_local_layers()) m.local = band_mask(n, m.global, rows, keys);
  return m;
}

at::Tensor AttentionScores::layer_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys,
                                       bool local_layer) const {
  const at::Tensor global = global_mask(n, padding, rows, keys);
  return local_layer && config_.has_local_layers() ? band_mask(n, global, rows, keys) : global;
}

at::Tensor AttentionScores::global_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const {
  const int64_t width = keys.size(n);
  const at::Tensor padded = padding.defined() && width != n ? padding.narrow(-1, keys.first, width) : padding;
  at::Tensor global = config_.causal() ? causal_mask(n, padded, rows, keys) : padded;
  if (relative_bias_.defined()) {  // MPNet: every layer's scores get the same bias, [1, H, rows, keys]
    const at::Tensor buckets = relative_position_buckets(n, config_.relative_buckets, config_.relative_max_distance)
                                   .narrow(0, rows.first, rows.size(n))
                                   .narrow(1, keys.first, width)
                                   .to(device_.device);
    const at::Tensor bias = at::embedding(relative_bias_, buckets).permute({2, 0, 1}).unsqueeze(0);
    global = global.defined() ? bias + global : bias.contiguous();
  }
  return global;
}

double AttentionScores::lowest_value() const {
  return device_.dtype == at::kFloat  ? std::numeric_limits<float>::lowest()
         : device_.dtype == at::kHalf ? -65504.0
                                      : -3.38953139e38;
}

}  // namespace attnscope
