// A long text's continued forward (ForwardPrefix::column_sums_before): a text typed on at its end,
// or edited in its middle, makes the blocks of attention rows from the last block before its first
// new token whose column sums the run before kept (model/column_sums_before.h) on alone. A block's
// rows and the keys it holds hang on its position alone (AttentionBlock), never on the text's length.
#include <ATen/ATen.h>

#include <algorithm>
#include <bit>
#include <functional>
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
  const ColumnSumsBefore& before = prefix.column_sums_before;
  if (before.empty()) return 0;
  const int64_t L = config_.num_layers, H = config_.num_heads, G = config_.kv_heads(), d = config_.head_dim();
  const auto holds = [&](const at::Tensor& t, int64_t heads, int64_t tokens) {
    return t.defined() && t.dim() == 4 && t.size(0) == L && t.size(1) == heads && t.size(2) >= tokens && t.size(3) == d;
  };
  if (before.sums.size() != before.rows.size() ||
      !std::is_sorted(before.rows.begin(), before.rows.end(), std::less_equal<>()))
    throw Error("the long text to continue from keeps its column sums before rows out of order");
  for (size_t i = 0; i < before.rows.size(); ++i) {
    const at::Tensor& sums = before.sums[i];
    if (!sums.defined() || sums.dim() != 3 || sums.size(0) != L || sums.size(1) != H || sums.size(2) != before.rows[i])
      throw Error("the long text to continue from keeps no column sums of every layer and head before row " +
                  std::to_string(before.rows[i]));
  }
  // Blocks laid out otherwise, or an edit before the first block kept: every block made again.
  const int64_t from = before.last_at_or_before(rows);
  if (from == 0 || before.block_step <= 0 || from % before.block_step != 0 ||
      before.block_step != block_step(B, n, block_rows, reach_of(false)))
    return 0;
  if (!holds(prefix.head_outputs, H, from))
    throw Error("the long text to continue from keeps no head outputs of every layer and head");
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
  mask.earlier_column_sums =
      (*prefix.column_sums_before.before(from))[layer].unsqueeze(0).to(device_.device, at::kFloat);
  mask.earlier_outputs = on_device(prefix.head_outputs).unsqueeze(0);
  if (!continues_from_projections()) return;  // every row projected
  mask.earlier_rows = rows;
  mask.earlier_keys = on_device(prefix.keys);
  mask.earlier_values = on_device(prefix.values);
  mask.earlier_lenses.queries = on_device(prefix.queries);  // a long text keeps every row's, as the lenses do
}

void Transformer::allocate_column_sums_before(BatchCaptures& out, int64_t B, int64_t n, const ForwardOptions& o,
                                              int64_t blocks_from) const {
  if (!o.keep_layer_inputs || o.kept != KeptAttention::QueriesAndKeys || !config_.causal()) return;
  ColumnSumsBefore& kept = out.column_sums_before;
  kept.block_step = block_step(B, n, o.block_rows, reach_of(false));  // every layer's blocks of rows alike
  const ColumnSumsBefore& earlier = o.prefix.column_sums_before;
  const at::TensorOptions floats = at::TensorOptions().device(device_.device).dtype(at::kFloat);
  for (const int64_t row : column_sums_rows(n, kept.block_step, o.column_sums_every)) {
    // Before the row the blocks resume from, the run before's sums where it kept them (B = 1);
    // where it did not, none (a later edit there makes every block again).
    const at::Tensor* taken = row < blocks_from ? earlier.before(row) : nullptr;
    if (row < blocks_from && !taken) continue;
    kept.rows.push_back(row);
    kept.sums.push_back(taken ? taken->unsqueeze(1)
                              : at::empty({config_.num_layers, B, config_.num_heads, row}, floats));
  }
}

bool Transformer::keep_column_sums_before(const at::Tensor& columns, RowSpan rows, int64_t step, int64_t l,
                                          BatchCaptures& keep) const {
  const ColumnSumsBefore& kept = keep.column_sums_before;
  if (kept.empty()) return false;
  if (step != kept.block_step) throw Error("a layer's blocks of attention rows were laid out unlike the others'");
  const at::Tensor* before = kept.before(rows.first);
  if (before) (*before)[l].copy_(columns.narrow(2, 0, rows.first));
  return before != nullptr;
}

}  // namespace attnscope
