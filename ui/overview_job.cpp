#include "overview_job.h"

#include "figures/overview_thumbnails.h"

namespace attnscope::ui {

std::string overview_request_key(uint64_t serial, const FigureOptions& options) {
  return std::to_string(serial) + "|" + grid_thumbnails_key(options);
}

void submit_overview(OverviewJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, const FigureOptions& options) {
  const std::string key = overview_request_key(snapshot->serial, options);
  job.submit(key, [snapshot = std::move(snapshot), options](const JobControl& control) {
    LongTextThumbnails long_text;
    long_text.keep_going = control.keep_going;
    long_text.progress = [&](std::string_view, double fraction) { control.progress(fraction); };
    return grid_atlas(snapshot->view(), options, long_text);
  });
}

}  // namespace attnscope::ui
