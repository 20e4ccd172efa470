// libFuzzer target: any bytes as a corpus result file (attnscope.corpus). Anything that is not a
// consistent result must be refused with attnscope::Error, without allocating what it claims.
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "results/corpus_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto json = nlohmann::json::parse(data, data + size, nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const attnscope::CorpusFile file = attnscope::corpus_from_json(json, "corpus.json");
    if (!file.accumulator || file.accumulator->texts() != static_cast<int64_t>(file.windows)) std::abort();
  } catch (const attnscope::Error&) {
  }
  return 0;
}
