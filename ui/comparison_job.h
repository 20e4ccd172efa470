#pragma once
// Compare mode's comparison of the two newest analyses (A's and B's), off the UI thread: a
// comparison of two BERT-base runs of 512 tokens with head matching takes a tenth of a second.
// The newest pair wins; each result is an immutable snapshot, and `notify` wakes the window.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "analysis_worker.h"
#include "compare/text_comparison.h"

namespace attnscope::ui {

struct ComparisonSnapshot {
  std::shared_ptr<const AnalysisSnapshot> a, b;  // what was compared (kept alive with it)
  std::optional<TextComparison> comparison;      // empty when it failed
  std::string error;
  uint64_t serial = 0;  // unique per result
};

class ComparisonJob {
 public:
  explicit ComparisonJob(std::function<void()> notify = {});
  ~ComparisonJob();
  ComparisonJob(const ComparisonJob&) = delete;
  ComparisonJob& operator=(const ComparisonJob&) = delete;

  // Compares a with b unless that pair is the one compared (or being compared) already.
  void submit(std::shared_ptr<const AnalysisSnapshot> a, std::shared_ptr<const AnalysisSnapshot> b,
              CompareSettings settings);
  std::shared_ptr<const ComparisonSnapshot> latest() const;
  bool busy() const;

 private:
  struct Request {
    std::shared_ptr<const AnalysisSnapshot> a, b;
    CompareSettings settings;
  };
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Request> pending_;
  uint64_t submitted_a_ = 0, submitted_b_ = 0;  // serials (a pointer could be reused by a new snapshot)
  bool submitted_match_ = false, working_ = false, stop_ = false;
  uint64_t next_serial_ = 0;  // read and written by the job's thread only
  std::shared_ptr<const ComparisonSnapshot> latest_;
  std::function<void()> notify_;
  std::thread thread_;
};

}  // namespace attnscope::ui
