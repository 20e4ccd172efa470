#pragma once
// Running attnscope-cli from the tests as a user would: its exit status and what it printed, the
// one-line error every bad input must end with, and the fixture with a tiny random BERT checkpoint.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/paths.h"

namespace attnscope::test {

struct Outcome {
  int status;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p);
std::string quote(const std::string& s);  // for the shell, in single quotes
// Any program with these arguments; its exit status and what it printed.
Outcome run(const std::vector<std::string>& program_and_args);
Outcome run_cli(std::vector<std::string> args);
// A non-zero status below 128 (no crash) and exactly one line on standard error, containing `needle`.
void expect_one_line_error(const std::vector<std::string>& args, const std::string& needle);

class Cli : public ::testing::Test {
 protected:
  void SetUp() override;
  std::string tiny() const { return (dir_.path() / "tiny").string(); }
  TempDir dir_;
};

}  // namespace attnscope::test
