#include "analysis/attention_rollout.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <string>

#include "base/byte_size.h"
#include "base/error.h"
#include "model/mapped_tensor.h"
#include "model/reproducible_products.h"

namespace attnscope {

namespace {

constexpr int64_t kGroupRows = 64;

// The columns where rows hold a nonzero: a decoder's rows none after their last row, a sliding-window
// layer's none outside their band.
KeySpan nonzero_columns(const at::Tensor& rows) {
  const int64_t n = rows.size(1);
  const at::Tensor held = rows.ne(0).any(0).to(at::kByte);  // [n]
  if (held.max().item<int64_t>() == 0) return {0, 0};
  const int64_t first = held.argmax().item<int64_t>(), last = n - 1 - held.flip(0).argmax().item<int64_t>();
  return {first, last - first + 1};
}

// Ahat_l's rows from M_l's rows `m` ([rows, keys], rows from `first_row`, a multiple of
// kGroupRows, keys from `first_key` and holding each row's own), in place: I added, then each group
// of kGroupRows rows divided by its rows' sums over the columns where the group holds a nonzero. A
// row's sum then adds the same numbers in the same order whatever keys its rows come over (a sum
// over more zeros may group its terms otherwise), so a long text's rows over the keys they see
// give the bits of the whole maps'.
at::Tensor residual_normalised(at::Tensor m, int64_t first_row, int64_t first_key) {
  m.diagonal(first_row - first_key).add_(1.0f);  // row r is row first_row + r, its key column first_row + r - first_key
  for (int64_t start = 0; start < m.size(0); start += kGroupRows) {
    const at::Tensor group = m.narrow(0, start, std::min(kGroupRows, m.size(0) - start));
    const KeySpan columns = nonzero_columns(group);
    at::Tensor held = group.narrow(1, columns.first, columns.count);
    held.div_(held.sum(-1, true));
  }
  return m;
}

// Rows of Ahat_l R_(l-1) into `out` ([rows, n]) from those rows of Ahat_l ([rows, keys], rows from a
// multiple of kGroupRows, keys from `first_key`) and R_(l-1) ([n, n]). Each group of kGroupRows
// rows at fixed positions multiplies only the columns where its rows hold a nonzero (the others add
// exact zeros): a local layer's group reads a band of R, a decoder's the rows of R up to its last. A
// row's bits then hang on its group's columns alone, whoever cuts the rows into blocks and over
// whichever keys: groups over every column go in runs as long as the block allows (MKL gives a row
// of a product of 4 rows or more the same bits whatever their number:
// model/reproducible_products.h), the text's last group, when shorter, alone and padded to
// kGroupRows.
void rollout_rows_into(const at::Tensor& out, const at::Tensor& ahat_rows, int64_t first_key,
                       const at::Tensor& previous) {
  const int64_t count = ahat_rows.size(0), n = previous.size(0);
  int64_t run = 0;  // rows before `start` of groups over every column, not multiplied yet
  const auto multiply_run = [&](int64_t end) {
    if (run == 0) return;
    at::Tensor slot = out.narrow(0, end - run, run);
    at::matmul_out(slot, ahat_rows.narrow(0, end - run, run), previous);
    run = 0;
  };
  for (int64_t start = 0; start < count; start += kGroupRows) {
    const int64_t rows = std::min(kGroupRows, count - start);
    const at::Tensor group = ahat_rows.narrow(0, start, rows);
    const KeySpan columns = nonzero_columns(group);
    if (columns.count == n && rows == kGroupRows) {
      run += rows;
      continue;
    }
    multiply_run(start);
    at::Tensor a = group.narrow(1, columns.first, columns.count);
    if (rows < kGroupRows) a = at::cat({a, at::zeros({kGroupRows - rows, columns.count}, a.options())});
    const at::Tensor read = previous.narrow(0, first_key + columns.first, columns.count);
    out.narrow(0, start, rows).copy_(at::mm(a, read).narrow(0, 0, rows));
  }
  multiply_run(count);
}

}  // namespace

at::Tensor attention_rollout(const at::Tensor& layer_maps) {
  if (layer_maps.dim() != 3 || layer_maps.size(1) != layer_maps.size(2))
    throw Error("rollout needs [layers, n, n] maps");
  c10::InferenceMode guard;
  const at::Tensor maps = layer_maps.to(at::kFloat);
  at::Tensor out = at::empty_like(maps);
  out[0].copy_(residual_normalised(maps[0].clone(), 0, 0));
  for (int64_t l = 1; l < maps.size(0); ++l)
    rollout_rows_into(out[l], residual_normalised(maps[l].clone(), 0, 0), 0, out[l - 1]);
  return out;
}

namespace {

// The same rows over keys that hold each row's own (what residual_normalised adds I to): those
// handed out, or, where some row's key is outside them, the same rows over the keys and the rows'.
LayerMapBlock holding_own_keys(LayerMapBlock m, RowSpan rows) {
  const int64_t first = std::min(m.keys.first, rows.first);
  const int64_t end = std::max(m.keys.first + m.keys.count, rows.first + rows.count);
  if (first == m.keys.first && end == m.keys.first + m.keys.count) return m;
  at::Tensor wider = at::zeros({m.rows.size(0), end - first}, m.rows.options());
  wider.narrow(1, m.keys.first - first, m.keys.count).copy_(m.rows);
  return {wider, {first, end - first}};
}

// Rows of Ahat_l over the keys M_l's rows hold, as attention_rollout makes them.
LayerMapBlock residual_rows(const LayerMapRows& maps, int64_t layer, RowSpan rows) {
  LayerMapBlock m = holding_own_keys(maps(layer, rows), rows);
  // A copy: the rows handed out may be a view of maps someone keeps.
  m.rows = residual_normalised(m.rows.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true).contiguous(), rows.first,
                               m.keys.first);
  return m;
}

}  // namespace

at::Tensor rollout_in_blocks(const LayerMapRows& maps, int64_t last, int64_t n, int64_t block_rows,
                             const RolloutOfLayer& each_layer) {
  if (last < 0 || n < 1) throw Error("rollout needs a layer and at least one token");
  c10::InferenceMode guard;
  // Blocks of whole groups of rows (rollout_rows_into), so that no group is cut in two.
  const int64_t step = in_whole_groups(block_rows, kGroupRows);
  const std::vector<std::pair<int64_t, int64_t>> blocks = row_blocks(n, step);
  at::Tensor rollout = mapped_empty({n, n}), next;  // returned when freed (mapped_tensor.h)
  for (const auto& [first, count] : blocks) {
    const LayerMapBlock ahat = residual_rows(maps, 0, {first, count});
    at::Tensor rows = rollout.narrow(0, first, count);
    rows.zero_();
    rows.narrow(1, ahat.keys.first, ahat.keys.count).copy_(ahat.rows);
  }
  if (each_layer) each_layer(0, rollout);
  for (int64_t l = 1; l <= last; ++l) {
    if (!next.defined()) next = mapped_empty({n, n});
    for (const auto& [first, count] : blocks) {
      const LayerMapBlock ahat = residual_rows(maps, l, {first, count});
      rollout_rows_into(next.narrow(0, first, count), ahat.rows, ahat.keys.first, rollout);
    }
    std::swap(rollout, next);
    if (each_layer) each_layer(l, rollout);
  }
  return rollout;
}

LayerMapRows mean_attention_rows(const AttentionBlockRows& blocks, const KeepGoing& keep_going) {
  return [blocks, keep_going](int64_t layer, RowSpan span) {
    stop_if_stale(keep_going);
    const AttentionBlock block = blocks(layer, -1, span);
    return LayerMapBlock{block.maps[0].mean(0), block.keys};
  };
}

double rollout_in_blocks_bytes(int64_t n) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * sizeof(float);
}

void require_rollout_fits(int64_t n) {
  const double bytes = rollout_in_blocks_bytes(n);
  if (bytes <= kMostRolloutBytes) return;
  throw Error("the attention rollout of a text of " + std::to_string(n) + " tokens holds two " + std::to_string(n) +
              " x " + std::to_string(n) + " matrices (" + byte_size(bytes) +
              "): ask for it on a shorter text (--max-len)");
}

}  // namespace attnscope
