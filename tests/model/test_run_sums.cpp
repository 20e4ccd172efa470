// Sums over contiguous runs (model/run_sums.h), by hand: runs of one and of several entries, along
// rows and along columns, in the input's type; the runs' lengths.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "model/run_sums.h"

namespace attnscope {
namespace {

TEST(RunSums, SumsEachRunAlongTheAskedDimension) {
  // [[1 2 3 4 5] [10 20 30 40 50]], runs {0}, {1, 2, 3}, {4}
  const at::Tensor t = at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 10.0f, 20.0f, 30.0f, 40.0f, 50.0f}).reshape({2, 5});
  const at::Tensor bounds = at::tensor(std::vector<int64_t>{0, 1, 4, 5}, at::kLong);
  const at::Tensor by_columns = run_sums(t, 1, bounds);
  EXPECT_EQ(by_columns.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(by_columns, at::tensor({1.0f, 9.0f, 5.0f, 10.0f, 90.0f, 50.0f}).reshape({2, 3})));
  // along the rows: one run of both
  const at::Tensor by_rows = run_sums(t, 0, at::tensor(std::vector<int64_t>{0, 2}, at::kLong));
  EXPECT_TRUE(at::equal(by_rows, at::tensor({11.0f, 22.0f, 33.0f, 44.0f, 55.0f}).reshape({1, 5})));
  EXPECT_TRUE(at::equal(run_lengths(bounds), at::tensor(std::vector<int64_t>{1, 3, 1}, at::kLong)));
}

// One entry after another, as a loop would add them: 1e8 + 1 is 1e8 in float32, so the run below
// sums to 1 (another order, 1e8 - 1e8 first, would give 2).
TEST(RunSums, AddsARunsEntriesInOrder) {
  const at::Tensor t = at::tensor({7.0f, 1e8f, 1.0f, -1e8f, 1.0f});
  const at::Tensor sums = run_sums(t, 0, at::tensor(std::vector<int64_t>{0, 1, 5}, at::kLong));
  EXPECT_TRUE(at::equal(sums, at::tensor({7.0f, 1.0f})));
}

TEST(RunSums, RunsOfOneEntryGiveTheEntriesBack) {
  const at::Tensor t = at::rand({3, 7, 2});
  const at::Tensor bounds = at::arange(8, at::kLong);
  EXPECT_TRUE(at::equal(run_sums(t, 1, bounds), t));
}

}  // namespace
}  // namespace attnscope
