// libFuzzer target: any bytes as a tokenizer.json, then (after a NUL byte, when there is one) a
// text to tokenize. A file that is not a tokenizer attnscope reads must be refused with
// attnscope::Error; an accepted one must give ids inside its vocabulary and byte ranges inside
// the text, in order within each token.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "tokenizer/tokenizer_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t nul = all.find('\0');
  const std::string_view file = all.substr(0, nul), text = nul == std::string_view::npos
                                                               ? "The keeper's lamp, 1871 \xE5\x8C\x97 <mask>!"
                                                               : all.substr(nul + 1);
  const auto json = nlohmann::json::parse(file, nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const auto tokenizer = attnscope::TokenizerPipeline::from_json(json, "tokenizer.json");
    const attnscope::Encoding e = tokenizer->encode(text, 1 << 16);
    for (const attnscope::Token& t : e.tokens)
      if (t.id < 0 || static_cast<size_t>(t.id) >= tokenizer->vocab_size() || t.begin > t.end || t.end > text.size())
        std::abort();
  } catch (const attnscope::Error&) {
  }
  return 0;
}
