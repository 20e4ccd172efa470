// A long text's continued forward (ForwardPrefix::column_sums_before): a text typed on at its end
// makes the blocks of attention rows from the run before's last block on alone. Each layer's
// column sums are summed block by block in the order of the rows, so the sums before a block are
// the same bits in every run whose blocks before it are the same; a block's rows and the keys it
// holds hang on its position alone (AttentionBlock), never on the text's length.
#include <ATen/ATen.h>

#include <algorithm>
#include <bit>
#include <string>

#include "base/error.h"
#include "model/reproducible_products.h"
#include "model/transformer.h"

namespace attnscope {

namespace {

// A continued run makes its last block of rows again, over nearly every key: blocks of 512 rows
// (SmolLM2's at 2,048 tokens) made that 0.27x of a forward from scratch, blocks of 128 0.11x, and
// the forward from scratch was no slower in blocks of 128 (4.0 against 4.3 s; Gemma 3's 3.0 and
// 3.3 against 3.4 and 3.2 s).
constexpr int64_t kMostBlockRows = 128;

}  // namespace

int64_t Transformer::block_step(int64_t B, int64_t n, int64_t asked, ContextReach reach) const {
  const auto longest = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(n, 1))));
  const int64_t step = asked > 0 ? asked : std::min(kMostBlockRows, rows_per_block(B * config_.num_heads * longest));
  // A layer whose rows see some keys alone starts its blocks where its head outputs' do.
  return reach.every_key() || asked > 0 ? step : in_whole_groups(step, kContextBlockRows);
}

int64_t Transformer::blocks_resumed_from(const ForwardPrefix& prefix, int64_t B, int64_t n, int64_t rows,
                                         int64_t block_rows) const {
  const at::Tensor& sums = prefix.column_sums_before;
  if (!sums.defined()) return 0;
  const int64_t L = config_.num_layers, H = config_.num_heads, G = config_.kv_heads(), d = config_.head_dim();
  const auto holds = [&](const at::Tensor& t, int64_t heads, int64_t tokens) {
    return t.defined() && t.dim() == 4 && t.size(0) == L && t.size(1) == heads && t.size(2) >= tokens && t.size(3) == d;
  };
  const int64_t from = sums.dim() == 3 ? sums.size(2) : -1;
  if (from < 0 || sums.size(0) != L || sums.size(1) != H || !holds(prefix.head_outputs, H, from))
    throw Error("the long text to continue from keeps no column sums and head outputs of every layer and head");
  // Blocks laid out otherwise, or an edit before the last block: every block made again.
  if (from == 0 || from > rows || prefix.block_step <= 0 || from % prefix.block_step != 0 ||
      prefix.block_step != block_step(B, n, block_rows, reach_of(false)))
    return 0;
  if (continues_from_projections() &&
      (!holds(prefix.queries, H, rows) || !holds(prefix.keys, G, rows) || !holds(prefix.values, G, rows)))
    throw Error("the long text to continue from keeps no query, key and value of every layer for its first " +
                std::to_string(rows) + " tokens");
  return from;
}

void Transformer::take_earlier_blocks(LayerMask& mask, const ForwardPrefix& prefix, int64_t layer, int64_t rows,
                                      int64_t from) const {
  const auto on_device = [&](const at::Tensor& t) { return t[layer].to(device_.device, device_.dtype); };
  mask.blocks_from = from;
  mask.earlier_column_sums = prefix.column_sums_before[layer].unsqueeze(0).to(device_.device, at::kFloat);
  mask.earlier_outputs = on_device(prefix.head_outputs).unsqueeze(0);
  if (!continues_from_projections()) return;  // every row projected
  mask.earlier_rows = rows;
  mask.earlier_keys = on_device(prefix.keys);
  mask.earlier_values = on_device(prefix.values);
  mask.earlier_lenses.queries = on_device(prefix.queries);  // a long text keeps every row's, as the lenses do
}

void Transformer::keep_column_sums_before(const at::Tensor& columns, RowSpan rows, int64_t step, int64_t l,
                                          BatchCaptures& keep) const {
  const at::Tensor& before = keep.all_column_sums_before;
  if (!before.defined()) return;
  if (step != keep.block_step || rows.first != before.size(3))
    throw Error("a layer's blocks of attention rows were laid out unlike the others'");
  before[l].copy_(columns.narrow(2, 0, rows.first));
}

}  // namespace attnscope
