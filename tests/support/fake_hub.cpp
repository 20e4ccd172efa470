#include "support/fake_hub.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "support/paths.h"

namespace attnscope::test {

FakeHub::FakeHub() {
  char name[] = "/tmp/attnscope-fake-hub-XXXXXX";
  const int fd = mkstemp(name);
  if (fd >= 0) close(fd);
  log_ = name;
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe");
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    const int err = open(log_.c_str(), O_WRONLY | O_TRUNC);
    dup2(err, STDERR_FILENO);
    close(out[0]);
    const std::string python = venv_python().string(), script = (source_dir() / "tests/support/fake_hub.py").string(),
                      model = minilm_dir().string(), roberta = (golden_dir() / "checkpoints" / "roberta").string(),
                      gguf = (golden_dir() / "gguf" / "gpt2_tiny.gguf").string();
    execl(python.c_str(), python.c_str(), script.c_str(), model.c_str(), roberta.c_str(), gguf.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* in = fdopen(out[0], "r");
  if (!in || std::fscanf(in, "port %d", &port_) != 1) {
    if (in) std::fclose(in);
    stop();
    ADD_FAILURE() << "the fake Hub server did not start (tests/support/fake_hub.py)";
    throw std::runtime_error("fake hub");
  }
  std::fclose(in);
}

FakeHub::~FakeHub() {
  stop();
  std::error_code ec;
  std::filesystem::remove(log_, ec);
}

void FakeHub::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string FakeHub::requests() const {
  std::ifstream in(log_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace attnscope::test
