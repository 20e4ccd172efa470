#include "progress_line.h"

#include <cstdio>
#include <unistd.h>

namespace attnscope::cli {

ProgressLine::ProgressLine(std::string prefix) : prefix_(std::move(prefix)), tty_(isatty(STDERR_FILENO)) {}

void ProgressLine::update(double f, double seconds, const std::string& text) {
  char line[200];
  std::snprintf(line, sizeof line, "%5.1f%%  %s", 100 * f, text.c_str());
  if (tty_) {
    const int filled = static_cast<int>(f * 30);
    std::fprintf(stderr, "\r%s [%s%s] %s ", prefix_.c_str(), std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(30 - filled), '.').c_str(), line);
  } else if (f >= next_fraction_ || seconds >= next_seconds_) {
    std::fprintf(stderr, "%s: %s\n", prefix_.c_str(), line);
    next_fraction_ = f + 0.1;
    next_seconds_ = seconds + 30;
  }
  std::fflush(stderr);
}

void ProgressLine::finish() const {
  if (tty_) std::fprintf(stderr, "\n");
}

StageProgress::StageProgress() : quiet_seconds_(isatty(STDERR_FILENO) ? 1.0 : 30.0) {}

ProgressReport StageProgress::report() {
  return [this](std::string_view stage, double fraction) { update(stage, fraction); };
}

void StageProgress::update(std::string_view stage, double fraction) {
  const auto now = std::chrono::steady_clock::now();
  if (stage != stage_) {
    end();
    stage_ = stage;
    start_ = now;
  }
  const double seconds = std::chrono::duration<double>(now - start_).count();
  if (!line_ && seconds < quiet_seconds_) return;
  if (!line_) line_.emplace(stage_);
  line_->update(fraction, seconds, fraction > 0 ? duration(seconds * (1 - fraction) / fraction) + " left" : "");
}

void StageProgress::end() {
  if (line_) line_->finish();
  line_.reset();
}

std::string duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

}  // namespace attnscope::cli
