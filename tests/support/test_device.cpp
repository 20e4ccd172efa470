#include "support/test_device.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace attnscope::test {
namespace {

std::string asked() {
  const char* device = std::getenv("ATTNSCOPE_TEST_DEVICE");
  return device && *device ? device : "cpu";
}

class DeviceEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (asked().starts_with("cuda") && !cuda_available())
      GTEST_SKIP() << "ATTNSCOPE_TEST_DEVICE=" << asked() << " but libtorch sees no GPU on this machine: skipped";
  }
};

// Registered when the test program starts, before main runs the tests.
[[maybe_unused]] ::testing::Environment* const environment = ::testing::AddGlobalTestEnvironment(new DeviceEnvironment);

}  // namespace

ComputeDevice test_device() { return select_device(asked()); }

}  // namespace attnscope::test
