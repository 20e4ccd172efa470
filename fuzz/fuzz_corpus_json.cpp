// libFuzzer target: any bytes as a corpus result file (attnscope.corpus). Anything that is not a
// consistent result must be refused with attnscope::Error, without allocating what it claims. Read
// twice: as files are read (long "data" strings left in the bytes, json_with_blobs.h; here from 4
// bytes on) and from the whole parsed document; where the second reads a result, the first must
// read the same sums.
#include <ATen/ATen.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_with_blobs.h"
#include "results/corpus_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<attnscope::CorpusFile> cut;
  try {
    const attnscope::JsonWithBlobs blobs(std::string_view(reinterpret_cast<const char*>(data), size), "corpus.json", 4);
    cut = attnscope::corpus_from_json(blobs.document(), "corpus.json", &blobs);
  } catch (const attnscope::Error&) {
  }
  const auto json = nlohmann::json::parse(data, data + size, nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const attnscope::CorpusFile file = attnscope::corpus_from_json(json, "corpus.json");
    if (!file.accumulator || file.accumulator->texts() != static_cast<int64_t>(file.windows)) std::abort();
    if (!cut) std::abort();
    const auto a = file.accumulator->tensors(), b = cut->accumulator->tensors();
    if (a.size() != b.size()) std::abort();
    for (size_t k = 0; k < a.size(); ++k) {  // bytes, not values: a crafted sum may be NaN
      const at::Tensor x = a[k].second->contiguous(), y = b[k].second->contiguous();
      if (x.sizes() != y.sizes() || x.scalar_type() != y.scalar_type() ||
          std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) != 0)
        std::abort();
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
