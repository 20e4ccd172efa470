#pragma once
// A block of query rows of a layer's maps, held over the keys those rows may see: what a long
// text's forward makes, block by block, and hands to whoever reads the maps as they go (the head
// outputs, the column sums, the overview's pooling). A decoder's block sees no key after its last
// row, a sliding-window layer's block a band: at 8,192 tokens a ModernBERT local layer's block of
// 128 rows sees 256 keys of 8,192, and filling the rest with zeros cost more than its product.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/row_span.h"

namespace attnscope {

struct AttentionBlock {
  at::Tensor maps;  // [B, H, rows.count, keys.count]; every key outside `keys` weighs exactly 0
  RowSpan rows;     // the query rows, count given
  KeySpan keys;     // the keys held, count given
  int64_t n = 0;    // the keys in all
  // A later forward of a text sharing the tokens before its first row may make the blocks from this
  // one on alone (ColumnSumsBefore): whoever reads the blocks keeps what it needs to pick up here.
  bool resumable = false;

  // The same rows over every key, [B, H, rows.count, n]: `maps` itself when it holds them all.
  at::Tensor whole() const;
  // The same rows over keys `over` (holding `keys`), [B, H, rows.count, over.count]: `maps` itself
  // where they are the keys it holds.
  at::Tensor over(KeySpan over) const;
};

}  // namespace attnscope
