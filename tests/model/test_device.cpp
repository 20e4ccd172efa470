#include <gtest/gtest.h>

#include "base/error.h"
#include "model/device.h"

namespace attnscope {
namespace {

TEST(Device, CpuIsAlwaysThere) {
  const auto d = select_device("cpu");
  EXPECT_TRUE(d.device.is_cpu());
  EXPECT_EQ(d.dtype, c10::kFloat);
  EXPECT_EQ(d.describe(), "cpu float32");
}

TEST(Device, AutoTakesCudaExactlyWhenPresent) { EXPECT_EQ(select_device("auto").device.is_cuda(), cuda_available()); }

TEST(Device, CudaWithoutAGpuIsAClearError) {
  if (cuda_available()) {
    EXPECT_TRUE(select_device("cuda", "float16").device.is_cuda());
    EXPECT_EQ(select_device("cuda", "bfloat16").dtype, c10::kBFloat16);
    return;
  }
  EXPECT_THROW(select_device("cuda"), Error);
  EXPECT_THROW(select_device("cuda:0"), Error);
}

TEST(Device, ReducedPrecisionOnlyOnCuda) {
  EXPECT_THROW(select_device("cpu", "float16"), Error);
  EXPECT_THROW(select_device("cpu", "bfloat16"), Error);
}

TEST(Device, UnknownNamesAreRefused) {
  EXPECT_THROW(select_device("gpu"), Error);
  EXPECT_THROW(select_device("cpu", "float64"), Error);
  EXPECT_THROW(select_device(""), Error);
}

}  // namespace
}  // namespace attnscope
