#pragma once
// Polls `done` every 10 ms until it holds (true) or `seconds` pass (false): how the tests of the
// explorer's background jobs wait for a thread they do not own.
#include <chrono>
#include <thread>

namespace attnscope::test {

template <typename Done>
bool wait_for(Done done, double seconds = 120) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace attnscope::test
