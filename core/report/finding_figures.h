#pragma once
// The figure of each finding: one panel per model, drawn from the numbers that decide it (bars
// over layers or heads, or a layer x head map), so that the reader sees the deciding number in
// its context. The paper-style figures of a run are drawn by `attnscope-cli figure`.
#include <vector>

#include "figures/figure.h"
#include "report/findings.h"

namespace attnscope {

Figure finding_figure(const Finding& finding, const std::vector<RunMeasures>& runs);

}  // namespace attnscope
