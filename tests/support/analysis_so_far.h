#pragma once
// What a long text's analysis hands on while its scan goes on (AnalysisRun::so_far), checked
// against the analysis it ends with.
#include <vector>

#include "analysis/text_analysis.h"

namespace attnscope::test {

// Each analysis so far (in the order handed on) has more heads scanned than the one before, the
// last every head; its scanned heads' scales, pair counts and statistics are the whole analysis's,
// the others' unset; it holds no layers, S or masks. `whole` is not one of them.
void expect_analyses_so_far(const std::vector<TextAnalysis>& so_far, const TextAnalysis& whole);

}  // namespace attnscope::test
