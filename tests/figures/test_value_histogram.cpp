// The histogram a long text's clipped colour scale reads its percentile from: hand-counted cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "figures/value_histogram.h"

namespace attnscope {
namespace {

TEST(ValueHistogram, ReadsTheKthValueToWithinAThousandth) {
  std::vector<float> values;
  for (int k = 1000; k >= 1; --k) values.push_back(static_cast<float>(k) / 7.0f);  // out of order
  ValueHistogram h(false);
  h.add(values.data(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(h.count(), 1000);
  for (int k : {0, 10, 499, 989, 999}) EXPECT_NEAR(h.kth(k), (k + 1) / 7.0, (k + 1) / 7.0 * 1e-3) << k;
}

TEST(ValueHistogram, OrdersNegativeValuesAndCountsMagnitudesWhenAbsolute) {
  const std::vector<float> values = {-3.0f, 2.0f, -0.5f, 0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
  ValueHistogram signed_values(false), magnitudes(true);
  signed_values.add(values.data(), 6);
  magnitudes.add(values.data(), 6);
  EXPECT_EQ(signed_values.count(), 5);  // NaN skipped
  EXPECT_NEAR(signed_values.kth(0), -3.0, 3e-3);
  EXPECT_NEAR(signed_values.kth(1), -0.5, 5e-4);
  EXPECT_NEAR(signed_values.kth(2), 0.0, 1e-30);
  EXPECT_NEAR(signed_values.kth(4), 2.0, 2e-3);
  EXPECT_NEAR(magnitudes.kth(4), 3.0, 3e-3);  // |-3| is the largest
  EXPECT_NEAR(magnitudes.kth(1), 0.5, 5e-4);
  EXPECT_EQ(ValueHistogram(false).kth(0), 0.0);  // nothing counted
}

// Zeros (counted apart from the bins) take their place among the values: below the positive
// ones, above the negative, -0 with them when magnitudes are counted.
TEST(ValueHistogram, CountsZerosInTheirPlace) {
  std::vector<float> values(600, 0.0f);
  for (int k = 1; k <= 300; ++k) values.push_back(static_cast<float>(k));
  for (int k = 1; k <= 100; ++k) values.push_back(-static_cast<float>(k));
  values.push_back(-0.0f);
  ValueHistogram signed_values(false), magnitudes(true);
  signed_values.add(values.data(), static_cast<int64_t>(values.size()));
  magnitudes.add(values.data(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(signed_values.count(), 1001);
  EXPECT_NEAR(signed_values.kth(99), -1.0, 1e-3);
  EXPECT_NEAR(signed_values.kth(100), 0.0, 1e-30);  // -0
  EXPECT_NEAR(signed_values.kth(700), 0.0, 1e-30);
  EXPECT_NEAR(signed_values.kth(701), 1.0, 1e-3);
  EXPECT_NEAR(signed_values.kth(1000), 300.0, 0.3);
  EXPECT_EQ(magnitudes.count(), 1001);
  EXPECT_NEAR(magnitudes.kth(600), 0.0, 1e-30);  // both zeros' 601
  EXPECT_NEAR(magnitudes.kth(601), 1.0, 1e-3);
  EXPECT_NEAR(magnitudes.kth(1000), 300.0, 0.3);
}

// Two histograms of two halves (the Head view's top level counts a block's halves on two threads)
// added together read as one of the whole: zeros, NaN and every k.
TEST(ValueHistogram, TwoHalvesAddedUpReadAsTheWhole) {
  std::vector<float> values = {0.0f, std::numeric_limits<float>::quiet_NaN(), -2.5f};
  for (int k = 1; k <= 500; ++k) values.push_back(static_cast<float>((k * 37) % 101) / 9.0f);
  ValueHistogram whole(false), first(false), second(false);
  whole.add(values.data(), static_cast<int64_t>(values.size()));
  first.add(values.data(), 250);
  second.add(values.data() + 250, static_cast<int64_t>(values.size()) - 250);
  first.add(second);
  EXPECT_EQ(first.count(), whole.count());
  EXPECT_EQ(first.count(), 502);  // NaN skipped
  for (int64_t k = 0; k < whole.count(); ++k) ASSERT_EQ(first.kth(k), whole.kth(k)) << k;
}

}  // namespace
}  // namespace attnscope
