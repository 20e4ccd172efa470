// The one transformer forward (transformer.h). SECTIONS, in order:
//   1. loading: config.json and model.safetensors, or a GGUF file, into a Transformer
//   2. products in slices with a check between them (in_slices, linear), RoBERTa's positions, rotary helpers
//   3. a layer: embed, normalize, the projections (fused or apart), attend (the captures are taken
//      here), finish and feed_forward
//   4. the padding mask (the others: attention_scores.h); the checked batch and the captures'
//      buffers
//   5. forward, and what a decoder's forward continued from a run before takes from it
//      (ForwardPrefix: continued_rows, check_earlier_maps, takes_earlier_projections,
//      finish_rows_after; the later rows alone projected in project_rows_after and their maps made
//      in attend_rows_after, section 3)
#include "model/transformer.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <functional>
#include <limits>

#include "base/error.h"
#include "model/context_in_blocks.h"
#include "model/gguf_model.h"
#include "model/model_locator.h"
#include "model/relative_position_bias.h"
#include "model/reproducible_products.h"
#include "model/rotary_positions.h"
#include "model/value_gram.h"

namespace attnscope {

Transformer::Transformer(ModelConfig config, TransformerWeights weights, ComputeDevice device)
    : config_(config),
      weights_(std::move(weights)),
      device_(device),
      scores_(config_, device_, weights_.relative_bias) {
  ask_for_reproducible_products();  // before the first forward's first product
}

std::shared_ptr<const Transformer> Transformer::load(const std::filesystem::path& dir, const ComputeDevice& device) {
  if (is_gguf_file(dir)) return load_gguf(GgufFile(dir), device);
  const ModelConfig config = ModelConfig::load(dir / "config.json");
  const auto weights_file = dir / "model.safetensors";
  if (!std::filesystem::exists(weights_file))
    throw Error(weights_file.string() + ": missing (attnscope reads the weights from model.safetensors)");
  const SafetensorsFile file(weights_file);
  c10::InferenceMode guard;
  return std::make_shared<const Transformer>(config, load_weights(SafetensorsSource(file), config, device), device);
}

std::shared_ptr<const Transformer> Transformer::load_gguf(const GgufFile& file, const ComputeDevice& device) {
  const ModelConfig config = gguf_model_config(file);
  c10::InferenceMode guard;
  return std::make_shared<const Transformer>(config, load_weights(GgufSource(file, config), config, device), device);
}

namespace {

// Keys or values as attend reads them, [B * H, d, n] with each group's repeated for its H / G query
// heads (project_stacked), once per group: [B, G, n, d], a view.
at::Tensor once_per_group(const at::Tensor& t, int64_t B, int64_t G) {
  const int64_t H = t.size(0) / B, d = t.size(1), n = t.size(2);
  return t.view({B, G, H / G, d, n}).select(2, 0).transpose(2, 3);
}

// RoBERTa's position ids, as transformers derives them from the ids: each token that is not the
// padding id takes padding_idx + its count so far; a padding id (typed in the text) takes padding_idx.
at::Tensor offset_positions(const std::vector<std::vector<int64_t>>& ids, int64_t n, int64_t pad) {
  at::Tensor positions = at::full({static_cast<int64_t>(ids.size()), n}, pad, at::kLong);
  for (size_t b = 0; b < ids.size(); ++b) {
    int64_t* row = positions[static_cast<int64_t>(b)].data_ptr<int64_t>();
    int64_t count = 0;
    for (size_t i = 0; i < ids[b].size(); ++i) row[i] = ids[b][i] == pad ? pad : pad + ++count;
  }
  return positions;
}

// The work of a slice between two checks of KeepGoing: about 2 ms on two CPU cores, so a stale
// run stops soon. Products are cut along their outputs (rows of the weight), which costs nothing
// measurable; cut along the tokens, every slice re-packed the weights (20% slower in slices of 64
// tokens).
constexpr double kSliceFlops = 2.5e8;
constexpr int64_t kSliceMultiple = 64;  // slices of whole vector registers' widths

// Runs product(first, count) over [0, total) in slices of about kSliceFlops, checking between
// them; without keep_going (corpus runs, the command line), in one piece.
void in_slices(int64_t total, double flops_each, const KeepGoing& keep_going,
               const std::function<void(int64_t, int64_t)>& product) {
  int64_t step = total;
  if (keep_going) {
    const auto slices = static_cast<int64_t>(std::ceil(static_cast<double>(total) * flops_each / kSliceFlops));
    step = std::max<int64_t>(1, (total + slices - 1) / slices);
    step = (step + kSliceMultiple - 1) / kSliceMultiple * kSliceMultiple;
  }
  for (int64_t first = 0; first < total; first += step) {
    if (first > 0) stop_if_stale(keep_going);
    product(first, std::min(step, total - first));
  }
}

// x [.., K] times weight^T [K, N] plus bias (when defined), as at::linear; with keep_going, in
// slices of the N outputs with a check between them.
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, const KeepGoing& keep_going) {
  if (!keep_going) return at::linear(x, weight, bias);
  const int64_t K = weight.size(1), N = weight.size(0);
  const at::Tensor rows = x.reshape({-1, K});
  at::Tensor out = at::empty({rows.size(0), N}, x.options());
  in_slices(N, 2.0 * static_cast<double>(rows.size(0) * K), keep_going, [&](int64_t first, int64_t count) {
    at::Tensor part = out.narrow(1, first, count);
    const at::Tensor weight_t = weight.narrow(0, first, count).t();
    if (bias.defined())
      at::addmm_out(part, bias.narrow(0, first, count), rows, weight_t);
    else
      at::mm_out(part, rows, weight_t);
  });
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = N;
  return out.view(shape);
}

}  // namespace

at::Tensor Transformer::embed(const at::Tensor& ids, const at::Tensor& positions) const {
  const int64_t n = ids.size(1);
  at::Tensor x = weights_.word_embeddings.lookup(ids);
  if (positions.defined())
    x = x + at::embedding(weights_.position_embeddings, positions);
  else if (weights_.position_embeddings.defined())
    x = x + weights_.position_embeddings.narrow(0, 0, n);
  if (weights_.token_type_embeddings.defined())
    x = x + weights_.token_type_embeddings[0];  // DistilBERT and ModernBERT have none
  if (config_.architecture->scaled_embeddings)  // Gemma: sqrt(D), rounded to the compute dtype first
    x = x * at::scalar_tensor(std::sqrt(static_cast<double>(config_.hidden_size)), x.options());
  if (weights_.embed_norm_weight.defined())  // the decoders have no embedding norm
    x = normalize(x, weights_.embed_norm_weight, weights_.embed_norm_bias);
  if (weights_.embed_project_weight.defined())
    x = at::linear(x, weights_.embed_project_weight, weights_.embed_project_bias);
  return x;
}

// Rotary tables for n positions and a base, over the rotated part of each head, in the compute
// device and dtype.
RotaryTables Transformer::rotary_tables(int64_t n, double theta) const {
  return attnscope::rotary_tables(n, config_.rotary_dims(), theta, config_.rotary.scaling,
                                  at::TensorOptions().device(device_.device).dtype(device_.dtype));
}

at::Tensor Transformer::activate(at::Tensor x) const {
  switch (config_.activation) {
    case Activation::GeluErf: return at::gelu_(x);
    case Activation::GeluTanh: return at::gelu_(x, "tanh");
    case Activation::Relu: return at::relu_(x);
    case Activation::Silu: return at::silu_(x);
  }
  return x;
}

// Over the last dimension, as the family's reference does it: LayerNorm; Llama's RMSNorm (in
// float32, back to the compute dtype, then the weight); Gemma's (all in float32, times 1 + w).
at::Tensor Transformer::normalize(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) const {
  const double eps = config_.layer_norm_eps;
  const auto inverse_rms = [&](const at::Tensor& f) { return at::rsqrt(f.pow(2).mean(-1, true).add_(eps)); };
  switch (config_.architecture->norm_kind) {
    case NormKind::Layer: return at::layer_norm(x, {x.size(-1)}, weight, bias, eps);
    case NormKind::Rms: {
      const at::Tensor f = x.to(at::kFloat);
      return (f * inverse_rms(f)).to(x.scalar_type()) * weight;
    }
    case NormKind::RmsPlusOne: {
      const at::Tensor f = x.to(at::kFloat);
      return (f * inverse_rms(f) * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
    }
  }
  return x;
}

// An encoder's projection, fused and computed transposed, [B, 3D, n], is per head [3, d, n]: q^T,
// k^T and v^T are plain matrices of one batch of B * H, read in place by the products (no copies of
// q, k, v). In slices of output rows (whole rows of q^T, k^T and v^T), checking between them.
Transformer::Projected Transformer::project_fused(const LayerWeights& w, const at::Tensor& input,
                                                  const KeepGoing& keep_going) const {
  const int64_t B = input.size(0), n = input.size(1), H = config_.num_heads, d = config_.head_dim();
  const int64_t D = config_.hidden_size;
  const at::Tensor qkv_t = at::empty({B, 3 * D, n}, input.options());
  const at::Tensor input_t = input.transpose(1, 2);
  in_slices(3 * D, 2.0 * static_cast<double>(B * n * D), keep_going, [&](int64_t first, int64_t count) {
    at::Tensor part = qkv_t.narrow(1, first, count);
    at::baddbmm_out(part, w.qkv_bias.narrow(0, first, count).view({1, count, 1}),
                    w.qkv_weight.narrow(0, first, count).expand({B, count, D}), input_t);
  });
  const at::Tensor heads = qkv_t.view({B * H, 3, d, n});
  return {heads.select(1, 0), heads.select(1, 1), heads.select(1, 2)};
}

// A decoder's stacked projections, each head's queries and keys normalised where the family does
// and then rotated, laid out as [B * H, d, n] like the fused ones; keys and values of grouped heads
// repeated for each query head of their group after that (C = A V reads the group's shared V), so
// a group's keys are rotated once (the same values: the rotation works element by element) and
// their temporaries are a group's size (Gemma 3's keys a quarter of its queries').
Transformer::Projected Transformer::project_stacked(const LayerWeights& w, const at::Tensor& input,
                                                    const RotaryTables* rotary, const KeepGoing& keep_going) const {
  const int64_t B = input.size(0), n = input.size(1), H = config_.num_heads, d = config_.head_dim();
  const int64_t G = config_.kv_heads();
  // One product for the three, its activations packed once (Gemma 3's shape at 128 tokens, torch
  // alone, best of 300: 1.41 ms against 1.46 for three apart; medians 1.55 and 1.69); each part a
  // view of its columns.
  const at::Tensor all = linear(input, w.stacked_qkv_weight, w.stacked_qkv_bias, keep_going);
  const auto heads_t = [&](int64_t first_head, int64_t count, const at::Tensor& norm, const RotaryTables* turned) {
    at::Tensor t = all.narrow(-1, first_head * d, count * d).view({B, n, count, d});
    if (norm.defined()) t = normalize(t, norm, {});
    t = t.permute({0, 2, 3, 1}).reshape({B * count, d, n});  // [B * count, d, n]
    if (turned) t = rotate(t, *turned);
    if (count == H) return t;
    return t.view({B, count, 1, d, n}).expand({B, count, H / count, d, n}).reshape({B * H, d, n});
  };
  return {heads_t(0, H, w.q_norm_weight, rotary), heads_t(H, G, w.k_norm_weight, rotary),
          heads_t(H + G, G, {}, nullptr)};
}

Transformer::Projected Transformer::project(const LayerWeights& w, const at::Tensor& x, const RotaryTables* rotary,
                                            const KeepGoing& keep_going) const {
  // A pre-norm layer normalises before attending (where it has that norm: ModernBERT's first does not).
  const at::Tensor input = config_.architecture->norm == NormPlacement::Pre && w.attn_norm_weight.defined()
                               ? normalize(x, w.attn_norm_weight, w.attn_norm_bias)
                               : x;
  if (w.stacked_qkv_weight.defined()) return project_stacked(w, input, rotary, keep_going);
  Projected qkv = project_fused(w, input, keep_going);
  if (rotary) {
    qkv.q_t = rotate(qkv.q_t, *rotary);
    qkv.k_t = rotate(qkv.k_t, *rotary);
  }
  return qkv;
}

Transformer::Projected Transformer::project_rows_after(const LayerWeights& w, const at::Tensor& x,
                                                       const RotaryTables* rotary, const LayerMask& mask,
                                                       const KeepGoing& keep_going) const {
  const int64_t B = x.size(0), n = x.size(1), H = config_.num_heads, G = config_.kv_heads(), d = config_.head_dim();
  const int64_t first = mask.earlier_rows, rest = n - first;
  // Each row's projections read that row alone, and a block of rows of a product sums as the
  // whole product's rows do (reproducible_products.h): the later rows' are those of every row.
  RotaryTables later_positions;
  if (rotary) later_positions = {rotary->cos.narrow(1, first, rest), rotary->sin.narrow(1, first, rest)};
  const Projected later = project(w, x.narrow(1, first, rest), rotary ? &later_positions : nullptr, keep_going);
  const auto every_row = [&](const at::Tensor& earlier, const at::Tensor& later_t) {  // [G, k, d], [B * H, d, rest]
    at::Tensor t = at::empty({B * H, d, n}, later_t.options());
    t.narrow(2, first, rest).copy_(later_t);
    // Each group's earlier rows for every query head of the group, as project_stacked repeats them.
    t.view({B, G, H / G, d, n}).narrow(4, 0, first).copy_(earlier.narrow(1, 0, first).transpose(1, 2).unsqueeze(1));
    return t;
  };
  return {later.q_t, every_row(mask.earlier_keys, later.k_t), every_row(mask.earlier_values, later.v_t)};
}

namespace {

// The queries of rows [from, n) [B * H, d, n - from] of a continued forward that projected the
// later rows' alone ([B * H, d, later]), the earlier rows' from the run before ([H, k, d]; B = 1).
at::Tensor query_rows_from(const at::Tensor& later_q_t, const at::Tensor& earlier, int64_t n, int64_t from) {
  if (!earlier.defined()) throw Error("a continued forward's earlier queries are missing");
  const int64_t later = later_q_t.size(2), first = n - later;
  at::Tensor t = at::empty({later_q_t.size(0), later_q_t.size(1), n - from}, later_q_t.options());
  t.narrow(2, first - from, later).copy_(later_q_t);
  t.narrow(2, 0, first - from).copy_(earlier.narrow(1, from, first - from).transpose(1, 2));
  return t;
}

}  // namespace

void Transformer::keep_keys_and_values(const Projected& qkv, int64_t l, BatchCaptures& keep) const {
  const int64_t B = keep.all_layer_values.size(1), G = config_.kv_heads();
  if (keep.all_layer_keys.defined()) keep.all_layer_keys[l].copy_(once_per_group(qkv.k_t, B, G));
  keep.all_layer_values[l].copy_(once_per_group(qkv.v_t, B, G));
}

at::Tensor Transformer::attend(const LayerWeights& w, const at::Tensor& x, const LayerMask& mask, BatchCaptures* keep,
                               const RotaryTables* rotary, const at::Tensor& relative,
                               const KeepGoing& keep_going) const {
  const int64_t B = x.size(0), n = x.size(1), H = config_.num_heads, d = config_.head_dim();
  const Projected qkv = mask.earlier_keys.defined() ? project_rows_after(w, x, rotary, mask, keep_going)
                                                    : project(w, x, rotary, keep_going);
  if (keep && keep->all_layer_values.defined())
    keep_keys_and_values(qkv, static_cast<int64_t>(keep->head_outputs.size()), *keep);
  if (mask.in_blocks) return attend_in_blocks(qkv, mask, keep, B, keep_going);
  if (keep && mask.earlier_rows > 0) return attend_rows_after(qkv, mask, *keep, B);
  if (keep || config_.attention_softcap > 0 || relative.defined())
    return attend_explicitly(w, qkv, mask, relative, keep, B);
  const auto as_heads = [&](const at::Tensor& t) { return t.transpose(1, 2).view({B, H, n, d}); };
  return at::scaled_dot_product_attention(as_heads(qkv.q_t), as_heads(qkv.k_t), as_heads(qkv.v_t),
                                          mask.whole.defined() ? std::optional<at::Tensor>(mask.whole) : std::nullopt,
                                          0.0, false, config_.scores_scale());
}

// Block by block of query rows, exactly what attend_explicitly does for those rows (the masks are
// functions of position, softmax works row by row, and the products sum each output in one order
// whatever their shape), so the head outputs and every later layer are those of the whole path to
// the bit; of each block of maps only its column sums stay (none without `keep`). A block holds the
// keys its rows may see (AttentionBlock), and what reads it reads those alone.
at::Tensor Transformer::attend_in_blocks(const Projected& qkv, const LayerMask& mask, BatchCaptures* keep, int64_t B,
                                         const KeepGoing& keep_going) const {
  const auto& [later_q_t, k_t, v_t] = qkv;
  const int64_t n = k_t.size(2), H = config_.num_heads, d = config_.head_dim(), from = mask.blocks_from;
  const int64_t l = keep ? static_cast<int64_t>(keep->head_outputs.size()) : 0;
  // A continued forward's earlier queries are the run before's (B = 1: only one text continues),
  // laid out with the later rows' from the first block made on (q_t holds rows [q_from, n));
  // keep_queries_and_keys takes those before from the run before, each copied once.
  const at::Tensor q_t =
      later_q_t.size(2) == n ? later_q_t : query_rows_from(later_q_t, mask.earlier_lenses.queries, n, from);
  const int64_t q_from = n - q_t.size(2);
  // A layer whose rows see some keys alone makes its head outputs in blocks that read the values
  // laid out once (context_in_blocks.h), and its blocks of rows start where those blocks do, none
  // made twice (a test's few rows aside).
  const ContextReach reach = reach_of(mask.local);
  const at::Tensor values = context_values(v_t.transpose(1, 2), reach);
  const int64_t step = block_step(B, n, mask.block_rows, reach);
  at::Tensor context = keep ? keep->all_head_outputs[l] : at::empty({B, H, n, d}, q_t.options());
  const at::Tensor context_rows = context.view({B * H, n, d});
  at::Tensor columns = keep ? keep->all_column_sums[l] : at::Tensor();  // [B, H, n]
  if (keep) columns.zero_();
  if (from > 0) {  // summed on from the run before's sums, in the order of a forward from scratch
    columns.narrow(2, 0, from).copy_(mask.earlier_column_sums.narrow(2, 0, from));
    context.narrow(2, 0, from).copy_(mask.earlier_outputs.narrow(2, 0, from));
  }
  const at::Tensor real = keep ? real_query_rows(keep->lengths, n, device_.device) : at::Tensor();  // [B, 1, n, 1]
  for (const auto& [first, count] : row_blocks(n, step)) {
    if (first < from) continue;
    if (first > 0) stop_if_stale(keep_going);
    const RowSpan rows{first, count};
    // Each block's queries scaled apart: the whole of them would be as large as the layer's queries.
    AttentionBlock block = scores_.attention_block(scores_.scaled_query_rows(q_t, {rows.first - q_from, rows.count}),
                                                   k_t, mask.padding, mask.local, B, rows);
    at::Tensor out = context_rows.narrow(1, rows.first, rows.count);
    if (reach.every_key())
      out.copy_(at::bmm(block.whole().view({B * H, rows.count, n}), values));
    else
      context_in_blocks_into(out, block, values, reach);
    if (!keep) continue;
    block.resumable = keep_column_sums_before(columns, rows, step, l, *keep);
    const at::Tensor summed = real.defined() ? block.maps * real.narrow(2, rows.first, rows.count) : block.maps;
    columns.narrow(2, block.keys.first, block.keys.count).add_(summed.sum(2, false, at::kFloat));
    if (mask.sink && *mask.sink) (*mask.sink)(l, block);
  }
  if (!keep) return context;
  keep->head_outputs.push_back(context);
  if (keep->all_value_norms.defined()) keep_value_vectors(v_t, l, *keep);
  keep_queries_and_keys({q_t, k_t, v_t}, l, *keep, mask.earlier_lenses.queries);
  return context;
}

at::Tensor Transformer::attend_rows_after(const Projected& qkv, const LayerMask& mask, BatchCaptures& keep,
                                          int64_t B) const {
  const auto& [q_t, k_t, v_t] = qkv;  // q_t: every row's, or the later rows' alone (project_rows_after)
  const int64_t n = k_t.size(2), H = config_.num_heads, d = config_.head_dim();
  const int64_t before = mask.earlier_rows, l = static_cast<int64_t>(keep.attention.size());
  const RowSpan rows{before, n - before};
  at::Tensor attention = keep.all_attention[l], context = keep.all_head_outputs[l];  // [1, H, n, n], [1, H, n, d]
  if (scores_visible_keys(mask, {})) {
    maps_in_blocks_into(qkv, mask, attention, context, before, B);
  } else {
    at::Tensor later = attention.narrow(2, rows.first, rows.count);
    later.copy_(at::_softmax(
        scores_.masked_scores(scores_.scaled_query_rows(q_t), k_t,
                              mask.whole.defined() ? mask.whole.narrow(2, rows.first, rows.count) : mask.whole, B,
                              rows),
        -1, false));
    context_in_blocks_into(context.view({B * H, n, d}).narrow(1, rows.first, rows.count), {later, rows, {0, n}, n},
                           v_t.transpose(1, 2), reach_of(mask.local));
  }
  at::Tensor earlier = attention.narrow(2, 0, before);
  earlier.narrow(3, before, n - before).zero_();  // keys after a causal row's token
  earlier.narrow(3, 0, before).copy_(mask.earlier_attention.narrow(2, 0, before).narrow(3, 0, before));
  context.narrow(2, 0, before).copy_(mask.earlier_outputs.narrow(2, 0, before));
  keep_layer(attention, context, qkv, l, keep, mask.earlier_lenses);
  return context;
}

// The queries of every head; the keys of every key/value head once (projected, they were repeated
// for each query head of the group): a decoder with grouped queries keeps a fraction of them.
void Transformer::keep_queries_and_keys(const Projected& qkv, int64_t l, BatchCaptures& keep,
                                        const at::Tensor& earlier_queries) const {
  const int64_t B = keep.all_keys.size(1), H = config_.num_heads, G = config_.kv_heads(), d = config_.head_dim();
  const int64_t n = keep.all_queries.size(3), later = qkv.q_t.size(2), first = n - later;
  const at::Tensor queries = keep.all_queries[l];  // [B, H, n, d]
  queries.narrow(2, first, later).copy_(qkv.q_t.view({B, H, d, later}).transpose(2, 3));
  if (first > 0) {  // B = 1: only one text continues
    if (!earlier_queries.defined()) throw Error("a continued forward's earlier queries are missing");
    queries.narrow(2, 0, first).copy_(earlier_queries.narrow(1, 0, first).unsqueeze(0));
  }
  keep.all_keys[l].copy_(once_per_group(qkv.k_t, B, G));
}

at::Tensor Transformer::attend_explicitly(const LayerWeights& w, const Projected& qkv, const LayerMask& layer_mask,
                                          const at::Tensor& relative, BatchCaptures* keep, int64_t B) const {
  const auto& [q_t, k_t, v_t] = qkv;
  const at::Tensor& mask = layer_mask.whole;
  const int64_t n = q_t.size(2), H = config_.num_heads, d = config_.head_dim();
  if (keep && scores_visible_keys(layer_mask, relative)) {
    const int64_t l = static_cast<int64_t>(keep->attention.size());
    maps_in_blocks_into(qkv, layer_mask, keep->all_attention[l], keep->all_head_outputs[l], 0, B);
    keep_layer(keep->all_attention[l], keep->all_head_outputs[l], qkv, l, *keep);
    return keep->all_head_outputs[l];
  }
  at::Tensor scores =
      scores_.masked_scores(scores_.scaled_query_rows(q_t), k_t, relative.defined() ? at::Tensor() : mask, B);
  if (relative.defined()) {  // DeBERTa: its relative terms before the mask, in the order transformers adds them
    scores.add_(disentangled_scores(w, qkv, relative, B));
    if (mask.defined()) scores.add_(mask);
  }
  if (!keep) return at::matmul(at::_softmax(scores, -1, false), v_t.transpose(1, 2).reshape({B, H, n, d}));
  // Written straight into this layer's slice of the captures (softmax in place of the scores
  // measured slower; writing out saves a copy per text later).
  const int64_t l = static_cast<int64_t>(keep->attention.size());
  at::Tensor attention = keep->all_attention[l];
  at::_softmax_out(attention, scores, -1, false);
  at::Tensor context = keep->all_head_outputs[l];
  at::Tensor context_rows = context.view({B * H, n, d});
  // A decoder's or a local layer's in blocks (context_in_blocks.h), as attend_in_blocks makes them.
  if (const ContextReach reach = reach_of(layer_mask.local); !reach.every_key())
    context_in_blocks_into(context_rows, {attention, {0, n}, {0, n}, n}, v_t.transpose(1, 2), reach);
  else
    at::bmm_out(context_rows, attention.view({B * H, n, n}), v_t.transpose(1, 2));
  keep_layer(attention, context, qkv, l, *keep);
  return context;
}

bool Transformer::scores_visible_keys(const LayerMask& mask, const at::Tensor& relative) const {
  return device_.device.is_cpu() && !relative.defined() && !reach_of(mask.local).every_key();
}

void Transformer::maps_in_blocks_into(const Projected& qkv, const LayerMask& mask, const at::Tensor& attention,
                                      const at::Tensor& context, int64_t from, int64_t B) const {
  const auto& [q_t, k_t, v_t] = qkv;
  const int64_t n = k_t.size(2), H = config_.num_heads, d = config_.head_dim(), q_from = n - q_t.size(2);
  const ContextReach reach = reach_of(mask.local);
  const at::Tensor values = context_values(v_t.transpose(1, 2), reach);
  const at::Tensor q_rows = scores_.scaled_query_rows(q_t);
  const at::Tensor context_rows = context.view({B * H, n, d});
  // The head outputs' blocks of kContextBlockRows rows at fixed positions (context_in_blocks.h), none
  // shorter than kFewestBlockRows: a block cut elsewhere straddles two and has both made padded.
  for (const auto& [first, count] : row_blocks(n, kContextBlockRows, from)) {
    const RowSpan rows{first, count};
    const AttentionBlock block = scores_.attention_block(q_rows.narrow(1, rows.first - q_from, count), k_t,
                                                         mask.padding, mask.local, B, rows, 0, mask.whole);
    const at::Tensor maps = attention.narrow(2, rows.first, count);
    const int64_t seen_end = block.keys.first + block.keys.count;
    maps.narrow(3, 0, block.keys.first).zero_();
    maps.narrow(3, block.keys.first, block.keys.count).copy_(block.maps);
    maps.narrow(3, seen_end, n - seen_end).zero_();
    context_in_blocks_into(context_rows.narrow(1, rows.first, count), block, values, reach);
  }
}

ContextReach Transformer::reach_of(bool local_layer) const {
  return {.causal = config_.causal(), .window = local_layer ? config_.rotary.local_window : -1};
}

void Transformer::keep_layer(const at::Tensor& attention, const at::Tensor& context, const Projected& qkv, int64_t l,
                             BatchCaptures& keep, const EarlierLensCaptures& earlier) const {
  keep.attention.push_back(attention);
  keep.head_outputs.push_back(context);
  if (keep.all_value_norms.defined()) {
    // Every row's values (the earlier ones taken or projected); the later rows' queries alone where taken.
    keep_value_vectors(qkv.v_t, l, keep, earlier, qkv.k_t.size(2) - qkv.q_t.size(2));
    keep_queries_and_keys(qkv, l, keep, earlier.queries);
  }
}

at::Tensor Transformer::recompute_attention(const at::Tensor& queries, const at::Tensor& keys, int64_t layer,
                                            RowSpan rows) const {
  return recompute_attention(recompute_inputs(queries, keys, layer), rows);
}

Transformer::RecomputeInputs Transformer::recompute_inputs(const at::Tensor& queries, const at::Tensor& keys,
                                                           int64_t layer, int64_t first_head) const {
  if (weights_.relative_embeddings.defined())
    throw Error("DeBERTa's attention maps cannot be recomputed from queries and keys alone");
  return scores_.recompute_inputs(queries, keys, layer, first_head);
}

at::Tensor Transformer::recompute_attention(const RecomputeInputs& inputs, RowSpan rows) const {
  return scores_.recompute(inputs, rows);
}

// Query i and key j of one head meet at row r = relative[i][j] of the relative embeddings: the
// content-to-position term q_i . K_rel[r], the position-to-content term k_j . Q_rel[r] (K_rel,
// Q_rel: the embeddings through this layer's key and query projections), both scaled as q . k.
at::Tensor Transformer::disentangled_scores(const LayerWeights& w, const Projected& qkv, const at::Tensor& relative,
                                            int64_t B) const {
  const int64_t H = config_.num_heads, d = config_.head_dim(), n = qkv.q_t.size(2);
  const auto rows = [&](const at::Tensor& t) { return t.transpose(1, 2).reshape({B, H, n, d}); };
  at::Tensor terms = at::zeros({B, H, n, n}, qkv.q_t.options());
  const at::Tensor index = relative.expand({B, H, n, n});
  if (config_.disentangled.content_to_position)
    terms.add_(at::matmul(rows(qkv.q_t), w.relative_key_t).gather(-1, index));
  if (config_.disentangled.position_to_content)  // gathered by key, then turned to [query, key]
    terms.add_(at::matmul(rows(qkv.k_t), w.relative_query_t).gather(-1, index.transpose(-1, -2)).transpose(-1, -2));
  return terms.mul_(config_.scores_scale());
}

at::Tensor Transformer::relative_index(int64_t n) const {
  const int64_t span = config_.disentangled.span;
  return at::clamp(log_bucket_positions(n, config_.disentangled.buckets, config_.disentangled.max_position) + span, 0,
                   2 * span - 1)
      .to(device_.device);
}

const std::vector<at::Tensor>& Transformer::output_products() const {
  std::call_once(output_products_made_, [this] {
    for (const LayerWeights& w : weights_.layers) {
      const at::Tensor w_o = w.attn_out_weight.to(at::kFloat);
      output_products_.push_back(at::mm(w_o.t(), w_o).to(device_.dtype));
    }
  });
  return output_products_;
}

void Transformer::keep_value_vectors(const at::Tensor& v_t, int64_t l, BatchCaptures& keep,
                                     const EarlierLensCaptures& earlier, int64_t earlier_rows) const {
  const int64_t H = config_.num_heads, d = config_.head_dim(), n = v_t.size(2), B = v_t.size(0) / H;
  const at::Tensor gram = keep.all_value_gram[l], norms = keep.all_value_norms[l];  // [B, n, H, H], [B, H, n]
  // The run before's whole slices before the first new row: the same products of the same values
  // (taken from that run with its queries), so the same bits. B = 1: only one text continues.
  const int64_t taken = earlier.value_gram.defined() ? earlier_rows / kValueGramSlice * kValueGramSlice : 0;
  if (taken > 0) {
    gram.narrow(1, 0, taken).copy_(earlier.value_gram.narrow(0, 0, taken).unsqueeze(0));
    norms.narrow(2, 0, taken).copy_(earlier.value_norms.narrow(1, 0, taken).unsqueeze(0));
  }
  // Laid out as [B, H, d, n] first: the products' rounding hangs on their operands' layout, which
  // hangs on the path that made them (Gemma 3's one key/value head, repeated, is a view with a
  // head stride of 0 from a forward from scratch and a copy from a continued one).
  value_gram_into(output_products()[static_cast<size_t>(l)], v_t.contiguous().view({B, H, d, n}), gram, norms, taken);
}

at::Tensor Transformer::finish(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x,
                               const KeepGoing& keep_going, int64_t feed_forward_rows) const {
  const int64_t B = x.size(0), n = x.size(1);
  // Residual sums and the activation are done in place on the fresh products: no extra tensors
  // of activations to allocate and write.
  // The heads merged live only for their product (134 MB for Gemma 3 at 32,768 tokens).
  at::Tensor attended = at::linear(context.transpose(1, 2).reshape({B, n, config_.num_heads * config_.head_dim()}),
                                   w.attn_out_weight, w.attn_out_bias);
  if (w.post_attn_norm_weight.defined()) attended = normalize(attended, w.post_attn_norm_weight, {});  // Gemma
  if (config_.parallel_blocks)  // GPT-NeoX: the feed-forward block reads the layer's input, not attention's sum
    return feed_forward(w, normalize(x, w.ffn_norm_weight, w.ffn_norm_bias), keep_going, feed_forward_rows)
        .add_(attended)
        .add_(x);
  const at::Tensor projected = attended.add_(x);
  if (config_.architecture->norm == NormPlacement::Pre) {  // each block's input normalised, its residual sum not
    at::Tensor fed =
        feed_forward(w, normalize(projected, w.ffn_norm_weight, w.ffn_norm_bias), keep_going, feed_forward_rows);
    if (w.post_ffn_norm_weight.defined()) fed = normalize(fed, w.post_ffn_norm_weight, {});
    return fed.add_(projected);
  }
  const at::Tensor normed = normalize(projected, w.attn_norm_weight, w.attn_norm_bias);
  return normalize(feed_forward(w, normed, keep_going, feed_forward_rows).add_(normed), w.ffn_norm_weight,
                   w.ffn_norm_bias);
}

// A block of rows at a time where the inner activations of every row would pass a block's 32 MB
// (rows_per_block): at 32,768 tokens Gemma 3's were 537 MB, the largest tensor of its forward. A
// row's products have the same bits in any block of 4 rows or more (reproducible_products.h) and
// the activation works element by element (its vector lanes on the same elements where a row's
// activations are a multiple of 16, as every real model's are), so the output is all rows' at once.
at::Tensor Transformer::feed_forward(const LayerWeights& w, const at::Tensor& x, const KeepGoing& keep_going,
                                     int64_t step) const {
  const int64_t D = x.size(-1), rows = x.numel() / D;
  if (step <= 0) step = rows_per_block(w.ffn_in_weight.size(0));
  if (rows <= step) return feed_forward_whole(w, x, keep_going);
  const at::Tensor flat = x.reshape({rows, D});
  at::Tensor out = at::empty_like(flat);  // the block maps the hidden size to itself
  for (const auto& [first, count] : row_blocks(rows, step))
    out.narrow(0, first, count).copy_(feed_forward_whole(w, flat.narrow(0, first, count), keep_going));
  return out.view(x.sizes());
}

// The feed-forward block without its residual: act(x W_in) W_out, or for a gated block, whose
// W_in makes two halves, (act(a) * b) W_out.
at::Tensor Transformer::feed_forward_whole(const LayerWeights& w, const at::Tensor& x,
                                           const KeepGoing& keep_going) const {
  stop_if_stale(keep_going);
  const at::Tensor in = linear(x, w.ffn_in_weight, w.ffn_in_bias, keep_going);
  at::Tensor inner;
  if (config_.architecture->feed_forward == FeedForward::Gated) {
    // In place in the first half of `in` (its rows strided, as the output product reads them):
    // no copy of it (268 MB for Gemma 3 at 32,768 tokens, the largest of a long text's forward).
    const auto parts = in.chunk(2, -1);
    inner = activate(parts[0]).mul_(parts[1]);
  } else {
    inner = activate(in);
  }
  stop_if_stale(keep_going);
  return linear(inner, w.ffn_out_weight, w.ffn_out_bias, keep_going);
}

// The batch checked (no empty text, none longer than the positions, ids inside the vocabulary) and
// laid out as [B, n] ids, pads taking id 0 (masked out by padding_mask).
Transformer::Batch Transformer::checked_batch(const std::vector<std::vector<int64_t>>& ids) const {
  if (ids.empty()) throw Error("nothing to run: the batch is empty");
  Batch batch;
  for (const auto& text : ids) {
    if (text.empty()) throw Error("a text of the batch has no tokens");
    batch.n = std::max<int64_t>(batch.n, static_cast<int64_t>(text.size()));
  }
  if (batch.n > config_.max_tokens())
    throw Error("a text has " + std::to_string(batch.n) + " tokens; the model takes at most " +
                std::to_string(config_.max_tokens()));
  const int64_t B = static_cast<int64_t>(ids.size());
  batch.ids = at::zeros({B, batch.n}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    const auto& text = ids[static_cast<size_t>(b)];
    for (int64_t id : text)
      if (id < 0 || id >= config_.vocab_size)
        throw Error("token id " + std::to_string(id) + " is outside the model's vocabulary of " +
                    std::to_string(config_.vocab_size));
    std::copy(text.begin(), text.end(), batch.ids[b].data_ptr<int64_t>());
    batch.lengths.push_back(static_cast<int64_t>(text.size()));
    batch.padded |= static_cast<int64_t>(text.size()) < batch.n;
  }
  return batch;
}

// Additive, [B, 1, 1, n]: 0 for real keys, the dtype's lowest value for pads; undefined when
// nothing is padded (attention then runs without a mask).
at::Tensor Transformer::padding_mask(const Batch& batch) const {
  if (!batch.padded) return {};
  const int64_t B = batch.ids.size(0), n = batch.n;
  at::Tensor real = at::zeros({B, n}, at::kBool);
  for (int64_t b = 0; b < B; ++b) real[b].narrow(0, 0, batch.lengths[static_cast<size_t>(b)]).fill_(true);
  return at::where(real, 0.0, scores_.lowest_value()).to(device_.device, device_.dtype).view({B, 1, 1, n});
}

// Every layer writes its maps (or their column sums) and head outputs (and the lenses' vectors)
// straight into these.
void Transformer::allocate_captures(BatchCaptures& out, int64_t B, int64_t n, const ForwardOptions& o) const {
  const auto options = at::TensorOptions().dtype(device_.dtype).device(device_.device);
  const int64_t L = config_.num_layers, H = config_.num_heads;
  const bool maps = o.kept == KeptAttention::Maps;
  if (maps)
    out.all_attention = at::empty({L, B, H, n, n}, options);
  else
    out.all_column_sums = at::empty({L, B, H, n}, options.dtype(at::kFloat));
  out.all_head_outputs = at::empty({L, B, H, n, config_.head_dim()}, options);
  if (o.lenses || !maps) {
    out.all_queries = at::empty({L, B, H, n, config_.head_dim()}, options);
    out.all_keys = at::empty({L, B, config_.kv_heads(), n, config_.head_dim()}, options);
  }
  if (o.keep_layer_inputs && continues_from_projections()) {
    out.all_layer_values = at::empty({L, B, config_.kv_heads(), n, config_.head_dim()}, options);
    if (maps) out.all_layer_keys = at::empty_like(out.all_layer_values);  // a long text keeps all_keys
  }
  if (!o.lenses) return;
  out.all_value_norms = at::empty({L, B, H, n}, options);
  out.all_value_gram = at::empty({L, B, n, H, H}, options);
}

void Transformer::check_forward_options(const ForwardOptions& o) const {
  if (o.last_layer != LastLayer::Complete && !o.capture)
    throw Error("a forward pass without captures needs its last layer complete");
  if (o.capture && o.kept == KeptAttention::QueriesAndKeys && weights_.relative_embeddings.defined())
    throw Error("DeBERTa's attention maps cannot be recomputed from queries and keys: it keeps its maps");
}

void Transformer::take_earlier_maps(LayerMask& mask, const ForwardPrefix& prefix, int64_t layer, int64_t rows,
                                    EarlierProjections taken) const {
  mask.earlier_attention = prefix.attention[layer].unsqueeze(0).to(device_.device, device_.dtype);
  mask.earlier_outputs = prefix.head_outputs[layer].unsqueeze(0).to(device_.device, device_.dtype);
  mask.earlier_rows = rows;
  if (taken == EarlierProjections::None) return;
  mask.earlier_keys = prefix.keys[layer].to(device_.device, device_.dtype);
  mask.earlier_values = prefix.values[layer].to(device_.device, device_.dtype);
  if (taken != EarlierProjections::AndQueries) return;
  mask.earlier_lenses.queries = prefix.queries[layer].to(device_.device, device_.dtype);
  if (!prefix.value_gram.defined()) return;
  mask.earlier_lenses.value_gram = prefix.value_gram[layer].to(device_.device, device_.dtype);
  mask.earlier_lenses.value_norms = prefix.value_norms[layer].to(device_.device, device_.dtype);
}

Transformer::EarlierProjections Transformer::takes_earlier_projections(const ForwardPrefix& prefix,
                                                                       const ForwardOptions& options,
                                                                       int64_t rows) const {
  const at::Tensor &keys = prefix.keys, &values = prefix.values, &queries = prefix.queries;
  if (!keys.defined()) return EarlierProjections::None;
  const int64_t L = config_.num_layers, H = config_.num_heads, G = config_.kv_heads(), d = config_.head_dim();
  if (keys.dim() != 4 || keys.size(0) < L || keys.size(1) != G || keys.size(2) < rows || keys.size(3) != d ||
      !values.defined() || values.sizes() != keys.sizes())
    throw Error("the run to continue from keeps no key and value of every layer for its first " + std::to_string(rows) +
                " tokens");
  if (queries.defined() && (queries.dim() != 4 || queries.size(0) < L || queries.size(1) != H ||
                            queries.size(2) < rows || queries.size(3) != d))
    throw Error("the run to continue from keeps no query of every layer and head for its first " +
                std::to_string(rows) + " tokens");
  check_earlier_value_gram(prefix, rows);
  if (!continues_from_projections()) return EarlierProjections::None;
  if (!options.lenses) return EarlierProjections::KeysAndValues;
  // The lenses keep every row's queries: without the run before's, every row is projected.
  return queries.defined() ? EarlierProjections::AndQueries : EarlierProjections::None;
}

void Transformer::check_earlier_value_gram(const ForwardPrefix& prefix, int64_t rows) const {
  const at::Tensor &gram = prefix.value_gram, &norms = prefix.value_norms;
  if (!gram.defined() && !norms.defined()) return;
  const int64_t L = config_.num_layers, H = config_.num_heads;
  if (!gram.defined() || !norms.defined() || gram.dim() != 4 || gram.size(0) < L || gram.size(1) < rows ||
      gram.size(2) != H || gram.size(3) != H || norms.dim() != 3 || norms.size(0) < L || norms.size(1) != H ||
      norms.size(2) < rows)
    throw Error("the run to continue from keeps no value Gram matrix and norm of every layer and head for its first " +
                std::to_string(rows) + " tokens");
}

bool Transformer::continues_from_projections() const {
  // A fused projection is left whole (ForwardPrefix), and so is one too narrow for a block of its
  // rows to sum as the whole's (a tiny test model's).
  return config_.causal() && weights_.layers.front().stacked_qkv_weight.defined() &&
         config_.kv_heads() * config_.head_dim() >= kFewestBlockColumns;
}

Transformer::ForwardPlan Transformer::plan_forward(const std::vector<std::vector<int64_t>>& ids,
                                                   const ForwardOptions& options) const {
  ForwardPlan p;
  p.batch = checked_batch(ids);
  const int64_t B = p.batch.ids.size(0), n = p.batch.n;
  p.in_blocks = attends_in_blocks(options, B, n);
  p.padding = padding_mask(p.batch);
  if (!p.in_blocks) p.masks = scores_.masks(n, p.padding);
  if (config_.architecture->positions == PositionScheme::Rotary) {
    p.global = rotary_tables(n, config_.rotary.global_theta);
    p.local = rotary_tables(n, config_.rotary.local_theta);
  }
  if (weights_.relative_embeddings.defined()) p.relative = relative_index(n);
  p.continued = continued_rows(options.prefix, p.batch);
  if (!p.continued.defined() || !options.capture) return p;
  const int64_t rows = p.continued.size(1);
  p.earlier_maps = !p.in_blocks && options.prefix.attention.defined();
  if (p.earlier_maps) {
    check_earlier_maps(options.prefix, rows);
    p.earlier_projections = takes_earlier_projections(options.prefix, options, rows);
  }
  if (p.in_blocks) p.blocks_from = blocks_resumed_from(options.prefix, B, n, rows, options.block_rows);
  return p;
}

Transformer::LayerMask Transformer::layer_mask(const ForwardPlan& p, size_t l, const ForwardOptions& options) const {
  const bool is_local = config_.is_local_layer(l);
  LayerMask mask{.whole = is_local ? p.masks.local : p.masks.global,
                 .in_blocks = p.in_blocks,
                 .local = is_local,
                 .padding = p.padding,
                 .block_rows = options.block_rows,
                 .sink = &options.attention_blocks};
  const auto layer = static_cast<int64_t>(l);
  if (p.earlier_maps) take_earlier_maps(mask, options.prefix, layer, p.continued.size(1), p.earlier_projections);
  if (p.blocks_from > 0) take_earlier_blocks(mask, options.prefix, layer, p.continued.size(1), p.blocks_from);
  return mask;
}

BatchCaptures Transformer::forward(const std::vector<std::vector<int64_t>>& ids, const ForwardOptions& options) const {
  check_forward_options(options);
  const bool capture = options.capture;
  const KeepGoing& keep_going = options.keep_going;
  c10::InferenceMode guard;
  const ForwardPlan p = plan_forward(ids, options);
  const int64_t B = p.batch.ids.size(0), n = p.batch.n;
  BatchCaptures out;
  out.lengths = p.batch.lengths;
  out.visibility = config_.visibility();
  if (capture) allocate_captures(out, B, n, options);
  const at::Tensor positions =
      config_.position_offset > 0 ? offset_positions(ids, n, config_.pad_token_id).to(device_.device) : at::Tensor();
  at::Tensor x = embed(p.batch.ids.to(device_.device), positions);
  out.hidden_states.push_back(x);
  if (capture) allocate_column_sums_before(out, B, n, options, p.blocks_from);
  for (size_t l = 0; l < weights_.layers.size(); ++l) {
    stop_if_stale(keep_going);
    const LayerWeights& w = weights_.layers[l];
    const bool rotary = config_.architecture->positions == PositionScheme::Rotary;
    const RotaryTables* tables = rotary ? (config_.is_local_layer(l) ? &p.local : &p.global) : nullptr;
    const at::Tensor context =
        attend(w, x, layer_mask(p, l, options), capture ? &out : nullptr, tables, p.relative, keep_going);
    if (options.last_layer != LastLayer::Complete && l + 1 == weights_.layers.size()) {
      if (options.last_layer == LastLayer::HeadOutputsAndLastToken)
        out.last_states = finish_last_tokens(w, context, x, p.batch);
      if (options.progress) options.progress("model", 1.0);
      return out;
    }
    stop_if_stale(keep_going);
    const auto next = static_cast<int64_t>(l) + 1;
    // Not the last layer's: the kept last state is normalised (a pre-norm family's final norm).
    x = p.continued.defined() && next < config_.num_layers
            ? finish_rows_after(w, context, x, p.continued.size(1), p.continued[next], keep_going,
                                options.feed_forward_rows)
            : finish(w, context, x, keep_going, options.feed_forward_rows);
    // A long text keeps its latest state alone unless asked: every layer's would be (L + 1) n D
    // floats, which nothing but a continued forward reads there (1.6 GB for Gemma 3 at 32,768 tokens).
    if (p.in_blocks && !options.keep_layer_inputs) out.hidden_states.clear();
    out.hidden_states.push_back(x);
    if (options.progress)
      options.progress("model", static_cast<double>(next) / static_cast<double>(config_.num_layers));
  }
  if (weights_.final_norm_weight.defined())  // a pre-norm family's last output is normalised
    out.hidden_states.back() = normalize(x, weights_.final_norm_weight, weights_.final_norm_bias);
  out.last_states = last_rows(out.hidden_states.back(), p.batch.lengths);
  return out;
}

bool Transformer::attends_in_blocks(const ForwardOptions& options, int64_t B, int64_t n) const {
  if (options.capture) return options.kept == KeptAttention::QueriesAndKeys;
  const double scores = static_cast<double>(B * config_.num_heads) * static_cast<double>(n) * static_cast<double>(n);
  return !weights_.relative_embeddings.defined() && scores * sizeof(float) > options.most_whole_score_bytes;
}

int64_t Transformer::tokens_continued(const ForwardPrefix& prefix, int64_t tokens, size_t texts) const {
  if (!config_.causal() || texts != 1) return 0;
  return std::max<int64_t>(0, std::min(prefix.tokens, tokens - kFewestBlockRows));
}

at::Tensor Transformer::continued_rows(const ForwardPrefix& prefix, const Batch& batch) const {
  const int64_t rows = tokens_continued(prefix, batch.n, batch.lengths.size());
  if (rows == 0) return {};
  const at::Tensor& inputs = prefix.layer_inputs;
  if (!inputs.defined() || inputs.dim() != 3 || inputs.size(0) < config_.num_layers || inputs.size(1) < rows ||
      inputs.size(2) != config_.hidden_size)
    throw Error("the run to continue from keeps no input of every layer for its first " + std::to_string(rows) +
                " tokens");
  return inputs.narrow(0, 0, config_.num_layers).narrow(1, 0, rows).to(device_.device, device_.dtype);
}

void Transformer::check_earlier_maps(const ForwardPrefix& prefix, int64_t rows) const {
  const at::Tensor &maps = prefix.attention, &outputs = prefix.head_outputs;
  const int64_t L = config_.num_layers, H = config_.num_heads;
  if (maps.dim() != 4 || maps.size(0) != L || maps.size(1) != H || maps.size(2) < rows || maps.size(3) < rows ||
      !outputs.defined() || outputs.dim() != 4 || outputs.size(0) != L || outputs.size(1) != H ||
      outputs.size(2) < rows || outputs.size(3) != config_.head_dim())
    throw Error("the run to continue from keeps no map and head output of every layer and head for its first " +
                std::to_string(rows) + " tokens");
}

at::Tensor Transformer::finish_rows_after(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x,
                                          int64_t first, const at::Tensor& earlier_rows, const KeepGoing& keep_going,
                                          int64_t feed_forward_rows) const {
  const int64_t rest = x.size(1) - first;
  const at::Tensor later =
      finish(w, context.narrow(2, first, rest), x.narrow(1, first, rest), keep_going, feed_forward_rows);
  return at::cat({earlier_rows.unsqueeze(0), later}, 1);
}

// Row lengths[b] - 1 of each text b of [B, n, ...]: [B, ...].
at::Tensor Transformer::last_rows(const at::Tensor& t, const std::vector<int64_t>& lengths) {
  std::vector<at::Tensor> rows;
  for (size_t b = 0; b < lengths.size(); ++b) rows.push_back(t[static_cast<int64_t>(b)][lengths[b] - 1]);
  return at::stack(rows);
}

// The last layer finished for each text's last token alone: its context row and input row through
// the output projection and the feed-forward block (both act on each token apart), then the final
// norm. [B, D].
at::Tensor Transformer::finish_last_tokens(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x,
                                           const Batch& batch) const {
  std::vector<at::Tensor> rows;
  for (size_t b = 0; b < batch.lengths.size(); ++b) {
    const int64_t i = static_cast<int64_t>(b), last = batch.lengths[b] - 1;
    const at::Tensor context_row = context.narrow(0, i, 1).narrow(2, last, 1);  // [1, H, 1, d]
    rows.push_back(finish(w, context_row, x.narrow(0, i, 1).narrow(1, last, 1), {}).reshape({-1}));
  }
  const at::Tensor states = at::stack(rows);
  return weights_.final_norm_weight.defined() ? normalize(states, weights_.final_norm_weight, weights_.final_norm_bias)
                                              : states;
}

}  // namespace attnscope
