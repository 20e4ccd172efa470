#include "support/minilm.h"

#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope::test {

const Checkpoint& minilm_checkpoint() {
  static const std::shared_ptr<const Checkpoint> checkpoint = Checkpoint::load(minilm_dir(), test_device());
  return *checkpoint;
}

}  // namespace attnscope::test
