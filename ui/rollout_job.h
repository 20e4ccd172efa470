#pragma once
// A long text's attention rollout after one layer, made off the UI thread for the Head view: its
// layer maps are made again a block of rows at a time and multiplied, `layer` products of n x n
// matrices (seconds at 2,048 tokens, minutes at 8,192). The newest request wins
// (newest_request_job.h); the one made is kept until another is.
#include <cstdint>
#include <memory>
#include <string>

#include "analysis_worker.h"
#include "figures/text_matrices.h"
#include "newest_request_job.h"

namespace attnscope::ui {

using RolloutJob = NewestRequestJob<std::shared_ptr<const KeptRollout>>;

std::string rollout_request_key(uint64_t serial, int layer, bool of_norm);
// Makes `snapshot`'s rollout after `layer` on `job`, unless it is made or being made already.
void submit_rollout(RolloutJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int layer, bool of_norm);

}  // namespace attnscope::ui
