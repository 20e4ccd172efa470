#include "model/context_in_blocks.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "model/reproducible_products.h"

namespace attnscope {

namespace {

constexpr int64_t P = kContextBlockRows;

int64_t down_to_block(int64_t i) { return i / P * P; }
int64_t up_to_block(int64_t i) { return in_whole_groups(i, P); }

// The keys the block of rows [start, start + P) reads of n: from its first row's window, down to a
// block's start; to its end where causal (past n: zero keys), or its last row's window, up to a
// block's end, within n.
KeySpan keys_read(int64_t start, int64_t n, ContextReach reach) {
  const int64_t end = start + P;
  const int64_t from = reach.window < 0 || start - reach.window <= 0 ? 0 : down_to_block(start - reach.window);
  const int64_t to = reach.causal ? end : reach.window < 0 ? n : std::min(n, up_to_block(end + reach.window));
  return {from, to - from};
}

// Rows [given.first, given.first + given.count) of block [start, start + P) over the keys `read`,
// made whole with zero rows and keys where `rows` holds none, times the values' rows (zero past n).
at::Tensor padded_product(const at::Tensor& rows, const AttentionBlock& block, const at::Tensor& values, int64_t start,
                          RowSpan given, KeySpan read) {
  const int64_t BH = values.size(0), n = values.size(1), d = values.size(2);
  at::Tensor a = at::zeros({BH, P, read.count}, rows.options());
  const int64_t from = std::max(read.first, block.keys.first);
  const int64_t to = std::min(read.first + read.count, block.keys.first + block.keys.count);
  if (to > from)
    a.narrow(1, given.first - start, given.count)
        .narrow(2, from - read.first, to - from)
        .copy_(
            rows.narrow(1, given.first - block.rows.first, given.count).narrow(2, from - block.keys.first, to - from));
  const int64_t held = std::min(read.first + read.count, n) - read.first;
  at::Tensor v = values.narrow(1, read.first, held);
  if (held < read.count) v = at::cat({v, at::zeros({BH, read.count - held, d}, values.options())}, 1);
  return at::bmm(a, v);
}

ContextProducts resolved(ContextProducts products, const at::Tensor& values) {
  if (products != ContextProducts::ByDevice) return products;
  return values.is_cpu() ? ContextProducts::ByPosition : ContextProducts::OneProduct;
}

}  // namespace

at::Tensor context_values(const at::Tensor& values, ContextReach reach) {
  const bool by_position =
      !reach.every_key() && resolved(ContextProducts::ByDevice, values) == ContextProducts::ByPosition;
  return by_position ? values.contiguous() : values;
}

void context_in_blocks_into(const at::Tensor& out, const AttentionBlock& block, const at::Tensor& values,
                            ContextReach reach, ContextProducts products) {
  if (resolved(products, values) == ContextProducts::OneProduct) {
    const int64_t BH = values.size(0);
    out.copy_(at::bmm(block.maps.reshape({BH, block.rows.count, block.keys.count}),
                      values.narrow(1, block.keys.first, block.keys.count)));
    return;
  }
  const at::Tensor v = values.contiguous();  // one layout for every block's product (a copy unless it is already)
  const int64_t BH = v.size(0), n = v.size(1);
  const at::Tensor rows = block.maps.reshape({BH, block.rows.count, block.keys.count});
  const int64_t first = block.rows.first, last = first + block.rows.count;
  for (int64_t start = down_to_block(first); start < last; start += P) {
    const int64_t end = start + P, from = std::max(start, first), to = std::min(end, last);
    const KeySpan read = keys_read(start, n, reach);
    const bool held = read.first >= block.keys.first && read.first + read.count <= block.keys.first + block.keys.count;
    const at::Tensor product =
        from == start && to == end && held
            ? at::bmm(rows.narrow(1, start - first, P).narrow(2, read.first - block.keys.first, read.count),
                      v.narrow(1, read.first, read.count))
            : padded_product(rows, block, v, start, {from, to - from}, read);
    out.narrow(1, from - first, to - from).copy_(product.narrow(1, from - start, to - from));
  }
}

}  // namespace attnscope
