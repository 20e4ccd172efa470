#pragma once
// Compare mode's comparison of the two newest analyses (A's and B's), off the UI thread: a
// comparison of two BERT-base runs of 512 tokens with head matching takes a tenth of a second.
// The newest pair wins (newest_request_job.h); each result is an immutable snapshot, and `notify`
// wakes the window.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "analysis_worker.h"
#include "compare/text_comparison.h"
#include "newest_request_job.h"

namespace attnscope::ui {

struct ComparisonSnapshot {
  std::shared_ptr<const AnalysisSnapshot> a, b;  // what was compared (kept alive with it)
  std::optional<TextComparison> comparison;      // empty when it failed
  std::string error;
  uint64_t serial = 0;  // unique per result
};

class ComparisonJob {
 public:
  explicit ComparisonJob(std::function<void()> notify = {}) : job_(std::move(notify)) {}

  // Compares a with b unless that pair is the one compared (or being compared) already.
  void submit(std::shared_ptr<const AnalysisSnapshot> a, std::shared_ptr<const AnalysisSnapshot> b,
              CompareSettings settings);
  std::shared_ptr<const ComparisonSnapshot> latest() const;
  bool busy() const { return job_.busy(); }
  // The share done of the comparison under way (a long text's reports it), nullopt when none is.
  std::optional<double> fraction() const { return job_.fraction(); }

 private:
  uint64_t made_ = 0;                                                // results made, counted on the job's thread only
  NewestRequestJob<std::shared_ptr<const ComparisonSnapshot>> job_;  // last: its thread uses made_
};

}  // namespace attnscope::ui
