// Running out of GPU memory falls back to the CPU with a notice. The GPU's failure is simulated
// (the machines running the tests have none): the attempt throws what libtorch throws.
#include <gtest/gtest.h>

#include <c10/util/Exception.h>

#include "model/device_fallback.h"

namespace attnscope {
namespace {

ComputeDevice cuda() {
  ComputeDevice d;
  d.device = c10::Device(c10::kCUDA, 0);
  d.dtype = c10::kHalf;
  return d;
}

TEST(DeviceFallback, OutOfMemoryOnTheGpuRunsOnTheCpu) {
  std::vector<std::string> tried, notices;
  const ComputeDevice used = run_with_cpu_fallback(
      cuda(),
      [&](const ComputeDevice& d) {
        tried.push_back(d.describe());
        TORCH_CHECK_WITH(OutOfMemoryError, d.device.is_cpu(), "CUDA out of memory. Tried to allocate 2.00 GiB");
      },
      [&](const std::string& n) { notices.push_back(n); });
  EXPECT_TRUE(used.device.is_cpu());
  EXPECT_EQ(used.dtype, c10::kFloat);
  ASSERT_EQ(tried.size(), 2u);
  EXPECT_EQ(tried[0], "cuda:0 float16");
  EXPECT_EQ(tried[1], "cpu float32");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("ran out of memory; running on the CPU"), std::string::npos) << notices[0];
}

TEST(DeviceFallback, NoFallbackWithoutTheNeed) {
  int calls = 0, notices = 0;
  const ComputeDevice used = run_with_cpu_fallback(
      cuda(), [&](const ComputeDevice&) { ++calls; }, [&](const std::string&) { ++notices; });
  EXPECT_EQ(used.device.type(), c10::kCUDA);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(notices, 0);
}

TEST(DeviceFallback, OtherErrorsAndCpuOutOfMemoryPropagate) {
  const auto oom = [](const ComputeDevice&) { TORCH_CHECK_WITH(OutOfMemoryError, false, "out of memory"); };
  EXPECT_THROW(run_with_cpu_fallback(ComputeDevice{}, oom, {}), c10::OutOfMemoryError);
  EXPECT_THROW(run_with_cpu_fallback(cuda(), [](const ComputeDevice&) { throw std::runtime_error("bad weights"); }, {}),
               std::runtime_error);
}

}  // namespace
}  // namespace attnscope
