// The rows a decoder's long text keeps its column sums before (model/column_sums_before.h): each
// the first row of a block, one block about every `every` tokens (at most eight before the last
// block), and the last block's first row; a text's of a batch's, and the lookups a continued
// forward makes.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "model/column_sums_before.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

using Rows = std::vector<int64_t>;

TEST(ColumnSumsRows, EveryStepAndTheLastBlock) {
  EXPECT_EQ(column_sums_rows(0, 128), Rows{});
  EXPECT_EQ(column_sums_rows(100, 128), Rows{}) << "one block: nothing before it";
  EXPECT_EQ(column_sums_rows(2048, 128), (Rows{1024, 1920}));
  EXPECT_EQ(column_sums_rows(8192, 128), (Rows{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8064}));
  EXPECT_EQ(column_sums_rows(8200, 128), (Rows{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}))
      << "every 1,024 while at most eight fit";
  EXPECT_EQ(column_sums_rows(32768, 128), (Rows{4096, 8192, 12288, 16384, 20480, 24576, 28672, 32640}))
      << "the step doubled until at most eight fit";
  EXPECT_EQ(column_sums_rows(150, 32, 32), (Rows{32, 64, 96, 128}));
  EXPECT_EQ(column_sums_rows(150, 32, 16), (Rows{32, 64, 96, 128})) << "a block per row at most";
  EXPECT_EQ(column_sums_rows(150, 32, 64), (Rows{64, 128}));
  EXPECT_EQ(column_sums_rows(150, 32, 0), Rows{});
}

TEST(ColumnSumsRows, EachTheFirstRowOfTheBlockHoldingAMultipleOfTheStep) {
  for (const int64_t n : {1000, 3000, 5000, 9999}) {
    for (const int64_t step : {96, 100, 128}) {
      const Rows rows = column_sums_rows(n, step, 700);
      const auto blocks = row_blocks(n, step);
      ASSERT_FALSE(rows.empty());
      EXPECT_EQ(rows.back(), blocks.back().first) << n << " / " << step;
      for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_TRUE(std::any_of(blocks.begin(), blocks.end(), [&](const auto& b) { return b.first == rows[i]; }))
            << rows[i] << " begins no block";
        if (i > 0) EXPECT_GT(rows[i], rows[i - 1]);
      }
      EXPECT_LE(rows.size(), 9u);
    }
  }
}

TEST(ColumnSumsBefore, FindsTheRowsItKeeps) {
  const at::Tensor sums = at::arange(2 * 3 * 4 * 8, at::kFloat).view({2, 3, 4, 8});  // [L, B, H, r]
  const ColumnSumsBefore kept{8, {8, 16}, {sums, at::zeros({2, 3, 4, 16})}};
  EXPECT_EQ(kept.last_at_or_before(7), 0);
  EXPECT_EQ(kept.last_at_or_before(8), 8);
  EXPECT_EQ(kept.last_at_or_before(15), 8);
  EXPECT_EQ(kept.last_at_or_before(100), 16);
  ASSERT_TRUE(kept.before(16));
  EXPECT_EQ(kept.before(16)->size(3), 16);
  EXPECT_FALSE(kept.before(12));
  const ColumnSumsBefore text = kept.of_text(1);
  EXPECT_EQ(text.rows, kept.rows);
  EXPECT_EQ(text.block_step, 8);
  ASSERT_EQ(text.sums.size(), 2u);
  EXPECT_TRUE(at::equal(text.sums[0], sums.select(1, 1)));
  EXPECT_TRUE(ColumnSumsBefore{}.empty());
}

}  // namespace
}  // namespace attnscope
