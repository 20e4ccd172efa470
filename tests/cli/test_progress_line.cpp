// The command line's progress (app/cli/progress_line.h): on a terminal each stage on a line of its
// own, redrawn while it reports nothing, and nothing before the command has run its quiet second;
// in a log nothing from a stage shorter than its 30 seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/cli_runner.h"
#include "cli/progress_line.h"
#include "support/paths.h"

namespace attnscope {
namespace {

using namespace test;

// A file standing in for standard error, read back as the stages wrote it.
class ProgressFile {
 public:
  ProgressFile() : file_(std::fopen((dir_ / "err").c_str(), "w")) {}
  ~ProgressFile() { std::fclose(file_); }
  cli::StageProgressOptions options(bool terminal, double quiet_on_terminal = 0) const {
    return {.output = {file_, terminal}, .quiet_on_terminal = quiet_on_terminal};
  }
  std::string text() const {
    std::fflush(file_);
    return slurp(dir_ / "err");
  }

 private:
  TempDir dir_;
  std::FILE* file_;
};

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(StageProgress, OnATerminalEachStageHasItsLineEndedWhenTheNextBegins) {
  ProgressFile err;
  {
    cli::StageProgress progress(err.options(true));
    progress.begin("opening models/m");
    progress.report()("model", 0.5);
  }
  const std::string text = err.text();
  const size_t opening = text.find("\ropening models/m 0:00\033[K\n");
  const size_t model = text.find("\rmodel [###############...............]  50.0%  0:00 left\033[K");
  ASSERT_NE(opening, std::string::npos) << text;
  ASSERT_NE(model, std::string::npos) << text;
  EXPECT_LT(opening, model);
  EXPECT_EQ(text.back(), '\n') << "the last stage's line is ended when the progress goes";
}

TEST(StageProgress, AStageThatReportsNothingIsRedrawnWithItsTime) {
  ProgressFile err;
  cli::StageProgress progress(err.options(true));
  progress.begin("analysis");
  // The ticker redraws four times a second; a loaded machine may take longer.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (count(err.text(), "\ranalysis 0:0") < 3 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(count(err.text(), "\ranalysis 0:0"), 3u) << err.text();
}

TEST(StageProgress, NothingBeforeTheCommandHasRunItsQuietTime) {
  ProgressFile err;
  {
    cli::StageProgress progress(err.options(true, 1e9));
    progress.begin("opening models/m");
    progress.report()("model", 1.0);
  }
  EXPECT_EQ(err.text(), "");
}

TEST(StageProgress, InALogAStageShorterThanItsQuietTimeWritesNothing) {
  ProgressFile err;
  {
    cli::StageProgress progress(err.options(false));
    progress.begin("opening models/m");
    for (int i = 1; i <= 10; ++i) progress.report()("model", i / 10.0);
    progress.report()("writing", 1.0);
  }
  EXPECT_EQ(err.text(), "");
}

TEST(StageProgress, InALogALongStageWritesALineEveryTenthDone) {
  ProgressFile err;
  {
    cli::StageProgressOptions options = err.options(false);
    options.quiet_in_log = 0;
    cli::StageProgress progress(options);
    for (int i = 1; i <= 10; ++i) progress.report()("model", i / 10.0);
  }
  const std::string text = err.text();
  EXPECT_EQ(count(text, "model: "), 10u) << text;
  EXPECT_NE(text.find("model: 100.0%  0:00 left\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << "a log gets lines, not a bar redrawn";
}

}  // namespace
}  // namespace attnscope
