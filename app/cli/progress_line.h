#pragma once
// Progress on standard error: a bar redrawn in place on a terminal; elsewhere (CI, a pipe) a
// plain line every 10% or 30 seconds.
#include <string>

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

// "m:ss" or "h:mm:ss".
std::string duration(double seconds);
// "1.2 MB", "340 kB", ...
std::string byte_size(double bytes);

}  // namespace attnscope::cli
