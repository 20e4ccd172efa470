#pragma once
// A corpus run, or the loading of a saved one, in the background: progress and cancel cross
// threads through a mutex-guarded copy and an atomic flag; the finished accumulator is handed
// over as an immutable snapshot.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "corpus/corpus_run.h"
#include "model/checkpoint.h"
#include "report/findings_report.h"

namespace attnscope::ui {

struct CorpusJobState {
  bool running = false;
  CorpusProgress progress;
  std::string message;  // what happened last: saved to ..., cancelled, an error
  std::shared_ptr<const CorpusAccumulator> result;
  std::string source;   // the input or the opened file
  ReportSource report;  // the result as the findings report names and describes it
};

class CorpusJob {
 public:
  CorpusJob() = default;
  ~CorpusJob();
  CorpusJob(const CorpusJob&) = delete;
  CorpusJob& operator=(const CorpusJob&) = delete;

  // Runs `options` and saves the result (JSON, and CSV tables beside it) to `out` when not empty.
  void start_run(std::shared_ptr<const Checkpoint> checkpoint, CorpusOptions options, std::filesystem::path out);
  void start_open(std::filesystem::path saved);
  void cancel() { cancel_ = true; }
  CorpusJobState state() const;

 private:
  void join();
  void finish(std::string message, ReportSource report = {});

  mutable std::mutex mutex_;
  CorpusJobState state_;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace attnscope::ui
