#include "cli/cli_runner.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/tiny_bert.h"

namespace attnscope::test {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Any program with these arguments; its exit status and what it printed.
Outcome run(const std::vector<std::string>& program_and_args) {
  const TempDir io;
  std::string command;
  for (const auto& a : program_and_args) command += (command.empty() ? "" : " ") + quote(a);
  command += " > " + quote((io / "out").string()) + " 2> " + quote((io / "err").string()) + " < /dev/null";
  const int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128, slurp(io / "out"), slurp(io / "err")};
}

Outcome run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path().string());
  return run(args);
}

void expect_one_line_error(const std::vector<std::string>& args, const std::string& needle) {
  const Outcome o = run_cli(args);
  std::string all;
  for (const auto& a : args) all += a + " ";
  EXPECT_NE(o.status, 0) << all;
  EXPECT_LT(o.status, 128) << "crashed: " << all;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << all << "\n" << o.err;
  EXPECT_NE(o.err.find(needle), std::string::npos) << all << "\n" << o.err;
}

void Cli::SetUp() { write_tiny_bert(dir_.path() / "tiny", {}); }

}  // namespace attnscope::test
