#include "progress_line.h"

#include <cstdio>
#include <unistd.h>

namespace attnscope::cli {
namespace {

using Clock = std::chrono::steady_clock;

// When the program started (before main): a terminal's quiet second counts from it.
const Clock::time_point kCommandStart = Clock::now();
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

bool ProgressOutput::is_terminal() { return isatty(STDERR_FILENO); }

ProgressLine::ProgressLine(std::string prefix, ProgressOutput output) : prefix_(std::move(prefix)), output_(output) {}

void ProgressLine::update(double f, double seconds, const std::string& text) {
  const bool known = f >= 0;
  char line[200];
  if (known)
    std::snprintf(line, sizeof line, "%5.1f%%  %s", 100 * f, text.c_str());
  else
    std::snprintf(line, sizeof line, "%s", text.c_str());
  if (output_.terminal) {
    const int filled = known ? static_cast<int>(f * 30) : 0;
    const std::string bar = known ? " [" + std::string(static_cast<size_t>(filled), '#') +
                                        std::string(static_cast<size_t>(30 - filled), '.') + "]"
                                  : "";
    // \033[K: what a longer line before left on the terminal
    std::fprintf(output_.file, "\r%s%s %s\033[K", prefix_.c_str(), bar.c_str(), line);
  } else if ((known && f >= next_fraction_ - 1e-9) || seconds >= next_seconds_) {  // 0.3 after 0.2 + 0.1
    std::fprintf(output_.file, "%s: %s\n", prefix_.c_str(), line);
    if (known) next_fraction_ = f + 0.1;
    next_seconds_ = seconds + 30;
  }
  std::fflush(output_.file);
}

void ProgressLine::finish() const {
  if (output_.terminal) std::fprintf(output_.file, "\n");
}

StageProgress::StageProgress(StageProgressOptions options) : options_(options) {
  if (options_.output.terminal) ticker_ = std::thread([this] { tick(); });
}

StageProgress::~StageProgress() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    end();
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

ProgressReport StageProgress::report() {
  return [this](std::string_view stage, double fraction) { update(stage, fraction); };
}

void StageProgress::update(std::string_view stage, double fraction) {
  std::lock_guard lock(mutex_);
  if (stage != stage_) {
    end();
    stage_ = stage;
    start_ = Clock::now();
  }
  fraction_ = fraction;
  draw();
}

void StageProgress::draw() {
  if (stage_.empty()) return;
  const auto now = Clock::now();
  const double seconds = seconds_between(start_, now);
  const bool quiet = options_.output.terminal ? seconds_between(kCommandStart, now) < options_.quiet_on_terminal
                                              : seconds < options_.quiet_in_log;
  if (!line_ && quiet) return;
  if (!line_) line_.emplace(stage_, options_.output);
  std::string text;
  if (fraction_ < 0)
    text = duration(seconds);
  else if (fraction_ > 0)
    text = duration(seconds * (1 - fraction_) / fraction_) + " left";
  line_->update(fraction_, seconds, text);
}

void StageProgress::end() {
  if (line_) line_->finish();
  line_.reset();
  stage_.clear();
}

void StageProgress::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kRedrawEvery, [this] { return stopping_; })) draw();
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
