#include "support/long_text_views.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/attention_rows.h"
#include "support/minilm.h"
#include "support/model_texts.h"
#include "support/modified_checkpoint.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope::test {

const BothPaths& both_paths() {
  static const BothPaths both = [] {
    std::stringstream all;
    for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "assets" / "corpus"))
      all << std::ifstream(entry.path()).rdbuf() << "\n";
    const Checkpoint& minilm = minilm_checkpoint();
    BothPaths b{minilm.encode(all.str(), 512), {}, {}};
    for (auto [kept, into] : {std::pair{KeptAttention::QueriesAndKeys, &b.long_text}, {KeptAttention::Maps, &b.maps}}) {
      into->captures =
          text_captures(minilm.model().forward({b.encoding.ids()}, {.kept = kept, .lenses = true}), 0, true);
      into->analysis = analyze_text(b.encoding, into->captures, AnalysisSettings{});
    }
    return b;
  }();
  return both;
}

AnalyzedTextView long_view() {
  const BothPaths& b = both_paths();
  return analyzed_text_view(b.encoding, b.long_text.captures, b.long_text.analysis, &minilm_checkpoint().model());
}

AnalyzedTextView maps_view() {
  const BothPaths& b = both_paths();
  return {b.encoding, b.maps.captures, b.maps.analysis};
}

const DecoderBothPaths& decoder_both_paths() {
  static const DecoderBothPaths both = [] {
    DecoderBothPaths b;
    {
      const TempDir copy;
      write_longer_checkpoint(golden_dir() / "decoders/gemma3", copy.path(), 300);
      b.model = Transformer::load(copy.path(), test_device());
    }
    const std::vector<int64_t> ids = spread_token_ids(*b.model, 230, 11);
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto at = static_cast<uint32_t>(2 * i);
      b.encoding.tokens.push_back({static_cast<int32_t>(ids[i]), "t" + std::to_string(ids[i]), at, at + 1});
    }
    for (auto [kept, into] : {std::pair{KeptAttention::QueriesAndKeys, &b.long_text}, {KeptAttention::Maps, &b.maps}}) {
      into->captures = text_captures(b.model->forward({ids}, {.kept = kept, .lenses = true}), 0, true);
      into->analysis = analyze_text(b.encoding, into->captures, AnalysisSettings{});
    }
    return b;
  }();
  return both;
}

AnalyzedTextView decoder_long_view() {
  const DecoderBothPaths& b = decoder_both_paths();
  return analyzed_text_view(b.encoding, b.long_text.captures, b.long_text.analysis, b.model.get());
}

AnalyzedTextView decoder_maps_view() {
  const DecoderBothPaths& b = decoder_both_paths();
  return {b.encoding, b.maps.captures, b.maps.analysis};
}

}  // namespace attnscope::test
