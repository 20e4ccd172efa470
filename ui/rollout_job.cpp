#include "rollout_job.h"

namespace attnscope::ui {

std::string rollout_request_key(uint64_t serial, int layer, bool of_norm) {
  return std::to_string(serial) + "|" + std::to_string(layer) + (of_norm ? "|norm" : "|attention");
}

void submit_rollout(RolloutJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, int layer, bool of_norm) {
  const std::string key = rollout_request_key(snapshot->serial, layer, of_norm);
  job.submit(key, [snapshot = std::move(snapshot), layer, of_norm](const JobControl& control) {
    RolloutControl rollout;
    rollout.keep_going = control.keep_going;
    rollout.progress = [&](std::string_view, double fraction) { control.progress(fraction); };
    return std::make_shared<const KeptRollout>(long_text_rollout(snapshot->view(), layer, of_norm, rollout));
  });
}

}  // namespace attnscope::ui
