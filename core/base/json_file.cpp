#include "base/json_file.h"

#include <fstream>

#include "base/error.h"

namespace attnscope {

nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& when_missing) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file)) throw Error(file.string() + ": " + when_missing);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace attnscope
