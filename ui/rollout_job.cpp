#include "rollout_job.h"

namespace attnscope::ui {

std::string rollout_request_key(uint64_t serial, const std::vector<int>& layers, bool of_norm) {
  std::string key = std::to_string(serial) + "|";
  for (int l : layers) key += std::to_string(l) + ",";
  return key + (of_norm ? "|norm" : "|attention");
}

void submit_rollouts(RolloutJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, std::vector<int> layers,
                     bool of_norm) {
  const std::string key = rollout_request_key(snapshot->serial, layers, of_norm);
  job.submit(key, [snapshot = std::move(snapshot), layers = std::move(layers), of_norm](const JobControl& control) {
    RolloutControl rollout;
    rollout.keep_going = control.keep_going;
    rollout.progress = [&](std::string_view, double fraction) { control.progress(fraction); };
    return std::make_shared<const std::vector<KeptRollout>>(
        long_text_rollouts(snapshot->view(), layers, of_norm, rollout));
  });
}

}  // namespace attnscope::ui
