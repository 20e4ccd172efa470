// mapped_empty (model/mapped_tensor.h): a float32 host tensor of its own mapping, usable as any
// other, whose memory leaves the process when the tensor is freed, whatever the heap keeps.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <fstream>
#include <string>

#include "base/error.h"
#include "model/mapped_tensor.h"

namespace attnscope {
namespace {

// The process's resident memory, kB, from /proc.
int64_t resident_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

TEST(MappedTensor, IsAnOrdinaryTensorWhoseMemoryIsReturnedWhenFreed) {
  const int64_t n = 4096;  // 64 MB
  const int64_t before = resident_kb();
  ASSERT_GT(before, 0);
  int64_t filled = 0;
  {
    at::Tensor map = mapped_empty({n, n});
    EXPECT_EQ(map.scalar_type(), at::kFloat);
    EXPECT_TRUE(map.is_cpu());
    EXPECT_TRUE(map.is_contiguous());
    EXPECT_EQ(map.sizes(), at::IntArrayRef({n, n}));
    map.fill_(1.5f);
    map.narrow(0, 7, 1).mul_(2.0f);
    EXPECT_EQ(map.sum().item<double>(), 1.5 * n * n + 1.5 * n);
    filled = resident_kb();
    EXPECT_GT(filled - before, 60 * 1024) << "the map's pages are resident once written";
    const at::Tensor view = map.narrow(1, 3, 5);
    map = at::Tensor();  // a view holds the mapping
    EXPECT_EQ(view[7][0].item<float>(), 3.0f);
  }
  EXPECT_LT(resident_kb(), filled - 60 * 1024) << "unmapped with its last tensor";
  EXPECT_EQ(mapped_empty({0, 5}).numel(), 0);
  EXPECT_EQ(mapped_empty({3}).size(0), 3);
}

// More than the machine has: one line saying how much, not a crash. (A kernel told to grant every
// mapping, overcommit_memory 1, would grant it: skipped there.)
TEST(MappedTensor, SaysHowMuchItCouldNotMap) {
  std::ifstream overcommit("/proc/sys/vm/overcommit_memory");
  int mode = 0;
  overcommit >> mode;
  if (mode == 1) GTEST_SKIP() << "this kernel grants every mapping";
  try {
    mapped_empty({int64_t{1} << 42});  // 16 TiB
    ADD_FAILURE() << "a 16 TiB map was granted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("17.6 TB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnscope
