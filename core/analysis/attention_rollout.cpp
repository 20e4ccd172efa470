#include "analysis/attention_rollout.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

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

// For each group of kGroupRows rows of a matrix (Ahat_l or R_l), the columns where it may hold a
// nonzero: a decoder's R_l row i none after column i, a sliding-window layer's Ahat_l none outside
// its band.
using GroupColumns = std::vector<KeySpan>;

// Rows of Ahat_l over keys from `first_key`, with each group's columns (of the whole map).
struct AhatRows {
  at::Tensor rows;
  int64_t first_key = 0;
  GroupColumns columns;
};

// Ahat_l's rows from M_l's rows `m` ([rows, keys], rows from `first_row`, a multiple of
// kGroupRows, keys from `first_key` and holding each row's own), in place: I added, then each group
// of kGroupRows rows divided by its rows' sums over the columns where the group holds a nonzero. A
// row's sum then adds the same numbers in the same order whatever keys its rows come over (a sum
// over more zeros may group its terms otherwise), so a long text's rows over the keys they see
// give the bits of the whole maps'.
AhatRows residual_normalised(at::Tensor m, int64_t first_row, int64_t first_key) {
  m.diagonal(first_row - first_key).add_(1.0f);  // row r is row first_row + r, its key column first_row + r - first_key
  AhatRows ahat{m, first_key, {}};
  for (int64_t start = 0; start < m.size(0); start += kGroupRows) {
    const at::Tensor group = m.narrow(0, start, std::min(kGroupRows, m.size(0) - start));
    const KeySpan columns = nonzero_columns(group);
    at::Tensor held = group.narrow(1, columns.first, columns.count);
    held.div_(held.sum(-1, true));
    ahat.columns.push_back({first_key + columns.first, columns.count});
  }
  return ahat;
}

// The columns where rows `rows` of a matrix may hold a nonzero: the union of their groups'.
KeySpan columns_of_rows(const GroupColumns& groups, KeySpan rows) {
  int64_t first = std::numeric_limits<int64_t>::max(), end = 0;
  for (int64_t g = rows.first / kGroupRows; g * kGroupRows < rows.first + rows.count; ++g) {
    const KeySpan& c = groups[static_cast<size_t>(g)];
    if (c.count == 0) continue;
    first = std::min(first, c.first);
    end = std::max(end, c.first + c.count);
  }
  return end == 0 ? KeySpan{0, 0} : KeySpan{first, end - first};
}

// R_(l-1) and its groups' columns: what the rows of R_l are made from.
struct Previous {
  const at::Tensor& rollout;  // [n, n]
  const GroupColumns& columns;
};

// Rows of Ahat_l R_(l-1) into `out` ([rows, n], rows from `first_row`, a multiple of kGroupRows),
// and their groups' columns into `out_columns`. Each group of kGroupRows rows at fixed positions
// multiplies only the rows of R_(l-1) where it holds a nonzero (the others add exact zeros), and of
// them only the columns where those rows may hold one: a local layer's group reads a band of R, a
// decoder's the rows of R up to its last and their columns up to it. A row's bits then hang on its
// group's columns alone, whoever cuts the rows into blocks and over whichever keys: groups over
// every row and column go in runs as long as the block allows (MKL gives a row of a product of 4
// rows or more the same bits whatever their number: model/reproducible_products.h), the text's
// last group, when shorter, alone and padded to kGroupRows.
void rollout_rows_into(const at::Tensor& out, const AhatRows& ahat, int64_t first_row, const Previous& previous,
                       GroupColumns& out_columns) {
  const int64_t count = ahat.rows.size(0), n = previous.rollout.size(0);
  int64_t run = 0;  // rows before `start` of groups over every row and column, not multiplied yet
  const auto multiply_run = [&](int64_t end) {
    if (run == 0) return;
    at::Tensor slot = out.narrow(0, end - run, run);
    at::matmul_out(slot, ahat.rows.narrow(0, end - run, run), previous.rollout);
    run = 0;
  };
  for (int64_t start = 0; start < count; start += kGroupRows) {
    const int64_t rows = std::min(kGroupRows, count - start);
    const KeySpan read = ahat.columns[static_cast<size_t>(start / kGroupRows)];
    const KeySpan reach = columns_of_rows(previous.columns, read);
    out_columns[static_cast<size_t>((first_row + start) / kGroupRows)] = reach;
    if (read.count == n && reach.count == n && rows == kGroupRows) {
      run += rows;
      continue;
    }
    multiply_run(start);
    at::Tensor a = ahat.rows.narrow(0, start, rows).narrow(1, read.first - ahat.first_key, read.count);
    if (rows < kGroupRows) a = at::cat({a, at::zeros({kGroupRows - rows, read.count}, a.options())});
    const at::Tensor b = previous.rollout.narrow(0, read.first, read.count).narrow(1, reach.first, reach.count);
    at::Tensor target = out.narrow(0, start, rows);
    if (reach.count < n) target.zero_();
    target.narrow(1, reach.first, reach.count).copy_(at::mm(a, b).narrow(0, 0, rows));
  }
  multiply_run(count);
}

int64_t groups_of(int64_t n) { return (n + kGroupRows - 1) / kGroupRows; }

}  // namespace

at::Tensor attention_rollout(const at::Tensor& layer_maps) {
  if (layer_maps.dim() != 3 || layer_maps.size(1) != layer_maps.size(2))
    throw Error("rollout needs [layers, n, n] maps");
  c10::InferenceMode guard;
  const at::Tensor maps = layer_maps.to(at::kFloat);
  at::Tensor out = at::empty_like(maps);
  const AhatRows first = residual_normalised(maps[0].clone(), 0, 0);
  out[0].copy_(first.rows);
  GroupColumns columns = first.columns, next(columns.size());
  for (int64_t l = 1; l < maps.size(0); ++l) {
    rollout_rows_into(out[l], residual_normalised(maps[l].clone(), 0, 0), 0, {out[l - 1], columns}, next);
    std::swap(columns, next);
  }
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
AhatRows residual_rows(const LayerMapRows& maps, int64_t layer, RowSpan rows) {
  const LayerMapBlock m = holding_own_keys(maps(layer, rows), rows);
  // A copy: the rows handed out may be a view of maps someone keeps.
  return residual_normalised(m.rows.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true).contiguous(), rows.first,
                             m.keys.first);
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
  GroupColumns columns, next_columns(static_cast<size_t>(groups_of(n)));
  for (const auto& [first, count] : blocks) {
    const AhatRows ahat = residual_rows(maps, 0, {first, count});
    at::Tensor rows = rollout.narrow(0, first, count);
    rows.zero_();
    rows.narrow(1, ahat.first_key, ahat.rows.size(1)).copy_(ahat.rows);
    columns.insert(columns.end(), ahat.columns.begin(), ahat.columns.end());
  }
  if (each_layer) each_layer(0, rollout);
  for (int64_t l = 1; l <= last; ++l) {
    if (!next.defined()) next = mapped_empty({n, n});
    for (const auto& [first, count] : blocks)
      rollout_rows_into(next.narrow(0, first, count), residual_rows(maps, l, {first, count}), first, {rollout, columns},
                        next_columns);
    std::swap(rollout, next);
    std::swap(columns, next_columns);
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
