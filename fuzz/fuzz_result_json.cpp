// libFuzzer target: any bytes as a result file of `attnscope-cli analyze` (attnscope.text-run,
// version 1 or 2, JSON or binary). Anything that is not a consistent result must be refused with
// attnscope::Error; what is accepted must hold what its document says, and open for the explorer's
// views or be refused the same way.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "base/error.h"
#include "results/opened_text_run.h"
#include "results/text_run_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const attnscope::TextRunFile file = attnscope::text_run_from_bytes(std::as_bytes(std::span(data, size)), "result");
    const auto& c = file.run.captures;
    if (c.attention.defined() && (c.attention.dim() != 4 || c.attention.size(2) != c.length)) std::abort();
    if (c.head_outputs.defined() && c.head_outputs.size(3) != c.head_dim) std::abort();
    if (file.analysis) {
      if (static_cast<int64_t>(file.analysis->pairs.size()) != c.num_layers * c.num_heads) std::abort();
      // Read again with a long text's masks counted where they lie: the same counts.
      const auto counted =
          attnscope::text_run_from_bytes(std::as_bytes(std::span(data, size)), "result", {.long_pair_mask_bytes = 0});
      if (counted.analysis->pair_counts != file.analysis->pair_counts) std::abort();
      for (int l = 0; l < c.num_layers; ++l)
        for (int h = 0; h < c.num_heads; ++h) (void)attnscope::stored_pairs(file, l, h);
    }
    // Opened for the explorer's views: its stored settings and statistics read back, its analysis
    // put together; one head per layer and token of it, as the file says (a long text's masks,
    // without maps, not kept: made again when asked).
    const attnscope::OpenedTextRun opened = attnscope::open_text_run(file, "result");
    if (static_cast<int64_t>(opened.analysis.heads.size()) != c.num_layers * c.num_heads) std::abort();
    const int64_t mask_tokens = c.attention.defined() ? c.length : 0;
    for (const auto& head : opened.analysis.heads)
      if (head.pairs.tokens() != mask_tokens || (head.stats.anchor_index && *head.stats.anchor_index >= c.length))
        std::abort();
  } catch (const attnscope::Error&) {
  }
  return 0;
}
