#pragma once
// What the result-file tests start from: a tiny BERT written to a temporary folder, loaded, and a
// result file's header for one short text on it (the run and analysis are each test's).
#include <memory>

#include "model/checkpoint.h"
#include "results/text_run_file.h"
#include "support/paths.h"
#include "support/test_device.h"
#include "support/tiny_bert.h"

namespace attnscope::test {

struct TinyTextRun {
  TinyTextRun() {
    write_tiny_bert(dir.path() / "model", {});
    checkpoint = Checkpoint::load(dir.path() / "model", test_device());
    file.model_path = (dir.path() / "model").string();
    file.model_config = checkpoint->model().config().to_json();
    file.device = "cpu float32";
    file.text = "The cat sat on the mat. The dog sat.";
    file.max_length = 16;
  }

  TempDir dir;
  std::shared_ptr<const Checkpoint> checkpoint;
  TextRunFile file;
};

}  // namespace attnscope::test
