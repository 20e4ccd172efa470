#include "pair_values_job.h"

#include "analysis/strongest_pairs.h"

namespace attnscope::ui {

std::string pair_values_request_key(uint64_t serial, int64_t layer, int64_t head) {
  return std::to_string(serial) + "|" + std::to_string(layer) + "|" + std::to_string(head);
}

void submit_pair_values(PairValuesJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int64_t layer,
                        int64_t head, int64_t limit, at::Tensor map) {
  const std::string key = pair_values_request_key(snapshot->serial, layer, head);
  job.submit(key, [snapshot = std::move(snapshot), layer, head, limit, map = std::move(map)](const JobControl&) {
    const TextAnalysis& a = snapshot->analysis;
    return std::make_shared<const std::vector<TokenPair>>(
        map.defined() ? pairs_valued_from_map(a, layer, head, map, limit) : head_pairs(a, layer, head, limit));
  });
}

std::string strongest_pairs_request_key(uint64_t serial, int64_t layer, int64_t head) {
  return pair_values_request_key(serial, layer, head) + "|strongest";
}

void submit_strongest_pairs(PairValuesJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int64_t layer,
                            int64_t head, int64_t top, at::Tensor map) {
  const std::string key = strongest_pairs_request_key(snapshot->serial, layer, head);
  job.submit(key, [snapshot = std::move(snapshot), layer, head, top, map = std::move(map)](const JobControl& control) {
    const StrongestPairsRun run{map, control.progress, control.keep_going};
    return std::make_shared<const std::vector<TokenPair>>(
        strongest_head_pairs(snapshot->analysis, layer, head, top, run));
  });
}

}  // namespace attnscope::ui
