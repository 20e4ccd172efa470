#pragma once
// A result file opened for its views (the explorer's --result) without the model: its tokens and
// captures as written; its analysis with the stored pairs, scales and statistics of S (what the
// run found: scanning every S again is most of a long text's analysis) and the rest (separators,
// sentences, segments) made again from the captures with the settings it was written with; its
// head roles as written; and, for a long text, how the model turns its queries and keys into maps
// (AttentionScores from the configuration in the file), so that every map is made as the model
// would make it.
#include <filesystem>
#include <memory>
#include <optional>

#include "analysis/head_roles.h"
#include "analysis/text_analysis.h"
#include "model/attention_scores.h"
#include "results/text_run_file.h"

namespace attnscope {

struct OpenedTextRun {
  TextRunFile file;       // as read (its captures on the host), less its stored analysis
  TextAnalysis analysis;  // the stored pairs and statistics, the rest made again from file.run.captures
  std::optional<HeadRoleScores> roles;
  // Set when the file keeps queries and keys instead of maps; CPU, float32.
  std::shared_ptr<const AttentionScores> scores;
};

// Throws attnscope::Error in one line for a file that cannot be read or cannot be shown without
// its model: no head outputs (captures "attention" or "none"), an analysis on words, MPNet's maps
// (their bias by distance is a weight). `keep_going` is asked between the analysis's stages. A
// long text's pair masks are read and kept up to `pair_mask_bytes` together
// (AnalysisRun::long_pair_mask_bytes); a view's head past them has its mask made again.
OpenedTextRun open_text_run(const std::filesystem::path& path, const KeepGoing& keep_going = {},
                            uint64_t pair_mask_bytes = 0);
// The same for a file already read (load_text_run, text_run_from_bytes); `source` names it in errors.
OpenedTextRun open_text_run(TextRunFile file, const std::string& source, const KeepGoing& keep_going = {},
                            uint64_t pair_mask_bytes = 0);

// The file's long text's separator columns from a lens (settings.separators_from), made from its
// maps made again (pipeline/long_text_separators.h); undefined where the analysis makes them itself
// (AnalysisRun::separator_columns).
at::Tensor separator_columns_made_again(const OpenedTextRun& opened, const AnalysisSettings& settings,
                                        const KeepGoing& keep_going = {});

}  // namespace attnscope
