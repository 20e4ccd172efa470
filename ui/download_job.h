#pragma once
// A model download in the background for the explorer: progress and cancel cross threads as a
// guarded copy and an atomic flag; what the finished download opens is handed over once.
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
  std::string finished;  // what a finished download opens: its snapshot folder, or a GGUF file in it
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
  // What to open of the finished download, once: its id, or a GGUF repository's file's path; empty
  // otherwise.
  std::string take_finished();

 private:
  mutable std::mutex mutex_;
  DownloadJobState state_;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace attnscope::ui
