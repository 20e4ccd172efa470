// When a text keeps its maps and when what recomputes them (model/capture_plan.h): the bytes by
// hand, a length the user sets, the share of the memory (the machine's, or at most it on a GPU),
// DeBERTa always keeping its maps.
#include <gtest/gtest.h>

#include "model/capture_plan.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

ModelConfig config_of(const std::string& fixture) {
  return ModelConfig::load(test::golden_dir() / fixture / "config.json");
}

TEST(CapturePlan, CountsTheMapsAndTheSimilaritiesOfEveryHead) {
  const ModelConfig c = config_of("encoders/modernbert");
  const double cells = static_cast<double>(c.num_layers * c.num_heads) * 100.0 * 100.0;
  EXPECT_DOUBLE_EQ(map_bytes(c, 100), cells * 8);     // float32 maps and float32 similarities
  EXPECT_DOUBLE_EQ(map_bytes(c, 100, 2), cells * 6);  // half-precision maps
}

TEST(CapturePlan, ALengthSetByTheUserDecides) {
  const ModelConfig c = config_of("decoders/gemma3");
  const CapturePlan plan{.maps_up_to = 64};
  EXPECT_EQ(attention_to_keep(c, 64, plan, 1), KeptAttention::Maps);
  EXPECT_EQ(attention_to_keep(c, 65, plan, int64_t{1} << 40), KeptAttention::QueriesAndKeys);
}

TEST(CapturePlan, OtherwiseTheShareOfTheMemory) {
  const ModelConfig c = config_of("encoders/modernbert");
  const int64_t memory = int64_t{1} << 30;
  int64_t n = 1;
  while (map_bytes(c, n + 1) <= 0.25 * static_cast<double>(memory)) ++n;  // the longest text whose maps fit
  EXPECT_EQ(attention_to_keep(c, n, {}, memory), KeptAttention::Maps);
  EXPECT_EQ(attention_to_keep(c, n + 1, {}, memory), KeptAttention::QueriesAndKeys);
  EXPECT_EQ(attention_to_keep(c, n + 1, {.memory_share = 0.5}, memory), KeptAttention::Maps);
  EXPECT_EQ(attention_to_keep(c, 1 << 20, {}, 0), KeptAttention::Maps);  // memory unknown: as before
  EXPECT_GT(physical_memory(), 0);
}

TEST(CapturePlan, DebertaKeepsItsMaps) {
  const ModelConfig c = config_of("encoders/deberta-v2");
  EXPECT_EQ(attention_to_keep(c, 1 << 20, {.maps_up_to = 1}, 1), KeptAttention::Maps);
}

// The CPU's is the machine's; the test device's (a GPU's: the less of its own and the machine's)
// is known and at most the machine's.
TEST(CapturePlan, TheMemoryOfTheTestDeviceIsAtMostTheMachines) {
  EXPECT_EQ(capture_memory(c10::Device(c10::kCPU)), physical_memory());
  const int64_t memory = capture_memory(test::test_device().device);
  EXPECT_GT(memory, 0);
  EXPECT_LE(memory, physical_memory());
}

}  // namespace
}  // namespace attnscope
