#include "overview_job.h"

#include "figures/overview_thumbnails.h"

namespace attnscope::ui {

OverviewJob::OverviewJob(std::function<void()> notify) : notify_(std::move(notify)), thread_(&OverviewJob::run, this) {}

OverviewJob::~OverviewJob() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void OverviewJob::submit(std::shared_ptr<const AnalysisSnapshot> snapshot, const FigureOptions& options) {
  const std::string key = grid_thumbnails_key(options);
  {
    std::lock_guard lock(mutex_);
    if (serial_of(snapshot) == submitted_of_ && key == submitted_key_) return;
    submitted_of_ = serial_of(snapshot), submitted_key_ = key;
    pending_ = Request{std::move(snapshot), options, ++requests_};
  }
  wake_.notify_all();
}

void OverviewJob::cancel() {
  std::lock_guard lock(mutex_);
  pending_.reset();
  ++requests_;  // what runs sees it is no longer the last asked
  submitted_of_ = 0;
  submitted_key_.clear();
}

std::shared_ptr<const ColouredOverview> OverviewJob::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::optional<double> OverviewJob::fraction() const {
  std::lock_guard lock(mutex_);
  return fraction_;
}

uint64_t OverviewJob::updates() const {
  std::lock_guard lock(mutex_);
  return updates_;
}

void OverviewJob::run() {
  for (;;) {
    Request request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      pending_.reset();
      fraction_ = 0.0;
    }
    make(request);
  }
}

// One request's atlas; a newer request (or the job's end) stops it between blocks of rows, and
// then nothing is kept of it.
void OverviewJob::make(const Request& request) {
  auto made = std::make_shared<ColouredOverview>();
  made->of = request.snapshot->serial;
  made->key = grid_thumbnails_key(request.options);
  LongTextThumbnails long_text;
  long_text.keep_going = [this, number = request.number] {
    std::lock_guard lock(mutex_);
    return !stop_ && requests_ == number;
  };
  long_text.progress = [this](std::string_view, double fraction) {
    {
      std::lock_guard lock(mutex_);
      fraction_ = fraction;
      ++updates_;
    }
    if (notify_) notify_();
  };
  try {
    made->atlas = grid_atlas(request.snapshot->view(), request.options, long_text);
  } catch (const Cancelled&) {
    std::lock_guard lock(mutex_);
    fraction_.reset();
    return;
  } catch (const std::exception& e) {
    made->error = e.what();
  }
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(made);
    fraction_.reset();
    ++updates_;
  }
  if (notify_) notify_();
}

}  // namespace attnscope::ui
