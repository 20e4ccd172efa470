#pragma once
// A thread beside the window that makes what a view asked for last, when making it takes longer
// than a frame (seconds to minutes on a long text): a newer request replaces one not started and
// stops the one being made at its next check (its keep_going turns false), and nothing is kept of
// a stopped one. `notify` wakes the window when the share done moves or a result is made.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "base/error.h"

namespace attnscope::ui {

// What a request's work is given: where to report the share done, and whether to go on (false
// once a newer request came: throwing attnscope::Cancelled then drops it).
struct JobControl {
  std::function<void(double fraction)> progress;
  std::function<bool()> keep_going;
};

template <class Value>
class NewestRequestJob {
 public:
  struct Made {
    std::string key;    // the request's
    Value value{};      // what its work returned
    std::string error;  // non-empty: what its work threw instead
  };
  using Work = std::function<Value(const JobControl&)>;

  explicit NewestRequestJob(std::function<void()> notify = {})
      : notify_(std::move(notify)), thread_(&NewestRequestJob::run, this) {}
  ~NewestRequestJob() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  NewestRequestJob(const NewestRequestJob&) = delete;
  NewestRequestJob& operator=(const NewestRequestJob&) = delete;

  // Runs `work` for `key`, unless the last request was for that key already.
  void submit(const std::string& key, Work work) {
    {
      std::lock_guard lock(mutex_);
      if (key == submitted_key_) return;
      submitted_key_ = key;
      pending_ = Request{key, std::move(work), ++requests_};
    }
    wake_.notify_all();
  }
  // Stops the last request, at its next check (what it makes is no longer wanted).
  void cancel() {
    std::lock_guard lock(mutex_);
    pending_.reset();
    ++requests_;
    submitted_key_.clear();
  }
  // The newest result made (null before any).
  std::shared_ptr<const Made> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }
  // The newest result, no longer kept by the job (a large one handed over); the same request made
  // again is then made anew.
  std::shared_ptr<const Made> take_latest() {
    std::lock_guard lock(mutex_);
    if (latest_ && latest_->key == submitted_key_) submitted_key_.clear();
    return std::move(latest_);
  }
  // The share done of the request being made; nullopt when none is.
  std::optional<double> fraction() const {
    std::lock_guard lock(mutex_);
    return fraction_;
  }
  // A request is waiting or being made.
  bool busy() const {
    std::lock_guard lock(mutex_);
    return working_ || pending_.has_value();
  }
  // How many times it has reported (the share done moved, or a result was made).
  uint64_t updates() const {
    std::lock_guard lock(mutex_);
    return updates_;
  }

 private:
  struct Request {
    std::string key;
    Work work;
    uint64_t number = 0;
  };

  void run() {
    for (;;) {
      Request request;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
        if (stop_) return;
        request = std::move(*pending_);
        pending_.reset();
        fraction_ = 0.0;
        working_ = true;
      }
      make(request);
    }
  }

  void make(const Request& request) {
    auto made = std::make_shared<Made>();
    made->key = request.key;
    JobControl control;
    control.keep_going = [this, number = request.number] {
      std::lock_guard lock(mutex_);
      return !stop_ && requests_ == number;
    };
    control.progress = [this](double fraction) { report([&] { fraction_ = fraction; }); };
    try {
      made->value = request.work(control);
    } catch (const Cancelled&) {
      std::lock_guard lock(mutex_);
      fraction_.reset();
      working_ = false;
      return;
    } catch (const std::exception& e) {
      made->error = e.what();
    }
    report([&] {
      latest_ = std::move(made);
      fraction_.reset();
      working_ = false;
    });
  }

  // Changes what the job shows under its lock, counts the report and wakes the window.
  template <class Change>
  void report(Change change) {
    {
      std::lock_guard lock(mutex_);
      change();
      ++updates_;
    }
    if (notify_) notify_();
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Request> pending_;
  uint64_t requests_ = 0, updates_ = 0;
  std::string submitted_key_;
  std::optional<double> fraction_;
  bool working_ = false, stop_ = false;
  std::shared_ptr<const Made> latest_;
  std::function<void()> notify_;
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace attnscope::ui
