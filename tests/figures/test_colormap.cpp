// Colormap tables and the value-to-colour rule (ColorScale), by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "base/error.h"
#include "figures/colormap.h"
#include "figures/figure.h"

namespace attnscope {
namespace {

// Relative luminance (sRGB, linearised), enough to see that a map gets lighter.
double luminance(Rgb c) {
  const auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

TEST(Colormap, EndsAreThePublishedAnchorColours) {
  const Colormap& v = colormap(ColormapId::Viridis);
  EXPECT_NEAR(v.table.front().r, 0x44 / 255.0, 1e-6);
  EXPECT_NEAR(v.table.front().g, 0x01 / 255.0, 1e-6);
  EXPECT_NEAR(v.table.front().b, 0x54 / 255.0, 1e-6);
  EXPECT_NEAR(v.table.back().r, 0xFD / 255.0, 1e-6);
  EXPECT_NEAR(v.table.back().g, 0xE7 / 255.0, 1e-6);
  EXPECT_NEAR(v.table.back().b, 0x25 / 255.0, 1e-6);
}

TEST(Colormap, SequentialMapsGetLighterAllTheWay) {
  for (ColormapId id : {ColormapId::Viridis, ColormapId::Magma, ColormapId::HighContrast}) {
    const Colormap& m = colormap(id);
    for (size_t i = 1; i < m.table.size(); ++i)
      EXPECT_GT(luminance(m.table[i]), luminance(m.table[i - 1]) - 1e-4) << m.name << " at " << i;
    EXPECT_FALSE(m.diverging);
  }
}

TEST(Colormap, DivergingMapIsLightInTheMiddleAndBalanced) {
  const Colormap& d = colormap(ColormapId::Diverging);
  EXPECT_TRUE(d.diverging);
  const Rgb mid = d.at(0.5);
  EXPECT_GT(luminance(mid), 0.85);
  for (size_t k = 0; k < 128; k += 8) EXPECT_NEAR(luminance(d.table[k]), luminance(d.table[255 - k]), 0.08) << k;
  EXPECT_GT(d.at(0.0).b, d.at(0.0).r);  // negative: blue
  EXPECT_GT(d.at(1.0).r, d.at(1.0).b);  // positive: red
}

TEST(Colormap, AtClampsAndTreatsNanAsTheLowEnd) {
  const Colormap& v = colormap(ColormapId::Viridis);
  EXPECT_EQ(v.at(-3).r, v.table.front().r);
  EXPECT_EQ(v.at(7).g, v.table.back().g);
  EXPECT_EQ(v.at(std::nan("")).b, v.table.front().b);
}

TEST(Colormap, Names) {
  for (ColormapId id : all_colormaps()) EXPECT_EQ(colormap_by_name(colormap(id).name), id);
  EXPECT_THROW(colormap_by_name("jet"), Error);
}

TEST(ColorScale, Linear) {
  const ColorScale s{2, 6, ValueScale::Linear, false};
  EXPECT_DOUBLE_EQ(s.position(2), 0.0);
  EXPECT_DOUBLE_EQ(s.position(3), 0.25);
  EXPECT_DOUBLE_EQ(s.position(6), 1.0);
  EXPECT_DOUBLE_EQ(s.position(10), 1.0);
  EXPECT_DOUBLE_EQ(s.position(0), 0.0);
  EXPECT_TRUE(std::isnan(s.position(std::nan(""))));
  EXPECT_DOUBLE_EQ((ColorScale{1, 1, ValueScale::Linear, false}.position(1)), 0.5);  // a constant map
}

TEST(ColorScale, LogSpansThreeDecadesBelowTheTop) {
  const ColorScale s{0, 1, ValueScale::Log, false};
  EXPECT_DOUBLE_EQ(s.position(1), 1.0);
  EXPECT_NEAR(s.position(0.1), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(s.position(0.01), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.position(0.001), 0.0);
  EXPECT_DOUBLE_EQ(s.position(0), 0.0);
  EXPECT_DOUBLE_EQ(s.position(-5), 0.0);
}

TEST(ColorScale, SymmetricCentresZero) {
  const ColorScale s{-1, 4, ValueScale::Linear, true};  // limit 4
  EXPECT_DOUBLE_EQ(s.position(0), 0.5);
  EXPECT_DOUBLE_EQ(s.position(4), 1.0);
  EXPECT_DOUBLE_EQ(s.position(-4), 0.0);
  EXPECT_DOUBLE_EQ(s.position(-1), 0.375);
  EXPECT_DOUBLE_EQ(s.position(2), 0.75);
}

// A similarity map on the clipped scale (the explorer's default) is linear up to the 99th
// percentile of |S|, as the legend says: it was coloured by the symmetric log, which drew a value at
// a ninth of the limit at 0.84 of the scale (SmolLM2's first head: nearly every cell dark red).
TEST(ColorScale, ASignedMapClippedIsLinearUpToItsPercentile) {
  std::vector<float> values;
  for (int v = -100; v <= 100; ++v) values.push_back(static_cast<float>(v) / 100);  // 201 values
  const ColorScale s = color_scale_for(values, ValueScale::Clipped, true);
  EXPECT_FLOAT_EQ(static_cast<float>(s.hi), 0.99f);  // the 199th smallest |v| of 201: two above it
  EXPECT_DOUBLE_EQ(s.position(0), 0.5);
  EXPECT_NEAR(s.position(0.11), 0.5 + 0.5 * 0.11 / s.hi, 1e-12);
  EXPECT_NEAR(s.position(-0.495), 0.25, 1e-6);
  EXPECT_DOUBLE_EQ(s.position(1.0), 1.0);  // the top 1% in the top colour
}

TEST(ColorScale, SymmetricLogIsOddAndMonotone) {
  const ColorScale s{-2, 2, ValueScale::Log, true};
  EXPECT_DOUBLE_EQ(s.position(0), 0.5);
  EXPECT_DOUBLE_EQ(s.position(2), 1.0);
  EXPECT_DOUBLE_EQ(s.position(-2), 0.0);
  // c = 2e-3: symlog(x) = log10(1 + x / c); position = 0.5 + 0.5 symlog(x) / symlog(2)
  EXPECT_NEAR(s.position(0.2), 0.5 + 0.5 * std::log10(101.0) / std::log10(1001.0), 1e-12);
  EXPECT_NEAR(s.position(-0.2), 1 - s.position(0.2), 1e-12);
  EXPECT_LT(s.position(0.1), s.position(0.2));
}

TEST(ColorScale, StraightScalesHaveAnAffineFormThatAgreesWithPosition) {
  const auto factor_offset = [](const ColorScale& s) {
    const auto a = s.affine();
    return a ? std::pair<double, double>{a->factor, a->offset} : std::pair<double, double>{NAN, NAN};
  };
  // By hand: (v - 2) / 4 = v / 4 - 0.5; clipped is the same line; symmetric 0.5 + 0.5 v / 4.
  EXPECT_EQ(factor_offset({2, 6, ValueScale::Linear, false}), (std::pair<double, double>{0.25, -0.5}));
  EXPECT_EQ(factor_offset({2, 6, ValueScale::Clipped, false}), (std::pair<double, double>{0.25, -0.5}));
  EXPECT_EQ(factor_offset({-1, 4, ValueScale::Linear, true}), (std::pair<double, double>{0.125, 0.5}));
  EXPECT_EQ(factor_offset({1, 1, ValueScale::Linear, false}),
            (std::pair<double, double>{0, 0.5}));  // constant map: mid-scale
  EXPECT_EQ(factor_offset({0, 0, ValueScale::Linear, true}), (std::pair<double, double>{0, 0.5}));
  EXPECT_EQ(factor_offset({-2, 2, ValueScale::Clipped, true}), (std::pair<double, double>{0.25, 0.5}));
  // Log scales, the symmetric log among them, are not straight lines.
  EXPECT_FALSE((ColorScale{0, 1, ValueScale::Log, false}.affine()));
  EXPECT_FALSE((ColorScale{-2, 2, ValueScale::Log, true}.affine()));
  for (const ColorScale& s :
       {ColorScale{2, 6, ValueScale::Linear, false}, ColorScale{-3, 0.5, ValueScale::Clipped, false},
        ColorScale{-1, 4, ValueScale::Linear, true}, ColorScale{7, 7, ValueScale::Clipped, false},
        ColorScale{-2, 2, ValueScale::Clipped, true}})
    for (double v = -8; v <= 8; v += 0.37) {
      const auto a = s.affine();
      ASSERT_TRUE(a);
      EXPECT_NEAR(std::clamp(v * a->factor + a->offset, 0.0, 1.0), s.position(v), 1e-12) << v;
    }
}

TEST(ColorScale, ValueRangeIgnoresNan) {
  EXPECT_EQ(value_range({3, std::nanf(""), -1, 2}), (std::pair<double, double>{-1, 3}));
  EXPECT_EQ(value_range({std::nanf("")}), (std::pair<double, double>{0, 1}));
  EXPECT_EQ(value_range({}), (std::pair<double, double>{0, 1}));
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

// The percentile found near the top with a small heap is the order statistic a full sort gives,
// for any size, with ties, NaN cells and signs.
TEST(ColorScale, ClippedTopIsTheNearestRankPercentileOfAnySizedMap) {
  std::mt19937 random(7);
  for (size_t n : {1u, 2u, 99u, 100u, 101u, 4096u, 5000u}) {
    std::vector<float> values(n);
    for (float& v : values) v = static_cast<float>(std::uniform_int_distribution<int>(-50, 50)(random)) / 8;  // ties
    if (n > 2) values[n / 2] = std::nanf("");
    for (bool symmetric : {false, true}) {
      std::vector<float> sorted;
      for (float v : values)
        if (!std::isnan(v)) sorted.push_back(symmetric ? std::abs(v) : v);
      std::sort(sorted.begin(), sorted.end());
      const auto k = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(sorted.size()))) - 1;
      const ColorScale c = color_scale_for(values, ValueScale::Clipped, symmetric);
      if (symmetric)
        EXPECT_DOUBLE_EQ(c.hi, sorted[k]) << n;
      else
        EXPECT_DOUBLE_EQ(c.hi, sorted[k] > sorted.front() ? sorted[k] : sorted.back()) << n;
    }
  }
}

TEST(ColorScale, ClippedStopsAtThe99thPercentile) {
  std::vector<float> values;
  for (int v = 1; v <= 200; ++v) values.push_back(static_cast<float>(v));
  const ColorScale clipped = color_scale_for(values, ValueScale::Clipped, false);
  EXPECT_DOUBLE_EQ(clipped.lo, 1.0);
  EXPECT_DOUBLE_EQ(clipped.hi, 198.0);  // the 198th of 200 values: 1% (2 values) above it
  EXPECT_DOUBLE_EQ(clipped.position(198.0), 1.0);
  EXPECT_DOUBLE_EQ(clipped.position(200.0), 1.0);  // the top 1% in the top colour
  EXPECT_DOUBLE_EQ(clipped.position(99.5), 0.5);
  const ColorScale linear = color_scale_for(values, ValueScale::Linear, false);
  EXPECT_DOUBLE_EQ(linear.hi, 200.0);
  // Signed maps clip |v| and stay centred at 0; NaN (empty cells) are not counted.
  std::vector<float> signed_values;
  for (int v = -100; v <= 100; ++v) signed_values.push_back(static_cast<float>(v));
  signed_values.push_back(std::nanf(""));
  const ColorScale symmetric = color_scale_for(signed_values, ValueScale::Clipped, true);
  EXPECT_DOUBLE_EQ(symmetric.hi, 99.0);
  EXPECT_DOUBLE_EQ(symmetric.position(0.0), 0.5);
  EXPECT_EQ(value_scale_by_name("clipped"), ValueScale::Clipped);
  EXPECT_THROW(value_scale_by_name("sqrt"), Error);
  EXPECT_EQ(colorbar_ticks(clipped).first, "\u2265" + tick_label(198.0));
  EXPECT_EQ(colorbar_ticks(clipped).second, tick_label(1.0));
  // A signed map is clipped at both ends.
  EXPECT_EQ(colorbar_ticks(symmetric), (std::pair<std::string, std::string>{"\u226599", "\u2264-99"}));
}

}  // namespace
}  // namespace attnscope
