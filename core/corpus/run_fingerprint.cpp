#include "corpus/run_fingerprint.h"

#include "corpus/corpus_reader.h"
#include "base/file_hash.h"

namespace attnscope {
namespace {

nlohmann::json file_entry(const std::filesystem::path& file, const std::string& name) {
  return {{"file", name}, {"bytes", std::filesystem::file_size(file)}, {"sha256", sha256_file(file)}};
}

}  // namespace

nlohmann::json input_fingerprint(const std::filesystem::path& input) {
  const CorpusReader reader(input);
  nlohmann::json files = nlohmann::json::array();
  const bool folder = std::filesystem::is_directory(input);
  for (const auto& f : reader.files())
    files.push_back(
        file_entry(f, folder ? std::filesystem::relative(f, input).generic_string() : f.filename().string()));
  return files;
}

nlohmann::json model_fingerprint(const std::filesystem::path& dir) {
  nlohmann::json files = nlohmann::json::array();
  for (const char* name : {"config.json", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "model.safetensors"})
    if (std::filesystem::exists(dir / name)) files.push_back(file_entry(dir / name, name));
  return files;
}

}  // namespace attnscope
