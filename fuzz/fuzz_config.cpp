// libFuzzer target: any bytes as a checkpoint's config.json. Anything that is not a usable BERT
// configuration must be refused with attnscope::Error; an accepted one must be self-consistent.
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "model/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto json = nlohmann::json::parse(data, data + size, nullptr, false);
  if (json.is_discarded()) return 0;  // not JSON: the reader's JSON step reports it (tested elsewhere)
  try {
    const attnscope::ModelConfig c = attnscope::ModelConfig::from_json(json, "config.json");
    if (c.hidden_size % c.num_heads != 0 || c.head_dim() <= 0 || c.num_layers <= 0) std::abort();
    const attnscope::ModelConfig again = attnscope::ModelConfig::from_json(c.to_json(), "again");
    if (again.hidden_size != c.hidden_size || again.num_layers != c.num_layers) std::abort();
  } catch (const attnscope::Error&) {
  }
  return 0;
}
