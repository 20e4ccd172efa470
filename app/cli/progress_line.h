#pragma once
// Progress on standard error: a bar redrawn in place on a terminal; elsewhere (CI, a pipe) a
// plain line every 10% or 30 seconds.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/progress.h"

namespace attnscope::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string prefix);
  // `fraction` in [0, 1]; `text` says the rest (counts, rate, time left).
  void update(double fraction, double seconds, const std::string& text);
  void finish() const;  // ends the terminal's line

 private:
  std::string prefix_;
  bool tty_;
  double next_fraction_ = 0.1, next_seconds_ = 30;
};

// The stages of one long run (a long text's forward, its scan for pairs, its head roles), each on
// its own ProgressLine with the time left once it has taken a second on a terminal (30 seconds
// elsewhere: a log gets lines from long runs only, and a refusal after a short run stays one
// line). The line shown last is ended when this goes.
class StageProgress {
 public:
  StageProgress();
  StageProgress(const StageProgress&) = delete;
  StageProgress& operator=(const StageProgress&) = delete;
  ~StageProgress() { end(); }
  ProgressReport report();  // reports here; valid while this lives

 private:
  void update(std::string_view stage, double fraction);
  void end();
  std::string stage_;
  std::optional<ProgressLine> line_;
  std::chrono::steady_clock::time_point start_;
  double quiet_seconds_;  // before a stage's first line
};

// "m:ss" or "h:mm:ss".
std::string duration(double seconds);
}  // namespace attnscope::cli
