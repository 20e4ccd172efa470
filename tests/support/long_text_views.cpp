#include "support/long_text_views.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/attention_rows.h"
#include "support/minilm.h"
#include "support/paths.h"

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
  return {b.encoding, b.long_text.captures, b.long_text.analysis,
          recomputed_attention_rows(minilm_checkpoint().model(), b.long_text.captures)};
}

AnalyzedTextView maps_view() {
  const BothPaths& b = both_paths();
  return {b.encoding, b.maps.captures, b.maps.analysis};
}

}  // namespace attnscope::test
