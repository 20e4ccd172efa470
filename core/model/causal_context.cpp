#include "model/causal_context.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "model/row_span.h"

namespace attnscope {

namespace {

// Block [start, start + kCausalContextRows) of the rows times the values over its keys [keys_from,
// end), made whole from the rows [from, to) given (zero rows elsewhere) and the values' rows (zero
// past the text).
at::Tensor padded_block(const at::Tensor& attention_rows, const at::Tensor& values, int64_t first, int64_t start,
                        RowSpan given, int64_t keys_from) {
  const int64_t BH = values.size(0), n = values.size(1), end = start + kCausalContextRows;
  const int64_t keys = std::min(end, n) - keys_from;
  at::Tensor a = at::zeros({BH, kCausalContextRows, end - keys_from}, attention_rows.options());
  a.narrow(1, given.first - start, given.count)
      .narrow(2, 0, keys)
      .copy_(attention_rows.narrow(1, given.first - first, given.count).narrow(2, keys_from, keys));
  at::Tensor v = values.narrow(1, keys_from, keys);
  if (keys_from + keys < end)
    v = at::cat({v, at::zeros({BH, end - keys_from - keys, values.size(2)}, values.options())}, 1);
  return at::bmm(a, v);
}

// The first key a block starting at `start` reads: its first row's window's, down to a block's
// start.
int64_t first_key_read(int64_t start, int64_t window) {
  if (window < 0 || start - window <= 0) return 0;
  return (start - window) / kCausalContextRows * kCausalContextRows;
}

}  // namespace

void causal_context_into(const at::Tensor& out, const at::Tensor& attention_rows, const at::Tensor& values,
                         int64_t first, int64_t window) {
  const at::Tensor v = values.contiguous();  // one layout for every block's product (a copy unless it is already)
  const int64_t n = v.size(1), last = first + attention_rows.size(1), P = kCausalContextRows;
  for (int64_t start = first / P * P; start < last; start += P) {
    const int64_t end = start + P, from = std::max(start, first), to = std::min(end, last);
    const int64_t keys_from = first_key_read(start, window);
    const at::Tensor product =
        from == start && to == end && end <= n
            ? at::bmm(attention_rows.narrow(1, start - first, P).narrow(2, keys_from, end - keys_from),
                      v.narrow(1, keys_from, end - keys_from))
            : padded_block(attention_rows, v, first, start, {from, to - from}, keys_from);
    out.narrow(1, from - first, to - from).copy_(product.narrow(1, from - start, to - from));
  }
}

}  // namespace attnscope
