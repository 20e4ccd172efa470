// Sums over contiguous runs (model/run_sums.h), by hand: runs of one and of several entries, along
// rows and along columns, and in float64 whatever the input's type.
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
  EXPECT_EQ(by_columns.scalar_type(), at::kDouble);
  EXPECT_TRUE(at::equal(by_columns, at::tensor({1.0, 9.0, 5.0, 10.0, 90.0, 50.0}, at::kDouble).reshape({2, 3})));
  // along the rows: one run of both
  const at::Tensor by_rows = run_sums(t, 0, at::tensor(std::vector<int64_t>{0, 2}, at::kLong));
  EXPECT_TRUE(at::equal(by_rows, at::tensor({11.0, 22.0, 33.0, 44.0, 55.0}, at::kDouble).reshape({1, 5})));
}

TEST(RunSums, RunsOfOneEntryGiveTheEntriesBack) {
  const at::Tensor t = at::rand({3, 7, 2});
  const at::Tensor bounds = at::arange(8, at::kLong);
  EXPECT_TRUE(at::allclose(run_sums(t, 1, bounds), t.to(at::kDouble), 0.0, 1e-12));
}

}  // namespace
}  // namespace attnscope
