#pragma once
// Runs tests/support/fake_hub.py (a Hugging Face Hub stand-in on loopback) serving the MiniLM
// checkpoint, a RoBERTa one and a tiny GGUF file, for as long as the object lives.
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace attnscope::test {

class FakeHub {
 public:
  FakeHub();  // fails the test (and throws) when the server does not start
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void stop();                   // the network is gone
  std::string requests() const;  // the request log so far, one JSON object per line

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

}  // namespace attnscope::test
