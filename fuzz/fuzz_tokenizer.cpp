// libFuzzer target: any bytes as text for BERT's tokenizer (the real uncased vocabulary). The first
// byte picks the normaliser options. Invalid UTF-8 must be refused with attnscope::Error; valid
// text must give tokens whose byte ranges lie inside the text, in order.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "base/error.h"
#include "tokenizer/bert_tokenizer.h"

namespace {

const attnscope::Tokenizer& tokenizer(uint8_t flags) {
  static std::unique_ptr<attnscope::TokenizerPipeline> made[8];
  auto& t = made[flags & 7];
  if (!t) {
    attnscope::NormalizerOptions o;
    o.lowercase = flags & 1;
    o.strip_accents = (flags & 2) != 0;
    o.handle_cjk = (flags & 4) != 0;
    t = attnscope::bert_tokenizer(attnscope::Vocab::load(ATTNSCOPE_FUZZ_VOCAB), o);
  }
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const attnscope::Encoding e = tokenizer(data[0]).encode(text, 512);
    uint32_t last_end = 0;
    for (const attnscope::Token& t : e.tokens) {
      if (t.begin == t.end) continue;  // added [CLS] / [SEP]
      if (t.end > text.size() || t.begin > t.end || t.begin < last_end) std::abort();
      last_end = t.begin;
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
