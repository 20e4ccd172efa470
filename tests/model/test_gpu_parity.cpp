// On a GPU, float32: every head's attention map A and head outputs C = A V equal the CPU's for
// the same checkpoint and text, within 1e-4 (A, absolute) and 1e-4 relative to C's largest entry.
// The checkpoints are every whole one in the fixtures, plus the folders listed in
// ATTNSCOPE_GPU_PARITY_MODELS (separated by ':'; tools/gpu_check.sh passes BERT-base- and
// MiniLM-sized ones). Without a GPU there is nothing to compare: skipped, saying so.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cstdlib>
#include <sstream>

#include "model/checkpoint.h"
#include "model/device.h"
#include "support/paths.h"

namespace attnscope {
namespace {

// Long enough for a few sentences and every special position, short enough for tiny models.
constexpr const char* kText =
    "The keeper climbed the stairs at dusk, as he had for thirty years. Below him, the sea turned "
    "grey, then black; the lamp, once lit, swept the rocks where the old ship had broken.";

std::vector<std::filesystem::path> parity_models() {
  std::vector<std::filesystem::path> dirs;
  for (const char* name : {"albert", "modernbert", "roberta", "xlm-roberta"})
    dirs.push_back(test::golden_dir() / "checkpoints" / name);
  if (const char* extra = std::getenv("ATTNSCOPE_GPU_PARITY_MODELS")) {
    std::stringstream list(extra);
    for (std::string dir; std::getline(list, dir, ':');)
      if (!dir.empty()) dirs.emplace_back(dir);
  }
  return dirs;
}

double max_gap(const at::Tensor& a, const at::Tensor& b) { return (a - b).abs().max().item<double>(); }

TEST(GpuParity, AttentionAndHeadOutputsEqualTheCpus) {
  if (!cuda_available()) GTEST_SKIP() << "libtorch sees no GPU on this machine: nothing to compare with the CPU";
  for (const auto& dir : parity_models()) {
    SCOPED_TRACE(dir.string());
    const auto cpu = Checkpoint::load(dir, select_device("cpu"));
    const auto gpu = Checkpoint::load(dir, select_device("cuda"));
    const TextRun on_cpu = cpu->run(kText, 128);
    const TextRun on_gpu = gpu->run(kText, 128);
    ASSERT_EQ(on_cpu.encoding.ids(), on_gpu.encoding.ids());
    const TextCaptures& a = on_cpu.captures;
    const TextCaptures& b = on_gpu.captures;
    ASSERT_TRUE(b.attention.device().is_cpu());  // to_host: copied back as float32
    ASSERT_EQ(a.attention.sizes(), b.attention.sizes());
    ASSERT_EQ(a.head_outputs.sizes(), b.head_outputs.sizes());
    EXPECT_LE(max_gap(a.attention, b.attention), 1e-4);
    const double scale = a.head_outputs.abs().max().item<double>();
    EXPECT_LE(max_gap(a.head_outputs, b.head_outputs), 1e-4 * scale);
  }
}

}  // namespace
}  // namespace attnscope
