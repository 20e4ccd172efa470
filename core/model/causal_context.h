#pragma once
// A causal layer's head outputs C = A V made so that a row's bits do not hang on the text's length.
// One product over every key sums each row over n keys, and MKL orders a sum by the shape it is
// given: the same row of a text of n tokens and of its first n - 1 came out a bit apart (measured:
// half the rows at 385 and 513 tokens, none at 128 or 1,025). Here the rows go in blocks of
// kCausalContextRows at fixed positions, a block summing over the keys up to its end (a causal
// row's later keys weigh zero), padded with zero rows and keys where the text ends inside it: every
// block's product has one shape whatever n, so a text continued from a shorter one's rows
// (model/transformer.h: ForwardPrefix) has the bits of a run from scratch. It also skips the keys
// after each block, half of the product, and in a sliding-window layer the keys before the window of
// the block's first row too (from a multiple of kCausalContextRows, so that the block's shape still
// hangs on its position alone): at 8,192 tokens and a window of 512, about a seventh of the
// product.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace attnscope {

inline constexpr int64_t kCausalContextRows = 64;

// Rows [first, first + count) of A V into `out` [BH, count, d] (a view is written through):
// `attention_rows` [BH, count, n], those rows of the maps, zero at keys after each row; `values`
// [BH, n, d]. Where the rows start or end inside a block, the block is made with zero rows there.
// `window` (a sliding-window layer's): zero also at keys more than `window` before each row; < 0:
// none.
void causal_context_into(const at::Tensor& out, const at::Tensor& attention_rows, const at::Tensor& values,
                         int64_t first, int64_t window = -1);

}  // namespace attnscope
