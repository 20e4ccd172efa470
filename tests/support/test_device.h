#pragma once
// The device the model, analysis and corpus tests run on: ATTNSCOPE_TEST_DEVICE (cpu, cuda,
// cuda:N; default cpu), in float32. When it names a GPU this machine lacks, every test of the
// program is skipped with a message saying so (a global test environment), instead of failing.
#include "model/device.h"

namespace attnscope::test {

ComputeDevice test_device();

}  // namespace attnscope::test
