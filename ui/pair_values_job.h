#pragma once
// The values of a long text's pairs from a lens, made off the UI thread for the Pairs view: each
// needs the head's map made whole again (about 0.65 s at 8,192 tokens for attention's or the
// norm-based maps'), or, for rollout's, the rollout after the head's layer, which the view's map
// has made already and hands over; and a head's strongest pairs, which every pair is walked for.
// The newest request wins (newest_request_job.h).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis_worker.h"
#include "newest_request_job.h"

namespace attnscope::ui {

using ValuedPairs = std::shared_ptr<const std::vector<TokenPair>>;
using PairValuesJob = NewestRequestJob<ValuedPairs>;

std::string pair_values_request_key(uint64_t serial, int64_t layer, int64_t head);
// Lists the first `limit` pairs of `snapshot`'s head with their values on `job`: from `map` when
// it is given (the head's lens map as TextAnalysis::pair_map makes it: pairs_valued_from_map),
// else from the map made again (head_pairs).
void submit_pair_values(PairValuesJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int64_t layer,
                        int64_t head, int64_t limit, at::Tensor map = {});

// The same head's `top` strongest pairs, strongest first (strongest_pairs.h: every pair walked,
// seconds on a long text, the share walked reported), from `map` as above where it is given.
std::string strongest_pairs_request_key(uint64_t serial, int64_t layer, int64_t head);
void submit_strongest_pairs(PairValuesJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int64_t layer,
                            int64_t head, int64_t top, at::Tensor map = {});

}  // namespace attnscope::ui
