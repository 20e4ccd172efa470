#include "download_job.h"

#include <filesystem>

namespace attnscope::ui {

DownloadJob::~DownloadJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

void DownloadJob::start(std::string id, HubOptions options) {
  if (thread_.joinable()) thread_.join();
  cancel_ = false;
  {
    std::lock_guard lock(mutex_);
    state_ = DownloadJobState{};  // not an aggregate of five: GCC took its empty progress for uninitialised
    state_.running = true;
    state_.id = id;
  }
  thread_ = std::thread([this, id = std::move(id), options = std::move(options)] {
    try {
      const auto snapshot = download_model(id, options, [this](const DownloadProgress& p) {
        std::lock_guard lock(mutex_);
        state_.progress = p;
        return !cancel_;
      });
      std::lock_guard lock(mutex_);
      state_.running = false;
      state_.finished = snapshot.string();
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      state_.running = false;
      state_.error = e.what();
    }
  });
}

DownloadJobState DownloadJob::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::string DownloadJob::take_finished() {
  std::lock_guard lock(mutex_);
  if (state_.finished.empty()) return "";
  // A GGUF repository's file opens by its path: its id may name a file (org/name:Q8_0), which the
  // cache does not know, and the cache may hold several files of that repository.
  const std::string opened =
      std::filesystem::path(state_.finished).extension() == ".gguf" ? state_.finished : state_.id;
  state_.finished.clear();
  return opened;
}

}  // namespace attnscope::ui
