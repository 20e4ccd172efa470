#include "support/minilm.h"

#include "support/paths.h"

namespace attnscope::test {

const Checkpoint& minilm_checkpoint() {
  static const std::shared_ptr<const Checkpoint> checkpoint = Checkpoint::load(minilm_dir(), select_device("cpu"));
  return *checkpoint;
}

}  // namespace attnscope::test
