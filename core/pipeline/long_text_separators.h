#pragma once
// A long text's separators from a lens (AnalysisSettings::separators_from: the norm-based maps or
// rollout). Its maps are not kept, only their column sums, which are the attention's: the lens's
// column sums are made here from the maps made again a block of query rows at a time, never a
// layer's n x n maps whole (rollout: R_l layer after layer, two n x n matrices held).
#include <ATen/core/Tensor.h>

#include "analysis/analysis_settings.h"
#include "base/progress.h"
#include "model/attention_rows.h"
#include "model/captures.h"

namespace attnscope {

// What the scan of a long text's lens columns is told and tells as it goes.
struct SeparatorScan {
  KeepGoing keep_going = {};     // asked between blocks (false throws Cancelled)
  ProgressReport progress = {};  // its share of layers done (stage "separators")
  int64_t block_rows = 0;        // query rows made again at a time (0: some 32 MB of floats a layer)
};

// [L, H, n] where the head outputs are: the column attention the separators are found in (analysis/text_analysis.h:
// separator_columns gives the same, to float rounding, from the whole maps), from `blocks` (the
// text's maps made again) and the lenses' captures the norm-based maps need.
at::Tensor long_text_separator_columns(const AttentionBlockRows& blocks, const TextCaptures& captures,
                                       SeparatorInput input, const SeparatorScan& scan = {});
// Whether analyze_text needs them (AnalysisRun::separator_columns): a long text's (no maps kept)
// separators from a lens.
inline bool needs_long_text_separator_columns(const TextCaptures& captures, SeparatorInput input) {
  return !captures.attention.defined() && input != SeparatorInput::Attention;
}

}  // namespace attnscope
