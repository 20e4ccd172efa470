// A causal layer's head outputs C = A V in blocks of rows at fixed positions (context_in_blocks.h):
// within rounding of one product over every key; each row the same bits whatever the text's length
// (where one product over every key was not: the lengths below include 385 and 513, where it
// differed); rows given a few at a time, from any first row, the same bits as all at once. The same
// for a sliding-window layer's, whose blocks leave out the keys before their window. Off the CPU,
// one product a block, within rounding.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "model/context_in_blocks.h"

namespace attnscope {
namespace {

// Causal maps of n tokens (softmax of random scores, keys after each row masked, and with a
// `window` those more than `window` before it; not causal, those more than `window` either side)
// and values, for 3 heads; the first m tokens' are the same numbers cut to m.
struct Layer {
  at::Tensor maps, values;
  int64_t window = -1;
  bool causal = true;
  ContextReach reach() const { return {.causal = causal, .window = window}; }
};
Layer layer_of(int64_t n, int64_t seed, int64_t window = -1, bool causal = true) {
  at::manual_seed(seed);
  at::Tensor left_out = causal ? at::ones({n, n}, at::kBool).triu(1) : at::zeros({n, n}, at::kBool);
  if (window >= 0) left_out = left_out.logical_or(at::ones({n, n}, at::kBool).tril(-window - 1));
  if (window >= 0 && !causal) left_out = left_out.logical_or(at::ones({n, n}, at::kBool).triu(window + 1));
  const at::Tensor scores = at::randn({3, n, n}).masked_fill(left_out, std::numeric_limits<float>::lowest());
  return {at::_softmax(scores, -1, false), at::randn({3, n, 16}), window, causal};
}

// Rows [first, first + count) of the layer's maps over every key.
AttentionBlock rows_of(const Layer& layer, int64_t first = 0, int64_t count = -1) {
  const int64_t n = layer.maps.size(2);
  count = count < 0 ? n - first : count;
  return {layer.maps.narrow(1, first, count), {first, count}, {0, n}, n};
}

void causal_rows_into(const at::Tensor& out, const at::Tensor& rows, const at::Tensor& values, int64_t first,
                      int64_t window = -1) {
  const int64_t n = rows.size(2);
  context_in_blocks_into(out, {rows, {first, rows.size(1)}, {0, n}, n}, values, {.causal = true, .window = window});
}

at::Tensor context_of(const Layer& layer) {
  at::Tensor out = at::empty({3, layer.maps.size(1), 16});
  context_in_blocks_into(out, rows_of(layer), layer.values, layer.reach());
  return out;
}

TEST(ContextInBlocksCausal, IsTheProductOverEveryKeyWithinRounding) {
  for (const int64_t n : {1, 5, 64, 100, 200}) {
    const Layer layer = layer_of(n, n);
    EXPECT_TRUE(at::allclose(context_of(layer), at::bmm(layer.maps, layer.values), 1e-5, 1e-6)) << n << " tokens";
  }
}

TEST(ContextInBlocksCausal, ARowHasTheSameBitsWhateverTheTextsLength) {
  for (const auto& [shorter, longer] : {std::pair<int64_t, int64_t>{384, 385}, {512, 513}, {100, 129}, {60, 64}}) {
    const Layer whole = layer_of(longer, 7);
    const Layer cut{whole.maps.narrow(1, 0, shorter).narrow(2, 0, shorter).contiguous(),
                    whole.values.narrow(1, 0, shorter).contiguous()};
    EXPECT_TRUE(at::equal(context_of(cut), context_of(whole).narrow(1, 0, shorter)))
        << shorter << " and " << longer << " tokens";
  }
}

TEST(ContextInBlocksCausal, RowsGivenAFewAtATimeAreThoseGivenAllAtOnce) {
  const Layer layer = layer_of(150, 3);
  const at::Tensor whole = context_of(layer);
  for (const int64_t step : {7, 64, 100}) {
    at::Tensor pieces = at::empty_like(whole);
    for (int64_t first = 0; first < 150; first += step) {
      const int64_t count = std::min<int64_t>(step, 150 - first);
      causal_rows_into(pieces.narrow(1, first, count), layer.maps.narrow(1, first, count), layer.values, first);
    }
    EXPECT_TRUE(at::equal(pieces, whole)) << "rows " << step << " at a time";
  }
}

// A sliding-window layer's: the keys before each block's window are left out of its product, with
// the same results (within rounding of one product over every key, the same bits whatever the
// text's length and however many rows are given at once), windows narrower and wider than a block.
TEST(ContextInBlocksOfAWindow, IsTheProductOverEveryKeyWithinRounding) {
  for (const int64_t window : {0, 5, 64, 100, 1000})
    for (const int64_t n : {1, 70, 200, 385}) {
      const Layer layer = layer_of(n, n, window);
      EXPECT_TRUE(at::allclose(context_of(layer), at::bmm(layer.maps, layer.values), 1e-5, 1e-6))
          << n << " tokens, window " << window;
    }
}

TEST(ContextInBlocksOfAWindow, ARowHasTheSameBitsWhateverTheTextsLength) {
  for (const int64_t window : {5, 100})
    for (const auto& [shorter, longer] : {std::pair<int64_t, int64_t>{384, 385}, {200, 513}, {100, 129}}) {
      const Layer whole = layer_of(longer, 7, window);
      const Layer cut{whole.maps.narrow(1, 0, shorter).narrow(2, 0, shorter).contiguous(),
                      whole.values.narrow(1, 0, shorter).contiguous(), window};
      EXPECT_TRUE(at::equal(context_of(cut), context_of(whole).narrow(1, 0, shorter)))
          << shorter << " and " << longer << " tokens, window " << window;
    }
}

TEST(ContextInBlocksOfAWindow, RowsGivenAFewAtATimeAreThoseGivenAllAtOnce) {
  const Layer layer = layer_of(300, 3, 70);
  const at::Tensor whole = context_of(layer);
  for (const int64_t step : {7, 64, 100}) {
    at::Tensor pieces = at::empty_like(whole);
    for (int64_t first = 0; first < 300; first += step) {
      const int64_t count = std::min<int64_t>(step, 300 - first);
      causal_rows_into(pieces.narrow(1, first, count), layer.maps.narrow(1, first, count), layer.values, first, 70);
    }
    EXPECT_TRUE(at::equal(pieces, whole)) << "rows " << step << " at a time";
  }
}

// An encoder's sliding-window layer (ModernBERT's local layers): a block reads the keys within the
// window of its rows, from and to a multiple of the block's rows; within rounding of one product
// over every key, and the same bits however many rows are given at once.
TEST(ContextInBlocksOfAnEncodersWindow, IsTheProductOverEveryKeyWithinRounding) {
  for (const int64_t window : {0, 5, 64, 100, 1000})
    for (const int64_t n : {1, 70, 200, 385}) {
      const Layer layer = layer_of(n, n, window, false);
      EXPECT_TRUE(at::allclose(context_of(layer), at::bmm(layer.maps, layer.values), 1e-5, 1e-6))
          << n << " tokens, window " << window;
    }
}

TEST(ContextInBlocksOfAnEncodersWindow, RowsGivenAFewAtATimeAreThoseGivenAllAtOnce) {
  const Layer layer = layer_of(300, 3, 70, false);
  const at::Tensor whole = context_of(layer);
  for (const int64_t step : {7, 64, 100}) {
    at::Tensor pieces = at::empty_like(whole);
    for (int64_t first = 0; first < 300; first += step) {
      const int64_t count = std::min<int64_t>(step, 300 - first);
      context_in_blocks_into(pieces.narrow(1, first, count), rows_of(layer, first, count), layer.values, layer.reach());
    }
    EXPECT_TRUE(at::equal(pieces, whole)) << "rows " << step << " at a time";
  }
}

// A block of rows held over some keys alone (the forward's: those its rows may see, widened to
// whole groups of the softmax's lanes) gives the bits of the same rows held over every key: the
// keys it reads are held (the usual case) or zero-padded where they are not (a block of rows that
// ends inside a block of products).
TEST(ContextInBlocks, RowsHeldOverSomeKeysAreThoseHeldOverEveryKey) {
  for (const bool causal : {true, false})
    for (const int64_t window : {-1, 40}) {
      if (!causal && window < 0) continue;  // every key: one product, not in blocks
      const Layer layer = layer_of(300, 5, window, causal);
      const at::Tensor whole = context_of(layer);
      for (const int64_t step : {64, 100, 128}) {
        at::Tensor pieces = at::empty_like(whole);
        for (int64_t first = 0; first < 300; first += step) {
          const int64_t count = std::min<int64_t>(step, 300 - first), last = first + count - 1;
          const int64_t from = window < 0 ? 0 : std::max<int64_t>(0, first - window) / 64 * 64;
          const int64_t to = causal ? last + 1 : std::min<int64_t>(300, last + window + 1);
          const AttentionBlock block{layer.maps.narrow(1, first, count).narrow(2, from, to - from).contiguous(),
                                     {first, count},
                                     {from, to - from},
                                     300};
          context_in_blocks_into(pieces.narrow(1, first, count), block, layer.values, layer.reach());
        }
        EXPECT_TRUE(at::equal(pieces, whole))
            << (causal ? "causal" : "encoder") << ", window " << window << ", rows " << step << " at a time";
      }
    }
}

// Off the CPU a block is one product over the keys it holds (ContextProducts::OneProduct), forced
// here on the CPU: within rounding of the product over every key, for rows held over every key or
// over some, causal or not, with a window or without; on the CPU the device's choice is by
// position (the bits of the tests above).
TEST(ContextInOneProduct, IsTheProductOverEveryKeyWithinRounding) {
  for (const bool causal : {true, false})
    for (const int64_t window : {-1, 0, 40, 1000}) {
      const Layer layer = layer_of(300, 9, window, causal);
      const at::Tensor expected = at::bmm(layer.maps, layer.values);
      for (const int64_t step : {7, 64, 113, 300}) {
        at::Tensor pieces = at::empty_like(expected);
        for (int64_t first = 0; first < 300; first += step) {
          const int64_t count = std::min<int64_t>(step, 300 - first), last = first + count - 1;
          const int64_t from = window < 0 ? 0 : std::max<int64_t>(0, first - window);
          const int64_t to = causal ? last + 1 : window < 0 ? 300 : std::min<int64_t>(300, last + window + 1);
          const AttentionBlock block{
              layer.maps.narrow(1, first, count).narrow(2, from, to - from), {first, count}, {from, to - from}, 300};
          context_in_blocks_into(pieces.narrow(1, first, count), block, layer.values, layer.reach(),
                                 ContextProducts::OneProduct);
        }
        EXPECT_TRUE(at::allclose(pieces, expected, 1e-5, 1e-6))
            << (causal ? "causal" : "encoder") << ", window " << window << ", rows " << step << " at a time";
      }
    }
}

TEST(ContextInOneProduct, TheCpusChoiceIsByPosition) {
  const Layer layer = layer_of(200, 4);
  at::Tensor by_position = at::empty({3, 200, 16}), chosen = at::empty({3, 200, 16});
  context_in_blocks_into(by_position, rows_of(layer), layer.values, layer.reach(), ContextProducts::ByPosition);
  context_in_blocks_into(chosen, rows_of(layer), layer.values, layer.reach());
  EXPECT_TRUE(at::equal(chosen, by_position));
}

}  // namespace
}  // namespace attnscope
