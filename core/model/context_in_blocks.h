#pragma once
// The head outputs C = A V of a layer whose rows see only some keys (a decoder's, causal; a
// sliding-window layer's, its band), made in blocks of kContextBlockRows rows at fixed positions,
// each over the keys its rows may read, so that a row's bits hang on its position alone.
//
// A causal layer: one product over every key sums each row over n keys, and MKL orders a sum by
// the shape it is given: the same row of a text of n tokens and of its first n - 1 came out a bit
// apart (measured: half the rows at 385 and 513 tokens, none at 128 or 1,025). Here a block sums
// over the keys up to its end (a causal row's later keys weigh zero), padded with zero rows and
// keys where the text ends inside it: every block's product has one shape whatever n, so a text
// continued from a shorter one's rows (model/transformer.h: ForwardPrefix) has the bits of a run
// from scratch. It also skips the keys after each block, half of the product.
//
// A sliding-window layer (a decoder's, or an encoder's as ModernBERT's local layers): a block
// also leaves out the keys before its first row's window, from a multiple of kContextBlockRows so
// that its shape still hangs on its position alone, and an encoder's block those after its last
// row's window, up to the next such multiple. At 8,192 tokens the product over every key took
// about 0.5 s of each of ModernBERT-base's 14 local layers (torch's bmm alone, two threads); in
// blocks a row reads 192 keys. A layer whose rows see every key (an encoder's global layer) is one
// product.
//
// Off the CPU a block of rows is one product over the keys it holds (ContextProducts::OneProduct):
// there the matrix library picks its kernels by shape and a continued forward's other products
// (the projections of its later rows) differ from a run from scratch anyway, so blocks at fixed
// positions buy no bits, and each is a launch of its own: on an H200 at 2,048 tokens of SmolLM2's
// shape, 960 of them took about 30 ms of a 70 ms forward (bench/RESULTS.md, "Decoders on the GPU").
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/attention_block.h"

namespace attnscope {

inline constexpr int64_t kContextBlockRows = 64;

// The keys each row of a layer may read: a causal row's up to itself; in a sliding-window layer
// (`window` >= 0) those within `window` positions (before it only, where causal).
struct ContextReach {
  bool causal = false;
  int64_t window = -1;
  bool every_key() const { return !causal && window < 0; }
};

// How a block of rows is cut into products.
enum class ContextProducts {
  ByDevice,    // ByPosition on the CPU, OneProduct on any other device
  ByPosition,  // blocks of kContextBlockRows rows at fixed positions, each over the keys it reads
  OneProduct,  // one product over the keys `block` holds (a row's masked keys weigh zero)
};

// The rows of `block` times `values` [BH, n, d] into `out` [BH, block.rows.count, d] (a view is
// written through); `block`'s maps viewed as [BH, rows, keys], zero wherever `reach` says a row
// reads nothing. By position: where the rows start or end inside a block of kContextBlockRows, or
// it reads keys that `block` does not hold, the block is made with zero rows and keys there.
void context_in_blocks_into(const at::Tensor& out, const AttentionBlock& block, const at::Tensor& values,
                            ContextReach reach, ContextProducts products = ContextProducts::ByDevice);

// `values` [BH, n, d] laid out once for a layer's blocks: contiguous where the device's products go
// by position (one layout for every block's product), as given where they are one product.
at::Tensor context_values(const at::Tensor& values, ContextReach reach);

}  // namespace attnscope
