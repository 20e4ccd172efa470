#pragma once
// The real MiniLM checkpoint on the CPU, loaded once per test program and shared by its suites.
#include "model/checkpoint.h"

namespace attnscope::test {

const Checkpoint& minilm_checkpoint();

}  // namespace attnscope::test
