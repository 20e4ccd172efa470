// What the command line and the explorer show of an exception: one line, never libtorch's
// backtrace, and for memory that ran out how much was asked and what the machine has.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <new>

#include "base/address_sanitizer.h"
#include "base/error.h"
#include "base/error_message.h"

namespace attnscope {
namespace {

template <typename F>
std::string message_of(F&& thrower) {
  try {
    thrower();
  } catch (const std::exception& e) {
    return error_message(e);
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

TEST(ErrorMessage, OursIsShownAsItIs) {
  EXPECT_EQ(message_of([] { throw Error("models/x: no config.json"); }), "models/x: no config.json");
}

TEST(ErrorMessage, LibtorchsLosesItsBacktrace) {
  const std::string text = message_of([] { at::ones({2}).view({3}); });
  EXPECT_NE(text.find("invalid for input of size 2"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.find("frame #"), std::string::npos) << text;
}

TEST(ErrorMessage, MemoryThatRanOutSaysHowMuchWasAsked) {
#if defined(ATTNSCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer's allocator stops the process on a request this large";
#endif
  const std::string text = message_of([] { at::empty({int64_t{1} << 50}, at::kByte); });  // a petabyte
  EXPECT_EQ(text.rfind("not enough memory: a step needed 1125.9 TB at once", 0), 0u) << text;
  EXPECT_NE(text.find("this machine has"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
}

TEST(ErrorMessage, TheMessageOfLibtorchsAllocatorIsRead) {
  const c10::Error refused({__func__, __FILE__, static_cast<uint32_t>(__LINE__)},
                           "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
                           "you tried to allocate 72477573120 bytes. Error code 12 (Cannot allocate memory)");
  EXPECT_EQ(error_message(refused).rfind("not enough memory: a step needed 72.5 GB at once", 0), 0u);
  EXPECT_EQ(error_message(std::bad_alloc()), "not enough memory for the next step; a shorter text needs less");
}

}  // namespace
}  // namespace attnscope
