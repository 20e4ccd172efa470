#pragma once
// Where the tests find the project's files, the real test model, and the command line.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace attnscope::test {

std::filesystem::path source_dir();
std::filesystem::path golden_dir();
// The real all-MiniLM-L6-v2 checkpoint unpacked by tools/setup.sh (or $ATTNSCOPE_TEST_MODEL).
// Fails the calling test with a message saying how to fetch it when it is not there.
std::filesystem::path minilm_dir();
// A real model's file that tools/setup.sh fetches (relative to the source folder), failing the
// calling test the same way when it is not there.
std::filesystem::path real_model_file(const std::string& relative);
std::filesystem::path cli_path();
// The project's Python (.venv, made by tools/setup.sh), with the reference libraries and pandas.
std::filesystem::path venv_python();
nlohmann::json read_json(const std::filesystem::path& file);
// A golden fixture of tests/golden/, read once per test program.
const nlohmann::json& golden(const std::string& name);

// A fresh empty folder under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& file, const std::string& content);

}  // namespace attnscope::test
