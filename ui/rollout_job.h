#pragma once
// A long text's attention rollouts after some layers, made off the UI thread for the Head and
// Layers views: its layer maps are made again a block of rows at a time and multiplied, up to the
// last layer asked (seconds at 2,048 tokens, minutes at 8,192). The newest request wins
// (newest_request_job.h); the ones made are kept until others are.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis_worker.h"
#include "figures/text_matrices.h"
#include "newest_request_job.h"

namespace attnscope::ui {

using KeptRollouts = std::shared_ptr<const std::vector<KeptRollout>>;
using RolloutJob = NewestRequestJob<KeptRollouts>;

// `layers` ascending, each once (long_text_rollouts).
std::string rollout_request_key(uint64_t serial, const std::vector<int>& layers, bool of_norm);
// Makes `snapshot`'s rollouts after `layers` on `job`, unless they are made or being made already.
void submit_rollouts(RolloutJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, std::vector<int> layers,
                     bool of_norm);

}  // namespace attnscope::ui
