// A thread that gives up its own team of libtorch threads runs its tensor operations alone, and
// keeps doing so after libtorch's own parallel work on it; other threads keep the thread count.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <thread>

#include "model/tensor_threads.h"

namespace attnscope {
namespace {

TEST(TensorThreads, AThreadCanRunItsTensorOperationsAlone) {
  const int everyone = at::get_num_threads();
  if (everyone < 2) GTEST_SKIP() << "libtorch runs on one thread here";
  bool taken = false;
  int alone = 0, after_parallel_work = 0;
  std::thread drawing([&] {
    taken = run_tensor_operations_on_this_thread_only();
    alone = at::get_num_threads();
    at::randn({4096, 1024}).sum(1);  // libtorch's parallel work, which would set the count up on a fresh thread
    after_parallel_work = at::get_num_threads();
  });
  drawing.join();
  if (!taken) GTEST_SKIP() << "the core is built without OpenMP";
  EXPECT_EQ(alone, 1);
  EXPECT_EQ(after_parallel_work, 1);
  int other = 0;
  std::thread worker([&] { other = at::get_num_threads(); });
  worker.join();
  EXPECT_EQ(other, everyone);
  EXPECT_EQ(at::get_num_threads(), everyone);
}

}  // namespace
}  // namespace attnscope
