#pragma once
// The overview of a long text coloured off the UI thread, when it is asked with other options
// than the run coloured it with: its maps are made again for every layer (seconds at 8,192 tokens),
// its rollout a product of n x n matrices a layer (minutes). The newest request wins, a stale one
// stops at its next block of rows; `notify` wakes the window when an atlas is ready or the share
// done moves.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "analysis_worker.h"
#include "figures/figure_options.h"
#include "figures/thumbnail_atlas.h"

namespace attnscope::ui {

struct ColouredOverview {
  uint64_t of = 0;  // the serial of the analysis it shows
  std::string key;  // grid_thumbnails_key of its options
  ThumbnailAtlas atlas;
  std::string error;  // non-empty: it could not be made (the atlas is empty)
};

class OverviewJob {
 public:
  explicit OverviewJob(std::function<void()> notify = {});
  ~OverviewJob();
  OverviewJob(const OverviewJob&) = delete;
  OverviewJob& operator=(const OverviewJob&) = delete;

  // Colours `snapshot`'s overview with `options`, unless that one is made or being made already.
  void submit(std::shared_ptr<const AnalysisSnapshot> snapshot, const FigureOptions& options);
  // Stops the one asked last (its thumbnails are no longer wanted), at its next block of rows.
  void cancel();
  // The newest one made (null before any).
  std::shared_ptr<const ColouredOverview> latest() const;
  // The share of the layers of the one being made; nullopt when none is.
  std::optional<double> fraction() const;
  // How many times it has reported (the share done moved, or one was made): the window draws a
  // frame when this changes.
  uint64_t updates() const;

 private:
  struct Request {
    std::shared_ptr<const AnalysisSnapshot> snapshot;
    FigureOptions options;
    uint64_t number = 0;
  };
  void run();
  void make(const Request& request);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Request> pending_;
  uint64_t submitted_of_ = 0, requests_ = 0, updates_ = 0;  // the last request's analysis and number; reports
  std::string submitted_key_;
  std::optional<double> fraction_;
  bool stop_ = false;
  std::shared_ptr<const ColouredOverview> latest_;
  std::function<void()> notify_;
  std::thread thread_;
};

}  // namespace attnscope::ui
