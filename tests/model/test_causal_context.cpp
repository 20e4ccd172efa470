// A causal layer's head outputs C = A V in blocks of rows at fixed positions (causal_context.h):
// within rounding of one product over every key; each row the same bits whatever the text's length
// (where one product over every key was not: the lengths below include 385 and 513, where it
// differed); rows given a few at a time, from any first row, the same bits as all at once. The same
// for a sliding-window layer's, whose blocks leave out the keys before their window.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "model/causal_context.h"

namespace attnscope {
namespace {

// Causal maps of n tokens (softmax of random scores, keys after each row masked, and with a
// `window` those more than `window` before it) and values, for 3 heads; the first m tokens' are the
// same numbers cut to m.
struct Layer {
  at::Tensor maps, values;
  int64_t window = -1;
};
Layer layer_of(int64_t n, int64_t seed, int64_t window = -1) {
  at::manual_seed(seed);
  at::Tensor left_out = at::ones({n, n}, at::kBool).triu(1);
  if (window >= 0) left_out = left_out.logical_or(at::ones({n, n}, at::kBool).tril(-window - 1));
  const at::Tensor scores = at::randn({3, n, n}).masked_fill(left_out, std::numeric_limits<float>::lowest());
  return {at::_softmax(scores, -1, false), at::randn({3, n, 16}), window};
}

at::Tensor context_of(const Layer& layer) {
  at::Tensor out = at::empty({3, layer.maps.size(1), 16});
  causal_context_into(out, layer.maps, layer.values, 0, layer.window);
  return out;
}

TEST(CausalContext, IsTheProductOverEveryKeyWithinRounding) {
  for (const int64_t n : {1, 5, 64, 100, 200}) {
    const Layer layer = layer_of(n, n);
    EXPECT_TRUE(at::allclose(context_of(layer), at::bmm(layer.maps, layer.values), 1e-5, 1e-6)) << n << " tokens";
  }
}

TEST(CausalContext, ARowHasTheSameBitsWhateverTheTextsLength) {
  for (const auto& [shorter, longer] : {std::pair<int64_t, int64_t>{384, 385}, {512, 513}, {100, 129}, {60, 64}}) {
    const Layer whole = layer_of(longer, 7);
    const Layer cut{whole.maps.narrow(1, 0, shorter).narrow(2, 0, shorter).contiguous(),
                    whole.values.narrow(1, 0, shorter).contiguous()};
    EXPECT_TRUE(at::equal(context_of(cut), context_of(whole).narrow(1, 0, shorter)))
        << shorter << " and " << longer << " tokens";
  }
}

TEST(CausalContext, RowsGivenAFewAtATimeAreThoseGivenAllAtOnce) {
  const Layer layer = layer_of(150, 3);
  const at::Tensor whole = context_of(layer);
  for (const int64_t step : {7, 64, 100}) {
    at::Tensor pieces = at::empty_like(whole);
    for (int64_t first = 0; first < 150; first += step) {
      const int64_t count = std::min<int64_t>(step, 150 - first);
      causal_context_into(pieces.narrow(1, first, count), layer.maps.narrow(1, first, count), layer.values, first);
    }
    EXPECT_TRUE(at::equal(pieces, whole)) << "rows " << step << " at a time";
  }
}

// A sliding-window layer's: the keys before each block's window are left out of its product, with
// the same results (within rounding of one product over every key, the same bits whatever the
// text's length and however many rows are given at once), windows narrower and wider than a block.
TEST(CausalContextOfAWindow, IsTheProductOverEveryKeyWithinRounding) {
  for (const int64_t window : {0, 5, 64, 100, 1000})
    for (const int64_t n : {1, 70, 200, 385}) {
      const Layer layer = layer_of(n, n, window);
      EXPECT_TRUE(at::allclose(context_of(layer), at::bmm(layer.maps, layer.values), 1e-5, 1e-6))
          << n << " tokens, window " << window;
    }
}

TEST(CausalContextOfAWindow, ARowHasTheSameBitsWhateverTheTextsLength) {
  for (const int64_t window : {5, 100})
    for (const auto& [shorter, longer] : {std::pair<int64_t, int64_t>{384, 385}, {200, 513}, {100, 129}}) {
      const Layer whole = layer_of(longer, 7, window);
      const Layer cut{whole.maps.narrow(1, 0, shorter).narrow(2, 0, shorter).contiguous(),
                      whole.values.narrow(1, 0, shorter).contiguous(), window};
      EXPECT_TRUE(at::equal(context_of(cut), context_of(whole).narrow(1, 0, shorter)))
          << shorter << " and " << longer << " tokens, window " << window;
    }
}

TEST(CausalContextOfAWindow, RowsGivenAFewAtATimeAreThoseGivenAllAtOnce) {
  const Layer layer = layer_of(300, 3, 70);
  const at::Tensor whole = context_of(layer);
  for (const int64_t step : {7, 64, 100}) {
    at::Tensor pieces = at::empty_like(whole);
    for (int64_t first = 0; first < 300; first += step) {
      const int64_t count = std::min<int64_t>(step, 300 - first);
      causal_context_into(pieces.narrow(1, first, count), layer.maps.narrow(1, first, count), layer.values, first, 70);
    }
    EXPECT_TRUE(at::equal(pieces, whole)) << "rows " << step << " at a time";
  }
}

}  // namespace
}  // namespace attnscope
