#pragma once
// Progress on standard error: a bar redrawn in place on a terminal; elsewhere (CI, a pipe) a
// plain line every 10% or 30 seconds.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "base/progress.h"

namespace attnscope::cli {

// Where progress goes: standard error, redrawn in place where it is a terminal.
struct ProgressOutput {
  std::FILE* file = stderr;
  bool terminal = is_terminal();
  static bool is_terminal();  // standard error's
};

class ProgressLine {
 public:
  explicit ProgressLine(std::string prefix, ProgressOutput output = {});
  // `fraction` in [0, 1], or kShareUnknown (no bar: the time so far); `text` says the rest
  // (counts, rate, time left).
  void update(double fraction, double seconds, const std::string& text);
  void finish() const;  // ends the terminal's line

 private:
  std::string prefix_;
  ProgressOutput output_;
  double next_fraction_ = 0.1, next_seconds_ = 30;
};

// The stages of a command (opening the model, its forward, the analysis, a long text's scan for
// pairs, writing the result), each on its own ProgressLine with the time left. On a terminal a
// stage is shown once the command has run a second, whichever stage took it (a command of five
// stages of under a second each is not silent for four), and redrawn four times a second, so that
// the time moves on while a step reports nothing (a stage of unknown share, or one layer of a
// forward at 32,768 tokens). Elsewhere a stage gets lines once it has taken 30 seconds itself: a
// log gets lines from long runs only, and a refusal after a short run stays one line. The line
// shown last is ended when this goes.
struct StageProgressOptions {
  ProgressOutput output = {};
  double quiet_on_terminal = 1;  // seconds since the command started
  double quiet_in_log = 30;      // seconds since the stage began
};

class StageProgress {
 public:
  explicit StageProgress(StageProgressOptions options = {});
  StageProgress(const StageProgress&) = delete;
  StageProgress& operator=(const StageProgress&) = delete;
  ~StageProgress();
  ProgressReport report();  // reports here, from any thread; valid while this lives
  // A stage that reports nothing more until the next one (opening a model).
  void begin(std::string_view stage) { update(stage, kShareUnknown); }

 private:
  void update(std::string_view stage, double fraction);
  void draw();  // with mutex_ held
  void end();   // with mutex_ held
  void tick();  // the terminal's redrawing thread

  std::mutex mutex_;
  std::string stage_;
  double fraction_ = 0;
  std::optional<ProgressLine> line_;
  std::chrono::steady_clock::time_point start_;
  StageProgressOptions options_;
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread ticker_;  // last: started once the rest is set
};

// "m:ss" or "h:mm:ss".
std::string duration(double seconds);
}  // namespace attnscope::cli
