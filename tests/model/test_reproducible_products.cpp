// Rows cut into blocks (model/reproducible_products.h): from row 0 in blocks of `step` with a short
// rest joined to the block before it; from a later row, cut where the blocks from row 0 are, a short
// piece at either end joined to its neighbour.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "model/reproducible_products.h"

namespace attnscope {
namespace {

using Blocks = std::vector<std::pair<int64_t, int64_t>>;

TEST(RowBlocks, FromTheFirstRowInStepsWithAShortRestJoined) {
  EXPECT_EQ(row_blocks(0, 64), Blocks{});
  EXPECT_EQ(row_blocks(3, 64), (Blocks{{0, 3}})) << "fewer rows than a block's fewest: one piece still";
  EXPECT_EQ(row_blocks(130, 64), (Blocks{{0, 64}, {64, 66}}));
  EXPECT_EQ(row_blocks(132, 64), (Blocks{{0, 64}, {64, 64}, {128, 4}}));
  EXPECT_EQ(row_blocks(10, 2), (Blocks{{0, 4}, {4, 6}})) << "never fewer than kFewestBlockRows a step";
}

TEST(RowBlocks, FromALaterRowCutWhereTheBlocksFromTheFirstAre) {
  EXPECT_EQ(row_blocks(200, 64, 64), (Blocks{{64, 64}, {128, 64}, {192, 8}}));
  EXPECT_EQ(row_blocks(200, 64, 70), (Blocks{{70, 58}, {128, 64}, {192, 8}}));
  EXPECT_EQ(row_blocks(200, 64, 62), (Blocks{{62, 66}, {128, 64}, {192, 8}})) << "a short first piece joins";
  EXPECT_EQ(row_blocks(194, 64, 62), (Blocks{{62, 66}, {128, 66}})) << "and a short last one";
  EXPECT_EQ(row_blocks(130, 64, 62), (Blocks{{62, 68}})) << "both at once: one block";
  EXPECT_EQ(row_blocks(66, 64, 62), (Blocks{{62, 4}}));
  EXPECT_EQ(row_blocks(64, 64, 62), (Blocks{{62, 2}})) << "fewer rows than a block's fewest: one piece still";
  EXPECT_EQ(row_blocks(100, 64, 100), Blocks{});
}

// Where a block meets a fixed block (a multiple of 64 to the next) in part, it is at the rows'
// first or last piece; no block is longer than a fixed block and two pieces too short to stand alone.
TEST(RowBlocks, FromAnyRowEveryBlockMeetsFixedBlocksInPartOnlyAtTheEnds) {
  constexpr int64_t P = 64;
  for (const int64_t n : {5, 64, 65, 127, 128, 131, 600}) {
    for (int64_t from = 0; from < n; ++from) {
      int64_t next = from;
      for (const auto& [first, count] : row_blocks(n, P, from)) {
        ASSERT_EQ(first, next) << n << " from " << from;
        const int64_t end = first + count;
        EXPECT_TRUE(count >= kFewestBlockRows || n - from < kFewestBlockRows) << n << " from " << from;
        EXPECT_LE(count, P + 2 * (kFewestBlockRows - 1)) << n << " from " << from << ": a cut missed";
        for (int64_t fixed = first / P * P; fixed < end; fixed += P) {
          const int64_t met_first = std::max(first, fixed), met_end = std::min(end, fixed + P);
          if (met_end - met_first == P) continue;
          EXPECT_TRUE(met_first == from || met_end == n) << n << " from " << from << ": block " << first;
        }
        next = end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

}  // namespace
}  // namespace attnscope
