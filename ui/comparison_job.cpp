#include "comparison_job.h"

namespace attnscope::ui {

ComparisonJob::ComparisonJob(std::function<void()> notify)
    : notify_(std::move(notify)), thread_(&ComparisonJob::run, this) {}

ComparisonJob::~ComparisonJob() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ComparisonJob::submit(std::shared_ptr<const AnalysisSnapshot> a, std::shared_ptr<const AnalysisSnapshot> b,
                           CompareSettings settings) {
  {
    std::lock_guard lock(mutex_);
    if (serial_of(a) == submitted_a_ && serial_of(b) == submitted_b_ && settings.match_heads == submitted_match_)
      return;
    submitted_a_ = serial_of(a), submitted_b_ = serial_of(b), submitted_match_ = settings.match_heads;
    pending_ = Request{std::move(a), std::move(b), settings};
  }
  wake_.notify_all();
}

std::shared_ptr<const ComparisonSnapshot> ComparisonJob::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

bool ComparisonJob::busy() const {
  std::lock_guard lock(mutex_);
  return working_ || pending_.has_value();
}

void ComparisonJob::run() {
  for (;;) {
    Request request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      pending_.reset();
      working_ = true;
    }
    auto result = std::make_shared<ComparisonSnapshot>();
    result->a = request.a;
    result->b = request.b;
    result->serial = ++next_serial_;
    try {
      // A long text's maps made again by its model (or a result file's scores): AnalysisSnapshot::view.
      const ComparedRun a{request.a->encoding, request.a->text, request.a->captures, request.a->analysis,
                          request.a->view().attention_rows};
      const ComparedRun b{request.b->encoding, request.b->text, request.b->captures, request.b->analysis,
                          request.b->view().attention_rows};
      result->comparison = compare_texts(a, b, request.settings);
    } catch (const std::exception& e) {
      result->error = e.what();
    }
    {
      std::lock_guard lock(mutex_);
      latest_ = std::move(result);
      working_ = false;
    }
    if (notify_) notify_();
  }
}

}  // namespace attnscope::ui
