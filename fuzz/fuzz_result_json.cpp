// libFuzzer target: any bytes as a result file of `attnscope-cli analyze` (attnscope.text-run).
// Anything that is not a consistent result must be refused with attnscope::Error.
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "error.h"
#include "io/result_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto json = nlohmann::json::parse(data, data + size, nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const attnscope::TextRunFile file = attnscope::text_run_from_json(json, "result.json");
    const auto& c = file.run.captures;
    if (c.attention.dim() != 4 || c.attention.size(2) != c.length || c.head_outputs.size(3) != c.head_dim) std::abort();
  } catch (const attnscope::Error&) {
  }
  return 0;
}
