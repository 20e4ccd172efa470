#pragma once
// A model download in the background for the explorer: progress and cancel cross threads as a
// guarded copy and an atomic flag; the finished snapshot folder is handed over once.
#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "hub/hub_download.h"

namespace attnscope::ui {

struct DownloadJobState {
  bool running = false;
  std::string id;
  DownloadProgress progress;
  std::string error;     // the last attempt failed
  std::string finished;  // the snapshot folder of a finished download (id in `id`)
};

class DownloadJob {
 public:
  DownloadJob() = default;
  ~DownloadJob();
  DownloadJob(const DownloadJob&) = delete;
  DownloadJob& operator=(const DownloadJob&) = delete;

  void start(std::string id, HubOptions options);
  void cancel() { cancel_ = true; }
  DownloadJobState state() const;
  // The finished download's id, once; empty otherwise.
  std::string take_finished();

 private:
  mutable std::mutex mutex_;
  DownloadJobState state_;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace attnscope::ui
